// Generates the translation unit NVRTC compiles: a comment header and a
// static_assert restating each policy, custom operator functors, and one name
// expression per kernel the algorithm launches.
#include "codegen.hpp"

#include <cctype>
#include <set>

#include <fmt/format.h>

#include <fmt/ranges.h>

#include "algorithms.hpp"
#include "base/hash.hpp"
#include "embedded_templates.hpp"
#include "errors.hpp"
#include "policy_fields.hpp"

namespace scantune::detail {
namespace {

bool is_integer(DataType t) {
  return t != DataType::Float32 && t != DataType::Float64;
}
bool is_bitwise(Op op) {
  return op == Op::BitAnd || op == Op::BitOr || op == Op::BitXor;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || s.size() > 64 ||
      !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// A predicate's struct is not an operator's of the same name and text: "pred_" first.
std::string custom_struct_name(const OpSpec& op, DataType t, Heads heads) {
  const std::string type =
      op.custom.is_struct() ? struct_type_text(op.custom.value_bytes) : std::string(to_string(t));
  return fmt::format("{}{}_{}_{}", takes_predicate(heads) ? "pred_" : "", op.custom.name, type,
                     op.id().substr(op.id().rfind(':') + 1));
}

// A struct-valued operator's functor and struct share a namespace of their own: its
// body and identity name the struct unqualified, and two operators' structs of one
// name never meet.
std::string struct_namespace(const OpSpec& op, DataType t, Heads heads) {
  return "scantune_user::" + custom_struct_name(op, t, heads) + "_v::";
}

std::string op_type(const OpSpec& op, DataType t, Heads heads) {
  if (op.custom.is_struct())
    return struct_namespace(op, t, heads) + custom_struct_name(op, t, heads);
  if (op.is_custom) return "scantune_user::" + custom_struct_name(op, t, heads);
  return builtin_op_functor(op.op, t);
}

// The CUDA spelling of the scan's value type: a struct-valued operator's struct.
std::string value_type_name(const KernelSpec& s) {
  if (s.op.custom.is_struct())
    return struct_namespace(s.op, s.type, s.heads) + s.op.custom.value_type;
  return device_type_name(s.type);
}

// A struct-valued operator: its struct, checks of its size and copyability, and the
// functor, in their own namespace.
std::string custom_struct_valued(const KernelSpec& s, const std::string& name) {
  const CustomOp& c = s.op.custom;
  const std::string& t = c.value_type;
  return fmt::format(
      "namespace scantune_user {{\n"
      "namespace {}_v {{\n"
      "#line 1 \"struct of custom operator {}\"\n"
      "{}\n"
      "static_assert(sizeof({}) == {}, \"custom operator {}: sizeof({}) is not value_bytes = "
      "{}\");\n"
      "static_assert(__is_trivially_copyable({}), \"custom operator {}: {} is not trivially "
      "copyable\");\n"
      "// custom operator '{}' on struct {}\n"
      "struct {} {{\n"
      "  static __device__ __forceinline__ {} identity() {{\n"
      "#line 1 \"identity of custom operator {}\"\n"
      "    return {};\n"
      "  }}\n"
      "  __device__ __forceinline__ {} operator()({} a, {} b) const {{\n"
      "#line 1 \"custom operator {}\"\n"
      "{}\n"
      "  }}\n"
      "}};\n"
      "}}  // namespace {}_v\n"
      "}}  // namespace scantune_user\n\n",
      name, c.name, c.value_struct, t, c.value_bytes, c.name, t, c.value_bytes, t, c.name, t,
      c.name, t, name, t, c.name, c.identity, t, t, t, c.name, c.body, name);
}

// A custom operator's functor, or a compaction's predicate (the body tests `x`: a half
// or bfloat16 element as float, select.cuh's select_value).
std::string custom_struct(const KernelSpec& s, const std::string& name) {
  if (s.op.custom.is_struct()) return custom_struct_valued(s, name);
  const CustomOp& c = s.op.custom;
  const bool storage_float = s.type == DataType::Float16 || s.type == DataType::BFloat16;
  const char* t = takes_predicate(s.heads) && storage_float ? "float" : device_type_name(s.type);
  if (takes_predicate(s.heads))
    return fmt::format("namespace scantune_user {{\n"
                       "// predicate '{}' on {}\n"
                       "struct {} {{\n"
                       "  __device__ __forceinline__ bool operator()({} x) const {{\n"
                       "#line 1 \"predicate {}\"\n"
                       "{}\n"
                       "  }}\n"
                       "}};\n"
                       "}}  // namespace scantune_user\n\n",
                       c.name, to_string(s.type), name, t, c.name, c.body);
  return fmt::format("namespace scantune_user {{\n"
                     "// custom operator '{}' on {}\n"
                     "struct {} {{\n"
                     "  static __device__ __forceinline__ {} identity() {{ return ({})({}); }}\n"
                     "  __device__ __forceinline__ {} operator()({} a, {} b) const {{\n"
                     "#line 1 \"custom operator {}\"\n"
                     "{}\n"
                     "  }}\n"
                     "}};\n"
                     "}}  // namespace scantune_user\n\n",
                     c.name, to_string(s.type), name, t, t, c.identity, t, t, t, c.name, c.body);
}

// "scantune::policy<scantune::ALG_..., 256, 12, ...>": each field at its template slot.
std::string policy_type(const Policy& p) {
  std::vector<std::string> args{fmt::format("scantune::{}", describe(p.algorithm).device_enum)};
  for (const FieldDesc& f : policy_fields()) {
    const int v = f.get(p);
    if (f.template_slot == 0 || (f.omit_default_argument && v == f.default_value)) continue;
    if (args.size() <= static_cast<std::size_t>(f.template_slot)) args.resize(f.template_slot + 1);
    args[f.template_slot] = device_value(f, v);
  }
  // An omitted default argument before a given one is written out.
  for (const FieldDesc& f : policy_fields())
    if (f.template_slot > 0 && static_cast<std::size_t>(f.template_slot) < args.size() &&
        args[f.template_slot].empty())
      args[f.template_slot] = device_value(f, f.default_value);
  return fmt::format("scantune::policy<{}>", fmt::join(args, ", "));
}

// "{P}::block_threads == 256 && ...": the fields the policy type must restate.
std::string policy_assertion(const Policy& p) {
  const std::string type = policy_type(p);
  std::vector<std::string> terms;
  for (const FieldDesc& f : policy_fields())
    if (f.asserted && !(f.omit_default_argument && f.get(p) == f.default_value))
      terms.push_back(
          fmt::format("{}::{} == {}", type, f.name,
                      f.assert_as_number ? std::to_string(f.get(p)) : device_value(f, f.get(p))));
  return fmt::format("static_assert({}, \"policy {}\");\n", fmt::join(terms, " && "), p.key());
}

// The entry points of `s`'s kernels, in launch order; a tile algorithm's take the policy.
std::vector<std::string> kernel_names(const KernelSpec& s) {
  const AlgorithmDesc& a = describe(s.policy.algorithm);
  const std::string kind =
      s.kind == ScanKind::Exclusive ? "scantune::KIND_EXCLUSIVE" : "scantune::KIND_INCLUSIVE";
  std::string op = op_type(s.op, s.type, s.heads);
  if (s.policy.reverse) op = fmt::format("scantune::reversed_op<{} >", op);
  std::string args = fmt::format("{}, {}, {}", value_type_name(s), op, kind);
  if (a.tiles) args += ", " + policy_type(s.policy);
  if (s.converts) // the flat kernels' trailing In and Out
    args += fmt::format(", {}, {}", device_type_name(s.converts->in),
                        device_type_name(s.converts->out));
  std::vector<std::string> names;
  if (s.heads == Heads::Reduce) {
    names.push_back(fmt::format("&scantune::{}<{}>", a.reduce_entry, args));
    return names;
  }
  if (s.heads == Heads::Axis) { // a tile loop over whole chains: code of its own (CHAINS)
    names.push_back(
        fmt::format("&scantune::{}<{}{}>", a.axis_entry, args, s.policy.tile_loop ? ", true" : ""));
    return names;
  }
  if (is_compaction(s.heads)) { // select_kernel first: the launch sizes its grid by it
    const std::string_view mode = device_heads_name(s.heads);
    names.push_back(fmt::format("&scantune::{}<{}, {}>", a.select_entry, args, mode));
    if (is_partition(s.heads))
      names.push_back(fmt::format("&scantune::{}<{}, {}>", a.select_count_entry, args, mode));
    return names;
  }
  if (s.heads != Heads::None) { // one kernel (segmented_invalid_reason)
    names.push_back(
        fmt::format("&scantune::{}<{}, {}>", a.segmented_entry, args, device_heads_name(s.heads)));
    return names;
  }
  for (int k = 0; k < a.kernel_count; ++k) {
    const KernelDesc& kernel = a.kernels[k];
    // The tile loop is its own kernel: the one-tile kernel keeps its code.
    const std::string_view entry =
        s.policy.tile_loop && !kernel.loop_entry.empty() ? kernel.loop_entry : kernel.entry;
    names.push_back(fmt::format("&scantune::{}<{}>", entry, args));
  }
  return names;
}

} // namespace

const std::string& template_sources_hash() {
  static const std::string hash = [] {
    Sha256 h;
    for (std::size_t i = 0; i < kTemplateFileCount; ++i)
      h.update(kTemplateFiles[i].name).update(kTemplateFiles[i].text);
    return h.hex_digest();
  }();
  return hash;
}

std::string builtin_op_functor(Op op, DataType t) {
  return fmt::format("scantune::op_{}<{}>", to_string(op), device_type_name(t));
}

const char* device_type_name(DataType t) {
  switch (t) {
  case DataType::Int32:
    return "int";
  case DataType::UInt32:
    return "unsigned int";
  case DataType::Int64:
    return "long long";
  case DataType::UInt64:
    return "unsigned long long";
  case DataType::Float32:
    return "float";
  case DataType::Float64:
    return "double";
  case DataType::Int8:
    return "signed char";
  case DataType::UInt8:
    return "unsigned char";
  case DataType::Int16:
    return "short";
  case DataType::UInt16:
    return "unsigned short";
  case DataType::Float16:
    return "scantune::half_t";
  case DataType::BFloat16:
    return "scantune::bfloat16_t";
  }
  return "?";
}

OpSpec OpSpec::from(const OpRef& ref) {
  OpSpec s;
  s.op = ref.op;
  if (ref.custom) {
    s.is_custom = true;
    s.custom = *ref.custom;
  }
  return s;
}

std::string OpSpec::id() const {
  if (!is_custom) return std::string(to_string(op));
  return fmt::format("custom:{}:{}", custom.name, custom_op_hash(custom));
}

std::string custom_op_hash(const CustomOp& op) {
  std::string text = op.body + '\0' + op.identity;
  if (op.is_struct())
    text += fmt::format("{}{}{}{}{}{}", '\0', op.value_struct, '\0', op.value_type, '\0',
                        op.value_bytes);
  return sha256_hex(text).substr(0, 16);
}

std::string struct_type_text(int value_bytes) {
  return fmt::format("struct{}", value_bytes);
}

int struct_type_bytes(std::string_view text) {
  for (int bytes = 4; bytes <= kMaxStructBytes; bytes += 4)
    if (text == struct_type_text(bytes)) return bytes;
  return 0;
}

std::string KernelSpec::id() const {
  const std::string flat =
      fmt::format("{}|{}|{}|{}", policy.key(), to_string(type), op.id(), to_string(kind));
  const std::string typed = converts ? fmt::format("{}|{}", flat, to_string(*converts)) : flat;
  return heads == Heads::None ? typed : fmt::format("{}|{}", typed, to_string(heads));
}

void check_op(DataType type, const OpRef& op) {
  if (const CustomOp* c = op.custom) {
    if (!is_identifier(c->name))
      fail("custom operator name '{}' is not a C identifier (letters, digits, '_', at most 64)",
           c->name);
    if (c->body.find_first_not_of(" \t\r\n") == std::string::npos)
      fail("custom operator '{}' has an empty body", c->name);
    if (c->identity.find_first_not_of(" \t\r\n") == std::string::npos)
      fail("custom operator '{}' has no identity expression", c->name);
    if (c->is_struct() || !c->value_struct.empty() || c->value_bytes != 0) check_struct_op(*c);
    return;
  }
  if (is_bitwise(op.op) && !is_integer(type))
    fail<Unsupported>("operator {} applies to integer types only, not {}", to_string(op.op),
                      to_string(type));
}

void check_struct_op(const CustomOp& c) {
  if (!is_identifier(c.value_type))
    fail("custom operator '{}': value type '{}' is not a C identifier (a struct-valued operator "
         "names its struct in value_type)",
         c.name, c.value_type);
  if (c.value_struct.find_first_not_of(" \t\r\n") == std::string::npos)
    fail("custom operator '{}': no source for its value type '{}' (value_struct)", c.name,
         c.value_type);
  if (c.value_bytes <= 0)
    fail("custom operator '{}': value_bytes {} is not the size of '{}'", c.name, c.value_bytes,
         c.value_type);
  if (c.value_bytes > kMaxStructBytes || c.value_bytes % 4 != 0)
    fail<Unsupported>("custom operator '{}': its value type '{}' has {} bytes; struct values "
                      "of 4, 8, 12 or 16 bytes are supported",
                      c.name, c.value_type, c.value_bytes);
}

void check_predicate(const CustomOp& p) {
  if (!is_identifier(p.name))
    fail("predicate name '{}' is not a C identifier (letters, digits, '_', at most 64)", p.name);
  if (p.body.find_first_not_of(" \t\r\n") == std::string::npos)
    fail("predicate '{}' has an empty body", p.name);
}

GeneratedSource generate(const std::vector<KernelSpec>& specs) {
  GeneratedSource g;
  g.name = specs.size() == 1 ? specs[0].id() : fmt::format("scantune_batch_{}", specs.size());
  std::string& src = g.source;
  src += fmt::format("// Generated by scantune; compiled by NVRTC. Templates sha256 {}.\n",
                     template_sources_hash());
  for (const auto& s : specs)
    src += fmt::format("// kernel: {}\n", s.id());
  src += "#include \"scantune/scan_kernels.cuh\"\n\n";

  std::set<std::string> emitted; // custom functors and predicates, once per (name, type)
  for (const auto& s : specs) {
    if (!s.op.is_custom) continue;
    const std::string name = custom_struct_name(s.op, s.type, s.heads);
    if (emitted.insert(name).second) src += custom_struct(s, name);
  }

  std::set<std::string> asserted;
  for (const auto& s : specs) {
    g.name_expressions.push_back(kernel_names(s));
    if (!describe(s.policy.algorithm).tiles || !asserted.insert(s.policy.key()).second) continue;
    src += policy_assertion(s.policy);
  }
  return g;
}

} // namespace scantune::detail

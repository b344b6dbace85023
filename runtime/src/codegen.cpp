// Generates the translation unit NVRTC compiles: a comment header and a
// static_assert restating each policy, custom operator functors, and one name
// expression per kernel the algorithm launches.
#include "codegen.hpp"

#include <cctype>
#include <set>

#include <fmt/format.h>

#include "base/hash.hpp"
#include "embedded_templates.hpp"
#include "errors.hpp"

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

const char* enum_name(Algorithm a) {
  switch (a) {
  case Algorithm::Sequential:
    return "ALG_SEQUENTIAL";
  case Algorithm::SingleBlock:
    return "ALG_SINGLE_BLOCK";
  case Algorithm::ReduceThenScan:
    return "ALG_REDUCE_THEN_SCAN";
  case Algorithm::Chained:
    return "ALG_CHAINED";
  case Algorithm::LookbackThread:
    return "ALG_LOOKBACK_THREAD";
  case Algorithm::LookbackWarp:
    return "ALG_LOOKBACK_WARP";
  case Algorithm::LookbackPipelined:
    return "ALG_LOOKBACK_PIPELINED";
  case Algorithm::LookbackBulk:
    return "ALG_LOOKBACK_BULK";
  }
  return "?";
}
const char* enum_name(BlockScan b) {
  switch (b) {
  case BlockScan::WarpScans:
    return "BS_WARP_SCANS";
  case BlockScan::HillisSteele:
    return "BS_HILLIS_STEELE";
  case BlockScan::Blelloch:
    return "BS_BLELLOCH";
  case BlockScan::BlellochPadded:
    return "BS_BLELLOCH_PADDED";
  }
  return "?";
}

const char* enum_name(TileIO io) {
  switch (io) {
  case TileIO::Transpose:
    return "IO_TRANSPOSE";
  case TileIO::Direct:
    return "IO_DIRECT";
  case TileIO::WarpTranspose:
    return "IO_WARP_TRANSPOSE";
  }
  return "?";
}

std::string custom_struct_name(const OpSpec& op, DataType t) {
  return fmt::format("{}_{}_{}", op.custom.name, to_string(t),
                     op.id().substr(op.id().rfind(':') + 1));
}

std::string op_type(const OpSpec& op, DataType t) {
  if (op.is_custom) return "scantune_user::" + custom_struct_name(op, t);
  return fmt::format("scantune::op_{}<{}>", to_string(op.op), device_type_name(t));
}

std::string policy_type(const Policy& p) {
  return fmt::format("scantune::policy<scantune::{}, {}, {}, {}, scantune::{}, scantune::{}, {}, "
                     "scantune::{}, {}, {}>",
                     enum_name(p.algorithm), p.block_threads, p.items_per_thread, p.vector_width,
                     enum_name(p.block_scan), enum_name(p.io), p.backoff_ns,
                     p.streaming ? "CACHE_STREAMING" : "CACHE_DEFAULT", p.lookback_span, p.stages);
}

std::vector<std::string> kernel_names(const KernelSpec& s) {
  const std::string t = device_type_name(s.type), op = op_type(s.op, s.type),
                    pol = policy_type(s.policy);
  const std::string kind =
      s.kind == ScanKind::Exclusive ? "scantune::KIND_EXCLUSIVE" : "scantune::KIND_INCLUSIVE";
  auto name = [&](const char* k) {
    return fmt::format("&scantune::{}<{}, {}, {}, {}>", k, t, op, kind, pol);
  };
  switch (s.policy.algorithm) {
  case Algorithm::Sequential:
    return {fmt::format("&scantune::sequential_kernel<{}, {}, {}>", t, op, kind)};
  case Algorithm::SingleBlock:
    return {name("single_block_kernel")};
  case Algorithm::ReduceThenScan:
    return {name("rts_reduce_kernel"), name("rts_partials_kernel"), name("rts_downsweep_kernel")};
  case Algorithm::LookbackPipelined:
    return {name("pipelined_kernel")};
  case Algorithm::LookbackBulk:
    return {name("bulk_kernel")};
  default: // the tile loop is its own kernel: the one-tile kernel keeps its code
    return {name(s.policy.tile_loop ? "single_pass_loop_kernel" : "single_pass_kernel")};
  }
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
  return sha256_hex(op.body + '\0' + op.identity).substr(0, 16);
}

std::string KernelSpec::id() const {
  return fmt::format("{}|{}|{}|{}", policy.key(), to_string(type), op.id(), to_string(kind));
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
    return;
  }
  if (is_bitwise(op.op) && !is_integer(type))
    fail<Unsupported>("operator {} applies to integer types only, not {}", to_string(op.op),
                      to_string(type));
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

  std::set<std::string> emitted; // custom functors, once per (operator, type)
  for (const auto& s : specs) {
    if (!s.op.is_custom) continue;
    const std::string name = custom_struct_name(s.op, s.type);
    if (!emitted.insert(name).second) continue;
    const char* t = device_type_name(s.type);
    src += fmt::format("namespace scantune_user {{\n"
                       "// custom operator '{}' on {}\n"
                       "struct {} {{\n"
                       "  static __device__ __forceinline__ {} identity() {{ return ({})({}); }}\n"
                       "  __device__ __forceinline__ {} operator()({} a, {} b) const {{\n"
                       "#line 1 \"custom operator {}\"\n"
                       "{}\n"
                       "  }}\n"
                       "}};\n"
                       "}}  // namespace scantune_user\n\n",
                       s.op.custom.name, to_string(s.type), name, t, t, s.op.custom.identity, t, t,
                       t, s.op.custom.name, s.op.custom.body);
  }

  std::set<std::string> asserted;
  for (const auto& s : specs) {
    g.name_expressions.push_back(kernel_names(s));
    if (s.policy.algorithm == Algorithm::Sequential || !asserted.insert(s.policy.key()).second)
      continue;
    const Policy& p = s.policy;
    src += fmt::format(
        "static_assert({0}::block_threads == {1} && {0}::items_per_thread == {2} && "
        "{0}::vector_width == {3} && {0}::tile_io == scantune::{6} && "
        "{0}::cache == {7} && {0}::backoff_ns == {4} && {0}::lookback_span == {8} && "
        "{0}::stages == {9}, \"policy {5}\");\n",
        policy_type(p), p.block_threads, p.items_per_thread, p.vector_width, p.backoff_ns, p.key(),
        enum_name(p.io), p.streaming ? 1 : 0, p.lookback_span, p.stages);
  }
  return g;
}

} // namespace scantune::detail

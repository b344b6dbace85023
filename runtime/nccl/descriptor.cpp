#include "descriptor.hpp"

#include <cstring>
#include <functional>
#include <map>
#include <sstream>

namespace scantune::nccl::detail {
namespace {

// FNV-1a: the custom operator's source, so ranks that compile different operators
// under one name are told apart.
std::uint64_t hash_custom(const CustomOp& c) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const std::string* s : {&c.name, &c.body, &c.identity}) {
    for (unsigned char ch : *s)
      h = (h ^ ch) * 0x100000001b3ull;
    h = (h ^ 0xffu) * 0x100000001b3ull; // separator: "ab"+"c" != "a"+"bc"
  }
  return h;
}

std::string type_name(std::uint32_t t) {
  if (t <= static_cast<std::uint32_t>(DataType::Float64))
    return std::string(to_string(static_cast<DataType>(t)));
  return "type code " + std::to_string(t);
}

std::string op_name(const Descriptor& d) {
  if (d.op == kCustomOp) {
    std::ostringstream s;
    s << "custom operator (source hash " << std::hex << d.custom_hash << ")";
    return s.str();
  }
  if (d.op <= static_cast<std::uint32_t>(Op::BitXor))
    return std::string(to_string(static_cast<Op>(d.op)));
  return "op code " + std::to_string(d.op);
}

std::string kind_name(std::uint32_t k) {
  return k <= 1 ? std::string(to_string(static_cast<ScanKind>(k))) : "kind " + std::to_string(k);
}

std::string init_name(const Descriptor& d) {
  std::ostringstream s;
  s << "init bits 0x" << std::hex << d.init_bits;
  return s.str();
}

// "field: ranks 0, 2 a; rank 1 b" when the ranks hold more than one value, else "".
std::string field_diff(const std::vector<Descriptor>& all, const char* field,
                       const std::function<std::string(const Descriptor&)>& value) {
  std::map<std::string, std::vector<std::size_t>> ranks_of;
  std::vector<std::string> order; // values in order of their first rank
  for (std::size_t r = 0; r < all.size(); ++r) {
    auto& ranks = ranks_of[value(all[r])];
    if (ranks.empty()) order.push_back(value(all[r]));
    ranks.push_back(r);
  }
  if (order.size() < 2) return {};
  std::ostringstream s;
  s << field << ":";
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& ranks = ranks_of[order[i]];
    s << (i ? ";" : "") << (ranks.size() > 1 ? " ranks " : " rank ");
    for (std::size_t j = 0; j < ranks.size(); ++j)
      s << (j ? ", " : "") << ranks[j];
    s << " " << order[i];
  }
  return s.str();
}

} // namespace

std::string describe_problem(ArgProblem problem, std::size_t rank, std::uint64_t n, int device) {
  std::ostringstream s;
  s << "rank " << rank << ": ";
  switch (problem) {
  case ArgProblem::None:
    return {};
  case ArgProblem::NullPointer:
    s << "null input or output pointer with n = " << n;
    break;
  case ArgProblem::WrongDevice:
    s << "the scanner runs on another device than the communicator's (device " << device << ")";
    break;
  default:
    s << "argument problem code " << static_cast<std::uint32_t>(problem);
  }
  return s.str();
}

Descriptor make_descriptor(DataType type, ScanKind kind, OpRef op, const void* init, std::size_t n,
                           ArgProblem problem, int device) {
  Descriptor d;
  d.magic = kDescriptorMagic;
  d.type = static_cast<std::uint32_t>(type);
  d.op = op.custom ? kCustomOp : static_cast<std::uint32_t>(op.op);
  d.custom_hash = op.custom ? hash_custom(*op.custom) : 0;
  d.kind = static_cast<std::uint32_t>(kind);
  if (kind == ScanKind::Exclusive && init) std::memcpy(&d.init_bits, init, size_of(type));
  d.problem = static_cast<std::uint32_t>(problem);
  d.device = static_cast<std::uint32_t>(device);
  d.n = n;
  return d;
}

std::string compare_descriptors(const std::vector<Descriptor>& all) {
  std::vector<std::string> parts;
  const auto add = [&](std::string s) {
    if (!s.empty()) parts.push_back(std::move(s));
  };
  add(field_diff(all, "protocol", [](const Descriptor& d) {
    return d.magic == kDescriptorMagic ? std::string("scantune distributed scan")
                                       : std::string("another collective or version");
  }));
  add(field_diff(all, "element type", [](const Descriptor& d) { return type_name(d.type); }));
  add(field_diff(all, "operator", op_name));
  add(field_diff(all, "kind", [](const Descriptor& d) { return kind_name(d.kind); }));
  if (parts.empty() && all.size() > 0 &&
      all[0].kind == static_cast<std::uint32_t>(ScanKind::Exclusive))
    add(field_diff(all, "exclusive init", init_name));
  for (std::size_t r = 0; r < all.size(); ++r)
    add(describe_problem(static_cast<ArgProblem>(all[r].problem), r, all[r].n,
                         static_cast<int>(all[r].device)));
  if (parts.empty()) return {};
  std::string msg = "scantune::nccl: the ranks' scan arguments disagree or are invalid: ";
  for (std::size_t i = 0; i < parts.size(); ++i)
    msg += (i ? "; " : "") + parts[i];
  return msg;
}

} // namespace scantune::nccl::detail

#include "tuner/search/problem.hpp"

#include <fmt/format.h>

#include "dispatch.hpp"

namespace scantune::tuner {

std::string converting_problem(const ScanTypes& types) {
  detail::ProblemName name;
  name.type = types.acc;
  name.converts = types;
  return name.problem_text();
}

Problem Problem::of(const ScanTypes& types, const detail::OpSpec& op, ScanKind kind) {
  Problem p{types.acc, op, kind};
  if (!types.uniform()) p.converts = types;
  return p;
}

std::size_t Problem::struct_bytes() const {
  return op.is_custom && op.custom.is_struct() ? static_cast<std::size_t>(op.custom.value_bytes)
                                               : 0;
}

std::size_t Problem::in_bytes() const {
  return struct_bytes() ? struct_bytes() : size_of(types().in);
}

std::size_t Problem::out_bytes() const {
  return struct_bytes() ? struct_bytes() : size_of(types().out);
}

ScanTypes Problem::size_types() const {
  if (!struct_bytes()) return types();
  const DataType t = struct_bytes() == 4 ? DataType::UInt32 : DataType::UInt64;
  return ScanTypes{t, t, t};
}

std::uint64_t Problem::extra_struct_bytes() const {
  return struct_bytes() ? 3 * (struct_bytes() - size_of(size_types().acc)) : 0;
}

std::string Problem::op_name() const {
  return op.is_custom ? op.custom.name : std::string(to_string(op.op));
}

std::string Problem::op_hash() const {
  return op.is_custom ? detail::custom_op_hash(op.custom) : std::string();
}

std::string Problem::label() const {
  const std::string type =
      struct_bytes() ? detail::struct_type_text(op.custom.value_bytes) : to_string(types());
  const std::string flat = fmt::format("{} {} {}", type, op_name(), to_string(kind));
  return segments.flat() ? flat : fmt::format("{} {}", flat, segments.spec());
}

std::string Problem::problem() const {
  if (struct_bytes()) return "@" + detail::struct_type_text(op.custom.value_bytes);
  return converts ? converting_problem(*converts) : segments.problem();
}

double Problem::bytes(std::uint64_t n) const {
  return static_cast<double>(segments.elements(n)) * // an axis scan's whole slices
         static_cast<double>(in_bytes() + out_bytes() + segments.extra_bytes_per_element());
}

detail::KernelSpec Problem::spec(const Policy& policy) const {
  return detail::KernelSpec{policy, type, op, kind, segments.heads(), converts};
}

} // namespace scantune::tuner

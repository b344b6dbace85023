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

std::string Problem::op_name() const {
  return op.is_custom ? op.custom.name : std::string(to_string(op.op));
}

std::string Problem::op_hash() const {
  return op.is_custom ? detail::custom_op_hash(op.custom) : std::string();
}

std::string Problem::label() const {
  const std::string flat = fmt::format("{} {} {}", to_string(types()), op_name(), to_string(kind));
  return segments.flat() ? flat : fmt::format("{} {}", flat, segments.spec());
}

std::string Problem::problem() const {
  return converts ? converting_problem(*converts) : segments.problem();
}

double Problem::bytes(std::uint64_t n) const {
  const ScanTypes t = types();
  return static_cast<double>(n) *
         static_cast<double>(size_of(t.in) + size_of(t.out) + segments.extra_bytes_per_element());
}

detail::KernelSpec Problem::spec(const Policy& policy) const {
  return detail::KernelSpec{policy, type, op, kind, segments.heads(), converts};
}

} // namespace scantune::tuner

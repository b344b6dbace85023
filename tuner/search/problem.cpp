#include "tuner/search/problem.hpp"

#include <fmt/format.h>

namespace scantune::tuner {

std::string Problem::op_name() const {
  return op.is_custom ? op.custom.name : std::string(to_string(op.op));
}

std::string Problem::op_hash() const {
  return op.is_custom ? detail::custom_op_hash(op.custom) : std::string();
}

std::string Problem::label() const {
  const std::string flat = fmt::format("{} {} {}", to_string(type), op_name(), to_string(kind));
  return segments.flat() ? flat : fmt::format("{} {}", flat, segments.spec());
}

double Problem::bytes(std::uint64_t n) const {
  return static_cast<double>(n) *
         static_cast<double>(2 * size_of(type) + segments.extra_bytes_per_element());
}

detail::KernelSpec Problem::spec(const Policy& policy) const {
  return detail::KernelSpec{policy, type, op, kind, segments.heads()};
}

} // namespace scantune::tuner

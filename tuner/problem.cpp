#include "tuner/problem.hpp"

#include <fmt/format.h>

#include "cache/hash.hpp"

namespace scantune::tuner {

std::string Problem::op_name() const {
  return op.is_custom ? op.custom.name : std::string(to_string(op.op));
}

std::string Problem::op_hash() const {
  // The same hash OpSpec::id() carries, so DB rows and kernel ids agree.
  if (!op.is_custom) return {};
  return sha256_hex(op.custom.body + '\0' + op.custom.identity).substr(0, 16);
}

std::string Problem::label() const {
  return fmt::format("{} {} {}", to_string(type), op_name(), to_string(kind));
}

detail::KernelSpec Problem::spec(const Policy& policy) const {
  return detail::KernelSpec{policy, type, op, kind};
}

} // namespace scantune::tuner

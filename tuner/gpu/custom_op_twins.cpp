#include "tuner/gpu/custom_op_twins.hpp"

namespace scantune::tuner {

std::optional<CustomOp> custom_op_twin_named(std::string_view name) {
  for (const auto& t : kCustomOpTwins)
    if (name == t.name) return CustomOp{t.name, t.body, t.identity};
  return std::nullopt;
}

std::optional<Twin> custom_op_twin(const CustomOp& op, DataType type) {
  const bool floating = type == DataType::Float32 || type == DataType::Float64;
  const bool unsigned_int = type == DataType::UInt32 || type == DataType::UInt64;
  for (const auto& t : kCustomOpTwins)
    if (op.body == t.body && op.identity == t.identity && (t.floating ? floating : unsigned_int))
      return t.twin;
  return std::nullopt;
}

} // namespace scantune::tuner

#include "axis_columns.hpp"

#include <charconv>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include <fmt/format.h>

#include "codegen.hpp"

namespace scantune::detail {

const CustomOp* columns_struct_op(DataType type, Op op, std::size_t inner) {
  // Axis scans take the six 4- and 8-byte types only (narrow ones are storage types).
  const std::size_t bytes = inner * size_of(type);
  if (size_of(type) < 4 || inner < 2 || bytes > static_cast<std::size_t>(kMaxStructBytes))
    return nullptr;
  static std::mutex mutex;
  static std::map<std::tuple<DataType, Op, std::size_t>, std::unique_ptr<const CustomOp>> ops;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& slot = ops[{type, op, inner}];
  if (!slot) {
    const std::string name = fmt::format("columns_{}x{}_{}", to_string(type), inner, to_string(op));
    const std::string functor = builtin_op_functor(op, type);
    std::string identities;
    for (std::size_t i = 0; i < inner; ++i)
      identities += fmt::format("{}{}::identity()", i ? ", " : "", functor);
    slot = std::make_unique<const CustomOp>(
        CustomOp{name,
                 fmt::format("{0} r; for (int i = 0; i < {1}; ++i) r.v[i] = {2}()(a.v[i], b.v[i]); "
                             "return r;",
                             name + "_t", inner, functor),
                 fmt::format("{}{{{{{}}}}}", name + "_t", identities),
                 fmt::format("struct {}_t {{ {} v[{}]; }};", name, device_type_name(type), inner),
                 name + "_t", static_cast<int>(bytes)});
  }
  return slot.get();
}

const CustomOp* columns_struct_op_named(std::string_view name) {
  constexpr std::string_view prefix = "columns_";
  if (name.substr(0, prefix.size()) != prefix) return nullptr;
  name.remove_prefix(prefix.size());
  // No type's name holds an 'x', no operator's an underscore before its own.
  const auto x = name.find('x');
  const auto under = name.find('_', x);
  if (x == std::string_view::npos || under == std::string_view::npos) return nullptr;
  const std::string_view digits = name.substr(x + 1, under - x - 1);
  std::size_t inner = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), inner);
  if (ec != std::errc{} || end != digits.data() + digits.size()) return nullptr;
  try {
    return columns_struct_op(parse_data_type(name.substr(0, x)), parse_op(name.substr(under + 1)),
                             inner);
  } catch (const Error&) {
    return nullptr;
  }
}

} // namespace scantune::detail

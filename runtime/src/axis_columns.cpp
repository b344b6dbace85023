#include "axis_columns.hpp"

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

} // namespace scantune::detail

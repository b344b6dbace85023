// Sample custom operators that also exist as compiled functors, so the CUB baseline
// can run the very operator scantune compiles with NVRTC (issue 7's custom-operator
// target). Each body is one macro: stringified, it is the CustomOp body given to
// scantune; expanded, it is the body of the nvcc-compiled functor
// (cub_baseline_custom.cu). `--custom-op NAME` on the CLI names one.
#pragma once

#include <optional>
#include <string_view>

#include "policy.hpp"
#include "scantune/scantune.hpp"

#define SCANTUNE_TWIN_STR2(...) #__VA_ARGS__
#define SCANTUNE_TWIN_STR(...) SCANTUNE_TWIN_STR2(__VA_ARGS__)
// |a| > |b| ? a : b on float32/float64: a selection, exact in any order.
#define SCANTUNE_TWIN_ABSMAX_BODY return fabs(a) > fabs(b) ? a : b;
// (a + 1)(b + 1) - 1 modulo 2^bits on uint32/uint64: a product in disguise.
#define SCANTUNE_TWIN_SHIFTED_PRODUCT_BODY return a * b + a + b;

namespace scantune::tuner {

enum class Twin { AbsMax, ShiftedProduct };

struct CustomOpTwin {
  Twin twin;
  const char* name;
  const char* body;
  const char* identity;
  bool floating; ///< float32/float64 (true) or uint32/uint64 (false)
};

inline constexpr CustomOpTwin kCustomOpTwins[] = {
    {Twin::AbsMax, "absmax", SCANTUNE_TWIN_STR(SCANTUNE_TWIN_ABSMAX_BODY), "0", true},
    {Twin::ShiftedProduct, "shifted_product", SCANTUNE_TWIN_STR(SCANTUNE_TWIN_SHIFTED_PRODUCT_BODY),
     "0", false},
};

/// The sample named `name`, as a CustomOp, if there is one.
std::optional<CustomOp> custom_op_twin_named(std::string_view name);
/// The compiled twin of `op` on `type`: same body and identity, and a type the
/// twin is built for.
std::optional<Twin> custom_op_twin(const CustomOp& op, DataType type);

} // namespace scantune::tuner

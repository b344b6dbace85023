// Struct-valued custom operators the tests and benchmarks share: the library's two
// (linear recurrence, argmax), 12- and 16-byte ones, and their host references.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "scantune/types.hpp"

namespace scantune::test {

/// A 12-byte struct: three running sums of ints (wrapping), identity (0, 0, 0).
struct Int3 {
  std::int32_t x, y, z;
};
inline const CustomOp& int3_sum_op() {
  static const CustomOp op{
      "int3_sum",
      "return int3_t{int(unsigned(a.x) + unsigned(b.x)), "
      "int(unsigned(a.y) + unsigned(b.y)), int(unsigned(a.z) + unsigned(b.z))};",
      "int3_t{0, 0, 0}",
      "struct int3_t { int x, y, z; };",
      "int3_t",
      12};
  return op;
}

/// A 16-byte struct: the linear recurrence on double pairs.
struct DoublePair {
  double a, b;
};
inline const CustomOp& linear_recurrence_f64_op() {
  static const CustomOp op{"linear_recurrence_f64",
                           "return linrec64_t{a.a * b.a, fma(b.a, a.b, b.b)};",
                           "linrec64_t{1.0, 0.0}",
                           "struct linrec64_t { double a, b; };",
                           "linrec64_t",
                           16};
  return op;
}

/// A policy of every algorithm that takes structs, with the tile I/Os, block scans,
/// the tile loop, cache hints and the reproducible look-back among them (for 8 bytes).
inline std::vector<const char*> struct_policy_keys() {
  return {"sequential",
          "single_block.tpb256.ipt4.vec2.warp_scans",
          "reduce_then_scan.tpb256.ipt8.vec2.blelloch",
          "chained.tpb128.ipt8.vec1.hillis_steele",
          "lookback_thread.tpb128.ipt8.vec2.warp_scans.direct",
          "lookback_warp.tpb256.ipt12.vec2.warp_scans.wxpose",
          "lookback_warp.tpb256.ipt12.vec2.warp_scans.repro",
          "lookback_warp.tpb128.ipt16.vec2.warp_scans.cs.loop"};
}

/// h[i] = a[i] * h[i-1] + b[i] in double: the reference for linear_recurrence_op.
/// Inclusive: out[i] = h[i]; exclusive: out[i] = h[i-1] (out[0] = 0, the identity's b).
inline std::vector<double> linear_recurrence_reference(const std::vector<LinearRecurrence>& in,
                                                       bool exclusive) {
  std::vector<double> h(in.size());
  double acc = 0.0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (exclusive) h[i] = acc;
    acc = static_cast<double>(in[i].a) * acc + static_cast<double>(in[i].b);
    if (!exclusive) h[i] = acc;
  }
  return h;
}

/// The first maximum so far (inclusive) or before (exclusive; the identity first).
inline std::vector<ValueIndex> argmax_reference(const std::vector<ValueIndex>& in, bool exclusive) {
  std::vector<ValueIndex> out(in.size());
  ValueIndex best{-__builtin_inff(), INT32_MAX};
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (exclusive) out[i] = best;
    const ValueIndex& x = in[i];
    if (x.value > best.value || (x.value == best.value && x.index < best.index)) best = x;
    if (!exclusive) out[i] = best;
  }
  return out;
}

} // namespace scantune::test

// Struct-valued custom operators on the GPU: the linear recurrence (float pairs)
// against a float64 recurrence, argmax exactly (ties to the first index), 12- and
// 16-byte structs, inclusive and exclusive, in place, at the sizes where tiles and
// warps begin and end, and on every algorithm that takes structs.
//
// Tolerance of the linear recurrence: with a in [0.5, 1) every combine contracts
// older terms, so float32's rounding does not pile up along the n elements; each
// output is the fold of at most log2(n) + (tiles in a look-back chain) roundings of
// terms of magnitude <= |h|max = 1 / (1 - a max) <= 64. 2^-16 x (|h| + 1) bounds
// that with room (a relative 1.5e-5; measured errors are far below).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/gpu.hpp"
#include "common/struct_ops.hpp"
#include "scantune/scantune.hpp"

namespace scantune::test {
namespace {

std::vector<std::size_t> edge_sizes() {
  return {0, 1, 31, 32, 33, 1009, 3071, 3072, 3073, 65521, 196613, (std::size_t{1} << 24) + 3};
}

std::vector<LinearRecurrence> recurrence_input(std::size_t n) {
  std::vector<LinearRecurrence> in(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t h = static_cast<std::uint32_t>(i * 2654435761u);
    in[i] = {0.5f + 0.484375f * float(h >> 8 & 0xffff) / 65536.0f, // a in [0.5, 0.984375)
             float(h >> 12 & 0xffff) / 32768.0f - 1.0f};           // b in [-1, 1)
  }
  return in;
}

// Scans `in` (in place when asked) with the recurrence and compares every h.
void check_recurrence(Scanner& s, const std::vector<LinearRecurrence>& in, ScanKind kind,
                      bool in_place, std::string_view policy = {}) {
  const std::size_t n = in.size();
  DeviceBuffer<LinearRecurrence> d_in(n), d_out(n);
  d_in.upload(in);
  d_out.poison();
  LinearRecurrence* out = in_place ? d_in.ptr : d_out.ptr;
  if (policy.empty())
    s.scan_struct(d_in.ptr, out, n, linear_recurrence_op(), kind);
  else
    s.scan_struct(d_in.ptr, out, n, linear_recurrence_op(), kind, nullptr, policy);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  const auto got = (in_place ? d_in : d_out).download(n);
  const auto ref = linear_recurrence_reference(in, kind == ScanKind::Exclusive);
  for (std::size_t i = 0; i < n; ++i) {
    const double tol = 0x1p-16 * (std::fabs(ref[i]) + 1);
    ASSERT_LE(std::fabs(double(got[i].b) - ref[i]), tol)
        << "h[" << i << "] of " << n << " " << to_string(kind) << (in_place ? " in place" : "")
        << " " << policy;
  }
  if (kind == ScanKind::Exclusive && n) {
    EXPECT_EQ(got[0].a, 1.0f);
    EXPECT_EQ(got[0].b, 0.0f);
  }
}

std::vector<ValueIndex> argmax_input(std::size_t n) {
  std::vector<ValueIndex> in(n);
  for (std::size_t i = 0; i < n; ++i) // few distinct values, so ties are everywhere
    in[i] = {float((i * 2654435761u) >> 7 & 1023) - 512.0f, static_cast<std::int32_t>(i)};
  return in;
}

void check_argmax(Scanner& s, std::size_t n, ScanKind kind, bool in_place) {
  const auto in = argmax_input(n);
  DeviceBuffer<ValueIndex> d_in(n), d_out(n);
  d_in.upload(in);
  d_out.poison();
  ValueIndex* out = in_place ? d_in.ptr : d_out.ptr;
  s.scan_struct(d_in.ptr, out, n, argmax_op(), kind);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  const auto got = (in_place ? d_in : d_out).download(n);
  const auto ref = argmax_reference(in, kind == ScanKind::Exclusive);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_TRUE(got[i].value == ref[i].value && got[i].index == ref[i].index)
        << i << " of " << n << " " << to_string(kind) << ": (" << got[i].value << ", "
        << got[i].index << ") vs (" << ref[i].value << ", " << ref[i].index << ")";
}

class GpuStruct : public GpuTest {};

TEST_F(GpuStruct, LinearRecurrenceAgainstFloat64) {
  Scanner s;
  for (std::size_t n : edge_sizes())
    for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
      check_recurrence(s, recurrence_input(n), k, false);
}

TEST_F(GpuStruct, LinearRecurrenceInPlace) {
  Scanner s;
  for (std::size_t n : {std::size_t{33}, std::size_t{65521}, (std::size_t{1} << 22) + 1})
    for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
      check_recurrence(s, recurrence_input(n), k, true);
}

TEST_F(GpuStruct, ArgmaxExactFirstIndexOnTies) {
  Scanner s;
  for (std::size_t n : edge_sizes())
    for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
      check_argmax(s, n, k, false);
  check_argmax(s, 196613, ScanKind::Inclusive, true);
  check_argmax(s, 196613, ScanKind::Exclusive, true);
}

// Pointers one struct past a 16-byte boundary: the tiling shifts to keep vectors aligned.
TEST_F(GpuStruct, MisalignedByOneStruct) {
  Scanner s;
  const std::size_t n = 100003;
  const auto in = recurrence_input(n + 1);
  DeviceBuffer<LinearRecurrence> d_in(n + 1), d_out(n + 1);
  d_in.upload(in);
  s.scan_struct(d_in.ptr + 1, d_out.ptr + 1, n, linear_recurrence_op(), ScanKind::Inclusive);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  const auto got = d_out.download(n, 1);
  const auto ref = linear_recurrence_reference({in.begin() + 1, in.end()}, false);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_LE(std::fabs(double(got[i].b) - ref[i]), 0x1p-16 * (std::fabs(ref[i]) + 1)) << i;
}

TEST_F(GpuStruct, EveryAlgorithmThatTakesStructs) {
  Scanner s;
  const auto in = recurrence_input(100003);
  for (const char* key : struct_policy_keys())
    for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
      check_recurrence(s, in, k, false, key);
}

TEST_F(GpuStruct, TwelveAndSixteenByteStructs) {
  Scanner s;
  for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{2049}, std::size_t{1000003}}) {
    std::vector<Int3> in(n);
    for (std::size_t i = 0; i < n; ++i)
      in[i] = {int(i % 7) - 3, int(i % 11), int(i * 2654435761u)};
    DeviceBuffer<Int3> d_in(n), d_out(n);
    d_in.upload(in);
    s.scan_struct(d_in.ptr, d_out.ptr, n, int3_sum_op(), ScanKind::Exclusive);
    SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
    const auto got = d_out.download(n);
    std::uint32_t x = 0, y = 0, z = 0;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(std::uint32_t(got[i].x) == x && std::uint32_t(got[i].y) == y &&
                  std::uint32_t(got[i].z) == z)
          << i << " of " << n;
      x += std::uint32_t(in[i].x), y += std::uint32_t(in[i].y), z += std::uint32_t(in[i].z);
    }

    std::vector<DoublePair> pairs(n);
    for (std::size_t i = 0; i < n; ++i)
      pairs[i] = {0.5 + double(i % 97) / 200.0, double(i % 13) - 6.0};
    DeviceBuffer<DoublePair> d_pairs(n);
    d_pairs.upload(pairs);
    s.scan_struct(d_pairs.ptr, d_pairs.ptr, n, linear_recurrence_f64_op(), ScanKind::Inclusive);
    SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
    const auto h = d_pairs.download(n);
    double ref = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      ref = pairs[i].a * ref + pairs[i].b;
      ASSERT_LE(std::fabs(h[i].b - ref), 1e-12 * (std::fabs(ref) + 1)) << i << " of " << n;
    }
  }
}

TEST_F(GpuStruct, BadStructSourceIsACompileErrorOnTheDevicePath) {
  Scanner s;
  CustomOp broken = linear_recurrence_op();
  broken.value_struct = "struct linear_recurrence_t { float a, b }";
  DeviceBuffer<LinearRecurrence> d(4);
  try {
    s.scan_struct(d.ptr, d.ptr, 4, broken, ScanKind::Inclusive);
    ADD_FAILURE() << "expected a compile error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Compile);
    EXPECT_NE(std::string(e.what()).find("struct of custom operator linear_recurrence"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(GpuStruct, PlanIsTheStructDefaultUntuned) {
  Scanner s(ScannerOptions{-1, "off", {}});
  const Plan p = s.plan_struct(linear_recurrence_op(), ScanKind::Inclusive, 1u << 20);
  EXPECT_EQ(p.match, Match::BuiltIn);
  EXPECT_EQ(p.policy, "lookback_warp.tpb256.ipt12.vec2.warp_scans");
  s.prepare_struct(linear_recurrence_op(), ScanKind::Inclusive, 1u << 20);
}

} // namespace
} // namespace scantune::test

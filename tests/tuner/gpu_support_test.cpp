// The tuner's device helpers (tuner/gpu_support.hpp): input fill against the host
// generator, on-device comparison, and the CUB baselines against the host reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "builtin_table.hpp"
#include "common/gpu.hpp"
#include "tuner/gpu/gpu_support.hpp"
#include "tuner/gpu/reference.hpp"
#include "tuner/gpu/type_dispatch.hpp"

namespace scantune::tuner {
namespace {

using test::DeviceBuffer;
using test::GpuTest;
using test::has_gpu;

const DataType kTypes[] = {DataType::Int32,  DataType::UInt32,  DataType::Int64,
                           DataType::UInt64, DataType::Float32, DataType::Float64};
const Op kOps[] = {Op::Sum, Op::Product, Op::Min, Op::Max, Op::BitAnd, Op::BitOr, Op::BitXor};
const ScanKind kKinds[] = {ScanKind::Inclusive, ScanKind::Exclusive};

// The index of the first differing element of two byte images, or npos.
std::size_t first_difference(const std::vector<unsigned char>& a,
                             const std::vector<unsigned char>& b, std::size_t elem) {
  for (std::size_t i = 0; i < a.size(); i += elem)
    if (std::memcmp(a.data() + i, b.data() + i, elem) != 0) return i / elem;
  return std::string::npos;
}

// Without a device, every helper reports the failing CUDA call as scantune::Error.
TEST(GpuSupportHost, ThrowsErrorWithoutDevice) {
  if (has_gpu()) GTEST_SKIP() << "needs a machine without a CUDA device";
  try {
    gpu::fill_input(DataType::Int32, ValueSet::Walk, 1, 0, 16, nullptr, nullptr);
    FAIL() << "fill_input did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fill_input"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gpu::compare(DataType::Float32, nullptr, nullptr, 16, 0, nullptr), Error);
  EXPECT_THROW(gpu::cub_temp_bytes(DataType::Int64, Op::Sum, ScanKind::Inclusive, 1000), Error);
}

TEST(GpuSupportHost, CubSupportsEveryValidBuiltinPair) {
  for (DataType t : kTypes)
    for (Op op : kOps) {
      const bool floating = t == DataType::Float32 || t == DataType::Float64;
      const bool bitwise = op == Op::BitAnd || op == Op::BitOr || op == Op::BitXor;
      EXPECT_EQ(gpu::cub_supports(t, op), !(floating && bitwise))
          << to_string(t) << " " << to_string(op);
    }
  // Refused before any CUDA call, so this holds without a device too.
  EXPECT_THROW(gpu::cub_temp_bytes(DataType::Float32, Op::BitAnd, ScanKind::Inclusive, 10), Error);
  EXPECT_THROW(gpu::cub_scan(DataType::Float64, Op::BitXor, ScanKind::Exclusive, nullptr, nullptr,
                             10, nullptr, nullptr, 0, nullptr),
               Error);
}

using GpuSupportFill = GpuTest;

TEST_F(GpuSupportFill, MatchesHostGenerator) {
  constexpr std::size_t n = 100003;
  for (DataType type : kTypes)
    for (ValueSet set : {ValueSet::Walk, ValueSet::Signs, ValueSet::Wide})
      for (std::uint64_t first : {std::uint64_t{0}, std::uint64_t{12345678901ull}})
        with_type(type, [&](auto tag) {
          using T = decltype(tag);
          DeviceBuffer<T> d(n);
          d.poison();
          gpu::fill_input(type, set, 77, first, n, d.ptr, nullptr);
          SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
          const auto got = d.download(n);
          for (std::size_t k = 0; k < n; ++k) {
            const T want = input_value<T>(set, 77, first + k);
            ASSERT_EQ(std::memcmp(&got[k], &want, sizeof(T)), 0)
                << to_string(type) << " set " << static_cast<int>(set) << " first " << first
                << " k=" << k;
          }
        });
}

TEST_F(GpuSupportFill, ZeroCountWritesNothing) {
  DeviceBuffer<std::uint32_t> d(4);
  d.poison();
  gpu::fill_input(DataType::UInt32, ValueSet::Walk, 1, 0, 0, d.ptr, nullptr);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  for (std::uint32_t v : d.download(4))
    EXPECT_EQ(v, 0xA5A5A5A5u);
}

using GpuSupportCompare = GpuTest;

// got and want filled identically, then `planted` elements of got changed.
template <class T>
gpu::CompareResult compare_planted(std::size_t n, const std::vector<std::size_t>& planted,
                                   double rel_tol) {
  const DataType type = data_type_of<T>();
  DeviceBuffer<T> got(n), want(n);
  gpu::fill_input(type, ValueSet::Wide, 5, 0, n, got.ptr, nullptr);
  gpu::fill_input(type, ValueSet::Wide, 5, 0, n, want.ptr, nullptr);
  for (std::size_t i : planted) {
    auto v = got.download(1, i);
    if constexpr (std::is_integral_v<T>)
      v[0] ^= T(1);
    else
      v[0] *= T(3); // never zero, so a different value
    got.upload(v, i);
  }
  return gpu::compare(type, got.ptr, want.ptr, n, rel_tol, nullptr);
}

TEST_F(GpuSupportCompare, CountsMismatchesAndFindsTheFirst) {
  for (DataType type : kTypes)
    with_type(type, [&](auto tag) {
      using T = decltype(tag);
      const std::size_t n = (std::size_t{1} << 22) + 5; // many elements per thread
      auto r = compare_planted<T>(n, {}, 0);
      EXPECT_EQ(r.mismatches, 0u) << to_string(type);
      r = compare_planted<T>(n, {5000, 77, n - 1, 3000000}, 0);
      EXPECT_EQ(r.mismatches, 4u) << to_string(type);
      EXPECT_EQ(r.first, 77u) << to_string(type);
      r = compare_planted<T>(n, {n - 1}, 0);
      EXPECT_EQ(r.mismatches, 1u) << to_string(type);
      EXPECT_EQ(r.first, n - 1) << to_string(type);
      r = compare_planted<T>(1000, {0, 999}, 0);
      EXPECT_EQ(r.mismatches, 2u) << to_string(type);
      EXPECT_EQ(r.first, 0u) << to_string(type);
    });
}

TEST_F(GpuSupportCompare, EveryElementDifferent) {
  constexpr std::size_t n = 1 << 20;
  DeviceBuffer<std::int64_t> a(n), b(n);
  gpu::fill_input(DataType::Int64, ValueSet::Walk, 1, 0, n, a.ptr, nullptr);
  gpu::fill_input(DataType::Int64, ValueSet::Walk, 2, 0, n, b.ptr, nullptr);
  const auto r = gpu::compare(DataType::Int64, a.ptr, b.ptr, n, 0, nullptr);
  EXPECT_EQ(r.mismatches, n);
  EXPECT_EQ(r.first, 0u);
}

TEST_F(GpuSupportCompare, EmptyRangeMatches) {
  const auto r = gpu::compare(DataType::Float32, nullptr, nullptr, 0, 0, nullptr);
  EXPECT_EQ(r.mismatches, 0u);
}

template <class T>
gpu::CompareResult compare_values(const std::vector<T>& got, const std::vector<T>& want,
                                  double rel_tol) {
  DeviceBuffer<T> g(got.size()), w(want.size());
  g.upload(got);
  w.upload(want);
  cudaStream_t stream = nullptr;
  SCANTUNE_CUDA_TRY(cudaStreamCreate(&stream));
  const auto r = gpu::compare(data_type_of<T>(), g.ptr, w.ptr, got.size(), rel_tol, stream);
  SCANTUNE_CUDA_TRY(cudaStreamDestroy(stream));
  return r;
}

template <class T>
void check_tolerance() {
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  // Relative above |want| = 1, absolute below it.
  const std::vector<T> want{T(1000), T(1000), T(0), T(0), T(0.5), inf, nan, T(-4)};
  const std::vector<T> got{T(1000.0005), T(1000.01), T(5e-7), T(2e-6), T(0.5), inf, nan, T(-4)};
  const char* name = std::is_same_v<T, float> ? "float32" : "float64";

  auto r = compare_values(got, want, 1e-6);
  EXPECT_EQ(r.mismatches, 3u) << name; // 1000.01, 2e-6, NaN
  EXPECT_EQ(r.first, 1u) << name;

  r = compare_values(got, want, 0); // exact: only identical values and infinities
  EXPECT_EQ(r.mismatches, 5u) << name;
  EXPECT_EQ(r.first, 0u) << name;

  r = compare_values(got, want, 0.5); // NaN never matches
  EXPECT_EQ(r.mismatches, 1u) << name;
  EXPECT_EQ(r.first, 6u) << name;

  // -0 and +0 are equal values.
  r = compare_values(std::vector<T>{T(-0.0)}, std::vector<T>{T(0)}, 0);
  EXPECT_EQ(r.mismatches, 0u) << name;
}

TEST_F(GpuSupportCompare, FloatingPointTolerance) {
  check_tolerance<float>();
  check_tolerance<double>();
}

TEST_F(GpuSupportCompare, IntegersIgnoreTolerance) {
  const auto r =
      compare_values(std::vector<std::int32_t>{1000, 7}, std::vector<std::int32_t>{1001, 7}, 0.5);
  EXPECT_EQ(r.mismatches, 1u);
  EXPECT_EQ(r.first, 0u);
}

// Scan by key takes 32- and 64-bit keys (the problem's own); other widths and
// operators other than sums are refused, by name, before any CUDA call.
TEST(GpuSupportHost, CubByKeyRefusesOtherKeyWidthsAndOperators) {
  try {
    gpu::cub_by_key_temp_bytes(DataType::Int32, Op::Sum, ScanKind::Inclusive, 100, 2);
    FAIL() << "2-byte keys were taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("2-byte keys"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(gpu::cub_by_key_supports(DataType::Float64, Op::Sum));
  EXPECT_FALSE(gpu::cub_by_key_supports(DataType::Int32, Op::Max));
  EXPECT_THROW(gpu::cub_by_key_temp_bytes(DataType::Int32, Op::Max, ScanKind::Inclusive, 100, 8),
               Error);
}

// The converting sums the built-in tables hold have a CUB baseline in the tuner, so
// their tunes and benchmarks print x CUB; other kinds and operators are refused.
TEST(GpuSupportHost, CubConvertingBaselinesCoverTheBuiltinTables) {
  int converting = 0;
  for (const detail::BuiltinEntry& e : detail::builtin_table()) {
    const std::string_view problem = e.problem;
    if (problem.empty() || problem.front() != '@' || problem.rfind("@struct", 0) == 0) continue;
    const ScanTypes types = parse_scan_types(problem.substr(1));
    EXPECT_TRUE(gpu::cub_convert_supports(types, e.op, e.kind)) << problem;
    ++converting;
  }
  EXPECT_GT(converting, 0);
  for (const char* torch_result : {"int8:int64", "uint8:int64", "int16:int64", "int32:int64"})
    EXPECT_TRUE(
        gpu::cub_convert_supports(parse_scan_types(torch_result), Op::Sum, ScanKind::Inclusive))
        << torch_result;
  const ScanTypes bytes = parse_scan_types("uint8:int32");
  EXPECT_FALSE(gpu::cub_convert_supports(bytes, Op::Sum, ScanKind::Exclusive));
  EXPECT_FALSE(gpu::cub_convert_supports(bytes, Op::Max, ScanKind::Inclusive));
  EXPECT_FALSE(
      gpu::cub_convert_supports(parse_scan_types("uint16:int64"), Op::Sum, ScanKind::Inclusive));
  // Types it has no instantiation for are refused before any CUDA call.
  EXPECT_THROW(gpu::cub_convert_temp_bytes(parse_scan_types("uint16:int64"), 10), Error);
}

using GpuSupportCub = GpuTest;

// Every converting sum CUB is compiled for, against the host reference bit for bit (the
// tuner's value sets keep float sums exact, so the order of additions does not matter).
TEST_F(GpuSupportCub, ConvertingSumsMatchTheReference) {
  const char* triples[] = {
      "int8",       "uint8",       "int16",           "uint16",           "float16",
      "bfloat16",   "uint8:int32", "float16:float32", "bfloat16:float32", "int32:int64",
      "int8:int64", "uint8:int64", "int16:int64"};
  for (const char* text : triples) {
    const ScanTypes types = parse_scan_types(text);
    ASSERT_TRUE(gpu::cub_convert_supports(types, Op::Sum, ScanKind::Inclusive)) << text;
    const ValueSet set = value_set_for(types.acc, Op::Sum, false);
    for (std::size_t n : {std::size_t{1}, std::size_t{1000}, (std::size_t{1} << 20) + 3}) {
      DeviceBuffer<unsigned char> in(n * size_of(types.in)), out(n * size_of(types.out)),
          want(n * size_of(types.out));
      out.poison();
      gpu::fill_input(types.in, set, 5 + n, 0, n, in.ptr, nullptr);
      const std::size_t bytes = gpu::cub_convert_temp_bytes(types, n);
      DeviceBuffer<unsigned char> temp(bytes);
      gpu::cub_convert_scan(types, in.ptr, out.ptr, n, temp.ptr, bytes, nullptr);
      want.upload(reference_scan(types, Op::Sum, ScanKind::Inclusive, set, 5 + n, n, 0));
      const auto r = gpu::compare(types.out, out.ptr, want.ptr, n, 0, nullptr);
      EXPECT_EQ(r.mismatches, 0u) << text << " n=" << n << ": first mismatch at " << r.first;
    }
  }
  gpu::cub_convert_scan(parse_scan_types("int32:int64"), nullptr, nullptr, 0, nullptr, 0, nullptr);
  DeviceBuffer<int> d(16);
  EXPECT_THROW(
      gpu::cub_convert_scan(parse_scan_types("int32:int64"), d.ptr, d.ptr, 4, nullptr, 0, nullptr),
      Error);
}

// One CUB baseline run against the host reference, on a non-default stream.
void check_cub(DataType type, Op op, ScanKind kind, std::size_t n, cudaStream_t stream) {
  const std::size_t elem = size_of(type);
  const ValueSet set = value_set_for(type, op, false);
  const std::uint64_t init = init_bits(type, op, false);
  const std::uint64_t seed = 1000 + n;
  DeviceBuffer<unsigned char> in(n * elem), out(n * elem);
  out.poison();
  gpu::fill_input(type, set, seed, 0, n, in.ptr, stream);
  const std::size_t bytes = gpu::cub_temp_bytes(type, op, kind, n);
  DeviceBuffer<unsigned char> temp(bytes);
  gpu::cub_scan(type, op, kind, in.ptr, out.ptr, n, &init, temp.ptr, bytes, stream);
  SCANTUNE_CUDA_TRY(cudaStreamSynchronize(stream));
  const auto want = reference_scan(type, op, kind, set, seed, n, init);
  const auto got = out.download(n * elem);
  const std::size_t i = first_difference(got, want, elem);
  EXPECT_EQ(i, std::string::npos) << "cub " << to_string(type) << " " << to_string(op) << " "
                                  << to_string(kind) << " n=" << n << ": first mismatch at " << i;
}

// A custom-operator twin (cub_baseline_custom.cu) against a host scan of the same
// operator, on random values (exact: absmax selects, shifted_product wraps).
template <class T, class F>
void check_twin(Twin twin, F host_op, ScanKind kind, std::size_t n) {
  std::mt19937_64 rng(n);
  std::vector<T> in(n), want(n);
  for (auto& x : in)
    x = std::is_floating_point_v<T> ? T(std::int64_t(rng() % 2000001) - 1000000) / T(8) : T(rng());
  T acc{}; // both samples' identity is 0
  for (std::size_t i = 0; i < n; ++i) {
    if (kind == ScanKind::Exclusive) want[i] = acc;
    acc = i == 0 && kind == ScanKind::Inclusive ? in[0] : host_op(acc, in[i]);
    if (kind == ScanKind::Inclusive) want[i] = acc;
  }
  const DataType type = std::is_same_v<T, float>    ? DataType::Float32
                        : std::is_same_v<T, double> ? DataType::Float64
                        : sizeof(T) == 4            ? DataType::UInt32
                                                    : DataType::UInt64;
  DeviceBuffer<T> d_in(n), d_out(n);
  d_in.upload(in);
  d_out.poison();
  const T init{};
  const std::size_t bytes = gpu::cub_temp_bytes(type, Op::Sum, kind, n, twin);
  DeviceBuffer<unsigned char> temp(bytes);
  gpu::cub_scan(type, Op::Sum, kind, d_in.ptr, d_out.ptr, n, &init, temp.ptr, bytes, nullptr, twin);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  EXPECT_EQ(d_out.download(n), want) << to_string(type) << " " << to_string(kind) << " n=" << n;
}

TEST_F(GpuSupportCub, CustomOperatorTwinsMatchAHostScan) {
  const auto absmax = [](auto a, auto b) { return std::fabs(a) > std::fabs(b) ? a : b; };
  const auto shifted_product = [](auto a, auto b) { return a * b + a + b; };
  for (ScanKind kind : kKinds)
    for (std::size_t n : {std::size_t{1}, std::size_t{1000}, (std::size_t{1} << 20) + 3}) {
      check_twin<float>(Twin::AbsMax, absmax, kind, n);
      check_twin<double>(Twin::AbsMax, absmax, kind, n);
      check_twin<std::uint32_t>(Twin::ShiftedProduct, shifted_product, kind, n);
      check_twin<std::uint64_t>(Twin::ShiftedProduct, shifted_product, kind, n);
    }
  // A twin on a type it is not built for is refused with CUDA's error, named.
  EXPECT_THROW(gpu::cub_temp_bytes(DataType::Int32, Op::Sum, ScanKind::Inclusive, 10, Twin::AbsMax),
               Error);
}

TEST_F(GpuSupportCub, MatchesReferenceForEveryTypeOpKind) {
  cudaStream_t stream = nullptr;
  SCANTUNE_CUDA_TRY(cudaStreamCreate(&stream));
  for (DataType type : kTypes)
    for (Op op : kOps) {
      if (!gpu::cub_supports(type, op)) continue;
      for (ScanKind kind : kKinds)
        for (std::size_t n : {std::size_t{1}, std::size_t{1000}, (std::size_t{1} << 20) + 3})
          check_cub(type, op, kind, n, stream);
    }
  SCANTUNE_CUDA_TRY(cudaStreamDestroy(stream));
}

TEST_F(GpuSupportCub, ZeroItemsIsANoOp) {
  gpu::cub_scan(DataType::Int32, Op::Sum, ScanKind::Exclusive, nullptr, nullptr, 0, nullptr,
                nullptr, 0, nullptr);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
}

TEST_F(GpuSupportCub, MissingTempOrInitThrows) {
  DeviceBuffer<int> d(16);
  const int init = 3;
  EXPECT_THROW(gpu::cub_scan(DataType::Int32, Op::Sum, ScanKind::Exclusive, d.ptr, d.ptr, 16, &init,
                             nullptr, 0, nullptr),
               Error);
  const std::size_t bytes = gpu::cub_temp_bytes(DataType::Int32, Op::Sum, ScanKind::Exclusive, 16);
  DeviceBuffer<unsigned char> temp(bytes);
  EXPECT_THROW(gpu::cub_scan(DataType::Int32, Op::Sum, ScanKind::Exclusive, d.ptr, d.ptr, 16,
                             nullptr, temp.ptr, bytes, nullptr),
               Error);
}

// More than INT_MAX items: the 64-bit num_items path (uint32 xor keeps memory at
// 3 x 8.6 GB on the device; the comparison runs on the device too).
TEST_F(GpuSupportCub, SixtyFourBitItemCount) {
  const std::size_t n = (std::size_t{1} << 31) + 5;
  std::size_t free_bytes = 0, total = 0;
  SCANTUNE_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total));
  if (free_bytes < 3 * n * 4 + (std::size_t{2} << 30)) GTEST_SKIP() << "needs ~28 GB free";
  const DataType type = DataType::UInt32;
  const std::uint64_t init = init_bits(type, Op::BitXor, false);
  DeviceBuffer<std::uint32_t> in(n), out(n), want(n);
  gpu::fill_input(type, ValueSet::Walk, 3, 0, n, in.ptr, nullptr);
  const std::size_t bytes = gpu::cub_temp_bytes(type, Op::BitXor, ScanKind::Exclusive, n);
  DeviceBuffer<unsigned char> temp(bytes);
  gpu::cub_scan(type, Op::BitXor, ScanKind::Exclusive, in.ptr, out.ptr, n, &init, temp.ptr, bytes,
                nullptr);
  const auto host =
      reference_scan(type, Op::BitXor, ScanKind::Exclusive, ValueSet::Walk, 3, n, init);
  SCANTUNE_CUDA_TRY(cudaMemcpy(want.ptr, host.data(), host.size(), cudaMemcpyHostToDevice));
  const auto r = gpu::compare(type, out.ptr, want.ptr, n, 0, nullptr);
  EXPECT_EQ(r.mismatches, 0u) << "first mismatch at " << r.first;
}

} // namespace
} // namespace scantune::tuner

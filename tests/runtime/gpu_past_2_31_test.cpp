// Inputs past 2^31 elements, where tile, item and output indices need 64 bits: a flat
// scan of both kinds, a scan by head flags, a selection and a byte partition by flags,
// each through the dispatcher's choice and (but the partition) in place (half the device
// memory beside the suite's other shards; a test skips where they leave too little).
// Inputs come from a counter hash, and each check streams once over the downloaded
// result.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/gpu.hpp"
#include "scantune/scantune.hpp"

namespace scantune::test {
namespace {

constexpr std::uint64_t kPast31 = (std::uint64_t{1} << 31) + 7;

// splitmix64's finalizer: reproducible inputs without a generator's serial pass.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Never zero, either sign: values in [-1000, -1] and [1, 1000].
std::int64_t signed_value(std::uint64_t i) {
  const std::uint64_t h = mix(i);
  const auto v = static_cast<std::int64_t>(h % 1000) + 1;
  return h >> 63 ? -v : v;
}

bool fits(std::uint64_t bytes) {
  std::size_t free_bytes = 0, total = 0;
  SCANTUNE_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total));
  return free_bytes >= bytes + (std::uint64_t{4} << 30);
}

class GpuPast31 : public GpuTest {};

// uint32 sums wrap modulo 2^32 (defined), so the host's running sum is exact.
TEST_F(GpuPast31, FlatScanOfBothKinds) {
  const std::uint64_t n = kPast31;
  if (!fits(n * 4)) GTEST_SKIP() << "needs ~13 GB of device memory";
  std::vector<std::uint32_t> x(n);
  for (std::uint64_t i = 0; i < n; ++i)
    x[i] = static_cast<std::uint32_t>(mix(i) % 1000) + 1;
  DeviceBuffer<std::uint32_t> data(n);
  Scanner s;
  for (ScanKind kind : {ScanKind::Inclusive, ScanKind::Exclusive}) {
    const std::uint32_t init = 5;
    data.upload(x);
    if (kind == ScanKind::Inclusive)
      s.inclusive_scan(data.ptr, data.ptr, n, Op::Sum);
    else
      s.exclusive_scan(data.ptr, data.ptr, n, Op::Sum, init);
    SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
    const std::vector<std::uint32_t> y = data.download(n);
    std::uint32_t acc = kind == ScanKind::Inclusive ? 0u : init;
    std::uint64_t bad = 0, first = n;
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint32_t before = acc;
      acc += x[i];
      const std::uint32_t want = kind == ScanKind::Inclusive ? acc : before;
      if (y[i] != want && !bad++) first = i;
    }
    EXPECT_EQ(bad, 0u) << to_string(kind) << ": the first wrong element is " << first;
  }
}

// int64 sums by head flags: segments of about 4096 elements, one of them across 2^31.
TEST_F(GpuPast31, SegmentedScanByHeadFlags) {
  const std::uint64_t n = kPast31, across = std::uint64_t{1} << 31;
  if (!fits(n * 8 + n)) GTEST_SKIP() << "needs ~24 GB of device memory";
  std::vector<std::int64_t> x(n);
  std::vector<std::uint8_t> heads(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    x[i] = signed_value(i);
    const bool near = i + 5000 > across && i < across + 5000;
    heads[i] = !near && mix(i ^ 0x5E6D) % 4096 == 0 ? 1 : 0;
  }
  heads[across - 5000] = 1;
  DeviceBuffer<std::int64_t> data(n);
  DeviceBuffer<std::uint8_t> d_heads(n);
  data.upload(x);
  d_heads.upload(heads);
  Scanner s;
  s.segmented_inclusive_scan(data.ptr, data.ptr, n, Segments::flags(d_heads.ptr), Op::Sum);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  const std::vector<std::int64_t> y = data.download(n);
  std::int64_t acc = 0;
  std::uint64_t bad = 0, first = n;
  for (std::uint64_t i = 0; i < n; ++i) {
    acc = heads[i] ? x[i] : acc + x[i];
    if (y[i] != acc && !bad++) first = i;
  }
  EXPECT_EQ(bad, 0u) << "the first wrong element is " << first;
}

// A compaction by flags of x on the device, its count checked: a selection in place (its
// selected items back), a partition into a buffer of its own (all n items back).
template <class T>
std::vector<T> compacted_by_flags(Compaction how, const std::vector<T>& x,
                                  const std::vector<std::uint8_t>& flags,
                                  std::uint64_t want_count) {
  const std::uint64_t n = x.size();
  const bool partition = how == Compaction::PartitionFlagged;
  DeviceBuffer<T> in(n), out(partition ? n : 1);
  DeviceBuffer<std::uint8_t> d_flags(n);
  DeviceBuffer<std::uint64_t> count(1);
  in.upload(x);
  d_flags.upload(flags);
  Scanner s;
  if (partition)
    s.partition_flagged(in.ptr, d_flags.ptr, out.ptr, n, count.ptr);
  else
    s.select_flagged(in.ptr, d_flags.ptr, in.ptr, n, count.ptr);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  EXPECT_EQ(count.download(1)[0], want_count);
  return partition ? out.download(n) : in.download(want_count);
}

// int32 items kept by half of the flags: the output index passes 2^30, the input 2^31.
TEST_F(GpuPast31, SelectionByFlags) {
  const std::uint64_t n = kPast31;
  if (!fits(n * 4 + n)) GTEST_SKIP() << "needs ~15 GB of device memory";
  std::vector<std::int32_t> x(n);
  std::vector<std::uint8_t> flags(n);
  std::uint64_t want_count = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    x[i] = static_cast<std::int32_t>(signed_value(i));
    flags[i] = static_cast<std::uint8_t>(mix(i ^ 0xF1A6) & 1);
    want_count += flags[i];
  }
  const std::vector<std::int32_t> y =
      compacted_by_flags(Compaction::SelectFlagged, x, flags, want_count);
  std::uint64_t k = 0, bad = 0, first = want_count;
  for (std::uint64_t i = 0; i < n; ++i)
    if (flags[i]) {
      if (y[k] != x[i] && !bad++) first = k;
      ++k;
    }
  EXPECT_EQ(bad, 0u) << "the first wrong output is " << first;
}

// int8 items partitioned by a quarter of the flags: the rejected items' output indices
// pass 2^31 in a type of one byte.
TEST_F(GpuPast31, NarrowPartitionByFlags) {
  const std::uint64_t n = kPast31;
  if (!fits(3 * n)) GTEST_SKIP() << "needs ~11 GB of device memory";
  std::vector<std::int8_t> x(n);
  std::vector<std::uint8_t> flags(n);
  std::uint64_t want_count = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t h = mix(i ^ 0x8B17);
    x[i] = static_cast<std::int8_t>(h);
    flags[i] = static_cast<std::uint8_t>((h >> 8 & 3) == 0);
    want_count += flags[i];
  }
  const std::vector<std::int8_t> y =
      compacted_by_flags(Compaction::PartitionFlagged, x, flags, want_count);
  std::uint64_t kept = 0, rejected = want_count, bad = 0, first = n;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t at = flags[i] ? kept++ : rejected++;
    if (y[at] != x[i] && !bad++) first = at;
  }
  EXPECT_EQ(bad, 0u) << "the first wrong output is " << first;
}

} // namespace
} // namespace scantune::test

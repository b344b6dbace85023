// The radix sort on the GPU against std::stable_sort on the host, bit for bit: every
// key type, both orders, keys only and pairs (values = original index, so stability is
// checked), sizes around warps and tiles, few distinct keys, float specials, bit ranges.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <type_traits>
#include <vector>

#include "common/gpu.hpp"
#include "scan_request.hpp"
#include "scantune/scantune.hpp"
#include "sort.hpp"
#include "workspace.hpp"

namespace scantune {
namespace {

using test::DeviceBuffer;

// The unsigned image the sort orders by (radix_key in templates/radix_sort.cuh),
// written independently: IEEE total order for floats, sign flip for signed integers.
template <class K>
auto ordered_bits(K k) {
  using U = std::conditional_t<sizeof(K) == 4, std::uint32_t, std::uint64_t>;
  constexpr U sign = U(1) << (8 * sizeof(K) - 1);
  U u;
  std::memcpy(&u, &k, sizeof u);
  if constexpr (std::is_floating_point_v<K>) return (u & sign) ? U(~u) : U(u | sign);
  if constexpr (std::is_signed_v<K>) return U(u ^ sign);
  return u;
}

// The key whose ordered_bits are `u`.
template <class K, class U>
K from_ordered_bits(U u) {
  constexpr U sign = U(1) << (8 * sizeof(K) - 1);
  if constexpr (std::is_floating_point_v<K>) u = (u & sign) ? U(u & ~sign) : U(~u);
  if constexpr (std::is_signed_v<K> && !std::is_floating_point_v<K>) u = U(u ^ sign);
  K k;
  std::memcpy(&k, &u, sizeof k);
  return k;
}

template <class K>
auto sort_bits(K k, unsigned begin, unsigned end) {
  auto u = ordered_bits(k);
  using U = decltype(u);
  const unsigned width = end - begin;
  const U mask = width >= 8 * sizeof(U) ? ~U(0) : U((U(1) << width) - 1);
  return U((u >> begin) & mask);
}

template <class K>
std::vector<K> random_keys(std::size_t n, std::uint64_t distinct, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<K> v(n);
  for (auto& x : v) {
    const std::uint64_t r = distinct ? rng() % distinct : rng();
    if constexpr (std::is_floating_point_v<K>)
      x = distinct ? K(double(r) - double(distinct / 2)) * K(0.5)
                   : K(std::ldexp(double(std::int64_t(r)) / 9.2e18, int(r % 40) - 20));
    else
      x = distinct ? K(r - distinct / 2) : K(r);
  }
  return v;
}

// Sorts on the GPU (with `policy` when given, else the dispatched one) and compares keys
// (and the permutation, as values) with the host's stable sort; Value is the index type
// carried (4 or 8 bytes). `misalign`: the input keys start that many keys past the
// allocation's (16-byte aligned) start. `indices` (with pairs): no values are read, the
// sort makes the keys' positions (sort_with_indices); `wide` (with a policy): 8-byte
// ones through every pass, as past 2^32 keys, not widened by the last.
template <class K, class Value = std::uint32_t>
void check_sort(const std::vector<K>& keys, SortOrder order, bool pairs, unsigned begin = 0,
                unsigned end = 8 * sizeof(K), const detail::SortPolicy* policy = nullptr,
                std::size_t misalign = 0, bool indices = false, bool wide = false) {
  const std::size_t n = keys.size();
  std::vector<Value> index(n);
  std::iota(index.begin(), index.end(), Value(0));
  std::vector<Value> expect_index = index;
  std::stable_sort(expect_index.begin(), expect_index.end(), [&](Value a, Value b) {
    const auto x = sort_bits(keys[a], begin, end), y = sort_bits(keys[b], begin, end);
    return order == SortOrder::Ascending ? x < y : y < x;
  });
  DeviceBuffer<K> allocation(n + misalign), out(n);
  DeviceBuffer<Value> vin(n), vout(n);
  std::vector<K> padded(misalign, K(7));
  padded.insert(padded.end(), keys.begin(), keys.end());
  allocation.upload(padded);
  K* const in_ptr = allocation.ptr + misalign;
  out.poison();
  Scanner& s = default_scanner();
  if (pairs) {
    vin.upload(index);
    vout.poison();
  }
  const Value* values_in = indices ? nullptr : vin.ptr;
  if (policy) {
    detail::SortRequest r{data_type_of<K>(),
                          in_ptr,
                          out.ptr,
                          pairs ? values_in : nullptr,
                          pairs ? vout.ptr : nullptr,
                          sizeof(Value),
                          n,
                          order,
                          begin,
                          end};
    r.wide_indices = wide;
    detail::ScannerAccess::sort(s, r, policy);
  } else if (pairs && indices) {
    s.sort_with_indices(in_ptr, out.ptr, vout.ptr, n, begin, end, order);
  } else if (pairs) {
    s.sort_pairs(in_ptr, out.ptr, vin.ptr, vout.ptr, n, begin, end, order);
  } else {
    s.sort_keys(in_ptr, out.ptr, n, begin, end, order);
  }
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  const std::vector<K> got = out.download(n);
  for (std::size_t i = 0; i < n; ++i) {
    // Bitwise: -0.0 and +0.0, NaN payloads.
    ASSERT_EQ(std::memcmp(&got[i], &keys[expect_index[i]], sizeof(K)), 0)
        << "key " << i << " of " << n << ": " << got[i] << " vs " << keys[expect_index[i]];
  }
  if (pairs) {
    EXPECT_EQ(vout.download(n), expect_index) << "n = " << n;
  }
  EXPECT_EQ(allocation.download(n + misalign), padded) << "the input changed"; // no NaNs
}

template <class K>
class GpuSortTyped : public test::GpuTest {};
using KeyTypes =
    ::testing::Types<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(GpuSortTyped, KeyTypes);

const std::size_t kSizes[] = {0,    1,    2,    31,   32,   33,   97,    1021,
                              3071, 3072, 3073, 4607, 4608, 4609, 65537, (1u << 20) + 3};

TYPED_TEST(GpuSortTyped, KeysBothOrdersEverySize) {
  using K = TypeParam;
  for (std::size_t n : kSizes)
    for (SortOrder order : {SortOrder::Ascending, SortOrder::Descending})
      check_sort(random_keys<K>(n, 0, n + 1), order, false);
}

TYPED_TEST(GpuSortTyped, PairsAreStableWithFewDistinctKeys) {
  using K = TypeParam;
  for (std::size_t n : {std::size_t{33}, std::size_t{4609}, std::size_t{100003}})
    for (std::uint64_t distinct : {2u, 7u, 300u})
      for (SortOrder order : {SortOrder::Ascending, SortOrder::Descending})
        check_sort(random_keys<K>(n, distinct, n * distinct), order, true);
}

TYPED_TEST(GpuSortTyped, PairsWithEightByteValues) {
  using K = TypeParam;
  check_sort<K, std::uint64_t>(random_keys<K>(70001, 5, 3), SortOrder::Ascending, true);
  check_sort<K, std::uint64_t>(random_keys<K>(70001, 0, 4), SortOrder::Descending, true);
}

// Indices made by the first pass (no values read): every size, both orders, few distinct
// keys (stability), 4- and 8-byte indices, the dispatched, a launch-a-pass and the
// single-launch policy.
TYPED_TEST(GpuSortTyped, IndicesAreStablePositions) {
  using K = TypeParam;
  const unsigned bits = 8 * sizeof(K);
  for (std::size_t n : kSizes)
    for (SortOrder order : {SortOrder::Ascending, SortOrder::Descending}) {
      const auto keys = random_keys<K>(n, n % 2 ? 5 : 0, n + 3);
      check_sort<K, std::int64_t>(keys, order, true, 0, bits, nullptr, 0, true);
      if (n % 2) check_sort<K, std::uint32_t>(keys, order, true, 0, bits, nullptr, 0, true);
    }
  const auto keys = random_keys<K>(70001, 40, 9);
  for (const int single : {0, 1}) {
    detail::SortPolicy p = detail::default_sort_policy(data_type_of<K>(), 8);
    p.single_launch = single;
    check_sort<K, std::int64_t>(keys, SortOrder::Ascending, true, 0, bits, &p, 0, true);
    check_sort<K, std::int64_t>(keys, SortOrder::Descending, true, 2, 13, &p, 1, true);
  }
}

// 8-byte indices carried as 4-byte positions and widened by the last pass, against the
// same indices carried 8 bytes wide (what more than 2^32 keys take): one pass (the
// first widens), two, every pass, some skipped, a launch a pass and one launch.
TYPED_TEST(GpuSortTyped, WidenedIndicesEveryPassCount) {
  using K = TypeParam;
  using U = decltype(ordered_bits(K{}));
  const unsigned bits = 8 * sizeof(K);
  detail::SortPolicy passes = detail::default_sort_policy(data_type_of<K>(), 4);
  passes.single_launch = 0;
  detail::SortPolicy single = passes;
  single.single_launch = 1;
  detail::SortPolicy grouped = detail::SortPolicy::parse("radix.tpb256.ipt8.rb8.sl1.lg1");
  // Passes 1 and 2 of one digit (skipped), and the last two (the widening pass is the
  // one before them).
  std::vector<K> skipping = random_keys<K>(70001, 0, 17), ending = skipping;
  const U top = U(0xffff) << (8 * sizeof(K) - 16);
  for (K& k : skipping)
    k = from_ordered_bits<K>(U((ordered_bits(k) & ~U(0xffff00)) | U(0x5a3c00)));
  for (K& k : ending)
    k = from_ordered_bits<K>(U((ordered_bits(k) & ~top) | (U(0xc05a) << (8 * sizeof(K) - 16))));
  for (const detail::SortPolicy* p : {&passes, &single, &grouped})
    for (const bool wide : {false, true}) {
      for (std::size_t n : {std::size_t{2}, std::size_t{4609}, std::size_t{(1u << 20) + 3}}) {
        const auto keys = random_keys<K>(n, n % 2 ? 0 : 9, n + 7);
        for (auto [b, e] : {std::pair{0u, bits}, std::pair{4u, 11u}, std::pair{2u, 13u}})
          check_sort<K, std::int64_t>(keys, SortOrder::Ascending, true, b, e, p, 0, true, wide);
      }
      check_sort<K, std::int64_t>(skipping, SortOrder::Descending, true, 0, bits, p, 0, true, wide);
      check_sort<K, std::int64_t>(ending, SortOrder::Ascending, true, 0, bits, p, 0, true, wide);
    }
}

TYPED_TEST(GpuSortTyped, LargeSizes) {
  using K = TypeParam;
  check_sort(random_keys<K>((1u << 20) + 3, 1000, 11), SortOrder::Ascending, true);
  check_sort(random_keys<K>((1u << 24) + 1, 0, 12), SortOrder::Ascending, true);
}

TYPED_TEST(GpuSortTyped, BitRanges) {
  using K = TypeParam;
  const unsigned bits = 8 * sizeof(K);
  const auto keys = random_keys<K>(50001, 0, 21);
  check_sort(keys, SortOrder::Ascending, true, 0, 1);
  check_sort(keys, SortOrder::Ascending, true, 3, 17);
  check_sort(keys, SortOrder::Descending, true, bits - 12, bits);
  check_sort(keys, SortOrder::Ascending, true, 8, bits - 5);
}

// Keys that do not start on a 16-byte boundary: the histogram reads whole vectors
// between single keys before the first boundary and after the last vector.
TYPED_TEST(GpuSortTyped, MisalignedKeys) {
  using K = TypeParam;
  const detail::SortPolicy passes = detail::SortPolicy::parse("radix.tpb256.ipt8.rb8");
  const detail::SortPolicy single = detail::SortPolicy::parse("radix.tpb256.ipt8.rb8.sl1");
  for (std::size_t misalign : {1, 2, 3})
    for (std::size_t n : {1, 2, 3, 5, 8, 17, 4099, 123457})
      for (const detail::SortPolicy* p : {&passes, &single})
        check_sort<K>(random_keys<K>(n, 0, n + 1), SortOrder::Ascending, false, 0, 8 * sizeof(K), p,
                      misalign);
}

// The single-launch kernel (SortPolicy::single_launch) on every shape the typed tests
// above give the dispatched policy: sizes, orders, stability, 8-byte values, bit ranges.
TYPED_TEST(GpuSortTyped, SingleLaunchEveryShape) {
  using K = TypeParam;
  for (std::size_t v : {4, 8}) {
    detail::SortPolicy p = detail::default_sort_policy(data_type_of<K>(), v);
    p.single_launch = 1;
    const unsigned bits = 8 * sizeof(K);
    for (std::size_t n : kSizes)
      for (SortOrder order : {SortOrder::Ascending, SortOrder::Descending}) {
        if (v == 4) check_sort<K>(random_keys<K>(n, 0, n + 1), order, false, 0, bits, &p);
        if (v == 4 && n % 2) check_sort<K>(random_keys<K>(n, 3, n), order, true, 0, bits, &p);
        if (v == 8 && n > 1000)
          check_sort<K, std::uint64_t>(random_keys<K>(n, 300, n), order, true, 0, bits, &p);
      }
    const auto keys = random_keys<K>(50001, 0, 21);
    check_sort<K>(keys, SortOrder::Ascending, true, 3, 17, &p);
    check_sort<K>(keys, SortOrder::Descending, true, bits - 12, bits, &p);
  }
}

// The single launch's grouped look-back (SortPolicy::look_back_groups): tile counts
// around a group of 8 (1, 7-9, 16-17 tiles of 2048 keys), tiles past the resident
// blocks (each block several tiles a pass), values, indices, both orders, a bit range.
TYPED_TEST(GpuSortTyped, SingleLaunchGroupedLookBack) {
  using K = TypeParam;
  detail::SortPolicy p = detail::SortPolicy::parse("radix.tpb256.ipt8.rb8.sl1.lg1");
  const unsigned bits = 8 * sizeof(K);
  for (std::size_t n :
       {std::size_t{2048}, std::size_t{7 * 2048 + 5}, std::size_t{8 * 2048},
        std::size_t{9 * 2048 - 1}, std::size_t{17 * 2048}, std::size_t{(1u << 22) + 7}})
    for (SortOrder order : {SortOrder::Ascending, SortOrder::Descending})
      check_sort<K>(random_keys<K>(n, n % 2 ? 0 : 40, n + 5), order, true, 0, bits, &p);
  const auto keys = random_keys<K>(70001, 40, 9);
  check_sort<K, std::int64_t>(keys, SortOrder::Ascending, true, 0, bits, &p, 0, true);
  check_sort<K>(keys, SortOrder::Descending, true, 3, 17, &p);
  p.early_counts = 1;
  check_sort<K, std::uint64_t>(keys, SortOrder::Ascending, true, 0, bits, &p);
}

// Passes whose keys all share one digit are skipped two in a row (radix_skipped_passes
// in radix_sort.cuh): keys whose ordered bits outside `live` are a fixed pattern (a
// positive float where they are floats), so that pairs of passes after the first are
// skipped, next to lone passes of one digit that rank as usual, up to every pass of
// one digit; the launch-a-pass, the single-launch and the grouped policies, both
// orders, values, indices, a bit range. Each single launch leaves its barrier counter
// where the next one, on the same stream, expects it: a miscount would hang or race
// the sorts after it.
TYPED_TEST(GpuSortTyped, PassesOfOneDigitSkippedInPairs) {
  using K = TypeParam;
  using U = decltype(ordered_bits(K{}));
  const unsigned bits = 8 * sizeof(K);
  const U base = U(0xC05A3CA5C3A55A3Cull);
  std::vector<U> lives = {0xff, 0xffff, 0xff00, 0xff00ff, 0};
  if constexpr (!std::is_floating_point_v<K>) {
    lives.push_back(U(0xff) << (bits - 8));
    lives.push_back(0xffffff);
    if (bits == 64) lives.push_back(0xffffffffu);
  }
  auto keys_of = [&](std::size_t n, U live, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<K> v(n);
    for (auto& x : v)
      x = from_ordered_bits<K>(U((base & ~live) | (U(rng()) & live)));
    return v;
  };
  const detail::SortPolicy passes = detail::default_sort_policy(data_type_of<K>(), 4);
  detail::SortPolicy single = passes;
  single.single_launch = 1;
  const detail::SortPolicy grouped = detail::SortPolicy::parse("radix.tpb256.ipt8.rb8.sl1.lg1");
  const detail::SortPolicy* policies[] = {&passes, &single, &grouped};
  for (const detail::SortPolicy* p : policies)
    for (U live : lives)
      for (std::size_t n : {std::size_t{2}, std::size_t{4609}, std::size_t{70001}}) {
        const auto keys = keys_of(n, live, n + live);
        check_sort<K>(keys, SortOrder::Ascending, false, 0, bits, p);
        check_sort<K>(keys, SortOrder::Descending, true, 0, bits, p);
        check_sort<K, std::int64_t>(keys, SortOrder::Ascending, true, 0, bits, p, 0, true);
        check_sort<K>(keys, SortOrder::Descending, true, 8, 24, p);
      }
  check_sort<K>(keys_of((1u << 20) + 3, 0xff00, 5), SortOrder::Ascending, true);
}

class GpuSort : public test::GpuTest {};

// Past 2^31 keys (64-bit tile and item counts): key i = (i * P + Q) mod n, a permutation
// of 0..n-1 since P is prime and does not divide n, so the sorted keys are 0..n-1. Keys
// only (pairs and stability are checked at the sizes above): 3 x 8.6 GB with the
// workspace's second copy, beside the other shards of the suite.
TEST_F(GpuSort, KeysPastTwoToThe31) {
  const std::uint64_t n = (std::uint64_t{1} << 31) + 5, P = 2654435761u, Q = 12345;
  std::size_t free_bytes = 0, total = 0;
  SCANTUNE_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total));
  if (free_bytes < 3 * n * 4 + (std::uint64_t{4} << 30)) GTEST_SKIP() << "needs ~30 GB free";
  std::vector<std::uint32_t> keys(n);
  for (std::uint64_t i = 0; i < n; ++i)
    keys[i] = std::uint32_t((i * P + Q) % n);
  DeviceBuffer<std::uint32_t> in(n), out(n);
  in.upload(keys);
  out.poison();
  default_scanner().sort_keys(in.ptr, out.ptr, n);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  keys = out.download(n);
  std::uint64_t bad = 0, first = n;
  for (std::uint64_t k = 0; k < n; ++k)
    if (keys[k] != k && !bad++) first = k;
  EXPECT_EQ(bad, 0u) << "first wrong position " << first;
}

TEST_F(GpuSort, FloatSpecials) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> base{-0.0f,
                          0.0f,
                          inf,
                          -inf,
                          nan,
                          1.0f,
                          -1.0f,
                          0.0f,
                          -0.0f,
                          3e-40f,
                          -3e-40f,
                          std::numeric_limits<float>::max(),
                          std::numeric_limits<float>::lowest()};
  std::vector<float> keys;
  std::mt19937 rng(5);
  for (int i = 0; i < 20000; ++i)
    keys.push_back(base[rng() % base.size()]);
  // NaN != NaN: the input check compares bits.
  for (SortOrder order : {SortOrder::Ascending, SortOrder::Descending}) {
    std::vector<std::uint32_t> index(keys.size());
    std::iota(index.begin(), index.end(), 0u);
    DeviceBuffer<float> in(keys.size()), out(keys.size());
    DeviceBuffer<std::uint32_t> vin(keys.size()), vout(keys.size());
    in.upload(keys);
    vin.upload(index);
    default_scanner().sort_pairs(in.ptr, out.ptr, vin.ptr, vout.ptr, keys.size(), order);
    const auto got = out.download(keys.size());
    const auto perm = vout.download(keys.size());
    std::stable_sort(index.begin(), index.end(), [&](std::uint32_t a, std::uint32_t b) {
      const auto x = ordered_bits(keys[a]), y = ordered_bits(keys[b]);
      return order == SortOrder::Ascending ? x < y : y < x;
    });
    ASSERT_EQ(perm, index);
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(ordered_bits(got[i]), ordered_bits(keys[index[i]])) << i;
    // -0.0 before +0.0 and NaN last in ascending order.
    if (order == SortOrder::Ascending) {
      EXPECT_TRUE(std::isnan(got.back()));
      const auto zero = std::find(got.begin(), got.end(), 0.0f);
      EXPECT_TRUE(std::signbit(*zero));
    }
  }
}

TEST_F(GpuSort, DoubleSpecialsAndCApiShape) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> keys;
  std::mt19937 rng(6);
  for (int i = 0; i < 9000; ++i) {
    const double pick[] = {-0.0, 0.0, inf, -inf, 2.5, -2.5, 1e-310, -1e-310};
    keys.push_back(pick[rng() % 8]);
  }
  check_sort(keys, SortOrder::Ascending, true);
  check_sort(keys, SortOrder::Descending, true);
}

// The sort's workspace (the partials buffer) leaves the reduction's counter alone:
// a reduction on the same stream after a sort is still right.
TEST_F(GpuSort, ReductionAfterSortOnTheSameStream) {
  const auto keys = random_keys<std::int32_t>(100000, 50, 9);
  check_sort(keys, SortOrder::Ascending, false);
  std::vector<long long> ones(12345, 1);
  DeviceBuffer<long long> in(ones.size()), total(1);
  in.upload(ones);
  default_scanner().reduce(in.ptr, total.ptr, ones.size(), Op::Sum);
  EXPECT_EQ(total.download(1)[0], 12345);
}

// 700 keys: two tiles of the 4-bit single launch, whose blocks turn its eight passes'
// counts into digit starts by turns.
TEST_F(GpuSort, ExplicitPoliciesAgree) {
  for (std::size_t n : {std::size_t{123457}, std::size_t{700}}) {
    const auto keys = random_keys<std::uint32_t>(n, 100, 10);
    std::vector<std::uint32_t> expect = keys;
    std::stable_sort(expect.begin(), expect.end());
    for (const char* key :
         {"radix.tpb128.ipt4.rb4", "radix.tpb64.ipt1.rb5", "radix.tpb1024.ipt2.rb6",
          "radix.tpb256.ipt16.rb8", "radix.tpb128.ipt4.rb4.ec1", "radix.tpb384.ipt16.rb8.mb3.ec1",
          "radix.tpb128.ipt4.rb4.sl1", "radix.tpb64.ipt1.rb5.sl1", "radix.tpb1024.ipt2.rb6.sl1",
          "radix.tpb384.ipt16.rb8.mb3.ec1.sl1"}) {
      DeviceBuffer<std::uint32_t> in(keys.size()), out(keys.size());
      in.upload(keys);
      out.poison();
      const detail::SortPolicy p = detail::SortPolicy::parse(key);
      detail::SortRequest r;
      r.key = DataType::UInt32;
      r.keys_in = in.ptr;
      r.keys_out = out.ptr;
      r.n = keys.size();
      r.end_bit = 32;
      detail::ScannerAccess::sort(default_scanner(), r, &p);
      EXPECT_EQ(out.download(keys.size()), expect) << key << " n " << n;
    }
  }
}

// A sort captured in a CUDA graph (its workspace from the stream-ordered allocator)
// replays right, one cooperative launch or one launch a pass.
TEST_F(GpuSort, CapturedInAGraphReplays) {
  const auto keys = random_keys<std::uint32_t>(300007, 0, 17);
  std::vector<std::uint32_t> expect = keys;
  std::stable_sort(expect.begin(), expect.end());
  cudaStream_t stream;
  SCANTUNE_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const char* key : {"radix.tpb256.ipt8.rb8.mb3.sl1", "radix.tpb384.ipt12.rb8.mb3"}) {
    DeviceBuffer<std::uint32_t> in(keys.size()), out(keys.size());
    in.upload(keys);
    out.poison();
    const detail::SortPolicy p = detail::SortPolicy::parse(key);
    detail::SortRequest r{DataType::UInt32,     in.ptr, out.ptr, nullptr, nullptr, 0, keys.size(),
                          SortOrder::Ascending, 0,      32,      stream};
    detail::ScannerAccess::sort(default_scanner(), r, &p); // compiles outside the capture
    SCANTUNE_CUDA_TRY(cudaStreamSynchronize(stream));
    out.poison();
    cudaGraph_t graph;
    SCANTUNE_CUDA_TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    detail::ScannerAccess::sort(default_scanner(), r, &p);
    SCANTUNE_CUDA_TRY(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec;
    SCANTUNE_CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 2; ++replay) {
      SCANTUNE_CUDA_TRY(cudaGraphLaunch(exec, stream));
      SCANTUNE_CUDA_TRY(cudaStreamSynchronize(stream));
      EXPECT_EQ(out.download(keys.size()), expect) << key << ", replay " << replay;
      out.poison();
    }
    SCANTUNE_CUDA_TRY(cudaGraphExecDestroy(exec));
    SCANTUNE_CUDA_TRY(cudaGraphDestroy(graph));
  }
  SCANTUNE_CUDA_TRY(cudaStreamDestroy(stream));
}

// Status words carry tags no earlier sort on the stream left (take_sort_tags): once the
// tags run out they start over on zeroed words, so the second sort below, whose tags are
// the first one's again, reads none of the first one's counts.
TEST_F(GpuSort, TagsStartOverOnZeroedStatusWords) {
  const std::size_t n = 200003;
  for (const char* key : {"radix.tpb256.ipt8.rb8.sl1", "radix.tpb256.ipt8.rb8"}) {
    const detail::SortPolicy p = detail::SortPolicy::parse(key);
    cudaStream_t stream;
    SCANTUNE_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    auto tag = [&](unsigned set) { // the stream's next tag, after setting it unless 0
      auto lease = detail::ScannerAccess::workspaces(default_scanner()).acquire(stream, 0, 0);
      if (set) lease.sort->tag = set;
      return lease.sort->tag;
    };
    DeviceBuffer<std::uint32_t> in(n), out(n);
    for (unsigned seed : {5u, 6u}) {
      const auto keys = random_keys<std::uint32_t>(n, 0, seed);
      std::vector<std::uint32_t> expect = keys;
      std::stable_sort(expect.begin(), expect.end());
      in.upload(keys);
      out.poison();
      // Two tags left: the 4 passes start over at 1-4 on zeroed words, the second sort
      // where the first one left its words tagged 1-4.
      tag(detail::kSortTagLimit - 2);
      detail::SortRequest r{DataType::UInt32,     in.ptr, out.ptr, nullptr, nullptr, 0, n,
                            SortOrder::Ascending, 0,      32,      stream};
      detail::ScannerAccess::sort(default_scanner(), r, &p);
      SCANTUNE_CUDA_TRY(cudaStreamSynchronize(stream));
      EXPECT_EQ(out.download(n), expect) << key << ", seed " << seed;
      EXPECT_EQ(tag(0), 5u) << key << ", seed " << seed;
    }
    SCANTUNE_CUDA_TRY(cudaStreamDestroy(stream));
  }
}

// Small sorts for compute-sanitizer (--gtest_filter='GpuSanitize*'): each layout of the
// onesweep tile (counters apart from the exchange or in it, early counts or not, pairs,
// a partial last tile, several tiles looking back) and the single launch, its tiles
// looking back by groups too (20011 keys: 10 tiles, a group and a part).
class GpuSanitizeSort : public test::GpuTest {};

TEST_F(GpuSanitizeSort, EveryTileLayout) {
  for (const char* key :
       {"radix.tpb384.ipt16.rb8.mb3.ec1", "radix.tpb384.ipt20.rb8.mb3.ec1",
        "radix.tpb384.ipt16.rb8.mb3", "radix.tpb512.ipt20.rb8", "radix.tpb256.ipt16.rb8.ec1",
        "radix.tpb256.ipt8.rb8.sl1", "radix.tpb256.ipt8.rb8.sl1.lg1"}) {
    const detail::SortPolicy p = detail::SortPolicy::parse(key);
    check_sort<std::uint32_t>(random_keys<std::uint32_t>(20011, 0, 31), SortOrder::Ascending, true,
                              0, 32, &p);
    if (!p.invalid_reason(8, 8)) // within shared memory for 8-byte keys and values
      check_sort<std::uint64_t, std::uint64_t>(random_keys<std::uint64_t>(9001, 0, 32),
                                               SortOrder::Descending, true, 0, 64, &p);
    // Skipped passes: keys below 2^12 (the last two skipped), all equal (two of four
    // skipped, with indices).
    std::vector<std::uint32_t> small = random_keys<std::uint32_t>(20011, 0, 33);
    for (auto& k : small)
      k &= 0xfff;
    check_sort<std::uint32_t>(small, SortOrder::Ascending, true, 0, 32, &p);
    check_sort<std::uint32_t>(std::vector<std::uint32_t>(20011, 77u), SortOrder::Descending, true,
                              0, 32, &p, 0, true);
  }
}

} // namespace
} // namespace scantune

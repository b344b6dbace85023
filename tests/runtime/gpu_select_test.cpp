// Stream compaction (select by flags or by a predicate, unique, stable partition)
// against std::copy_if, std::unique_copy and std::stable_partition on the host.
#include <cuda_bf16.h> // before scantune.hpp: data_type_of knows __half and __nv_bfloat16
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>

#include "common/gpu.hpp"
#include "common/half_values.hpp"
#include "common/scoped_env.hpp"
#include "scan_request.hpp"
#include "scantune/scantune.h"

namespace scantune::test {
namespace {

const Predicate kPositive{"positive", "return x > 0;"};

// Which items a case selects: random at 50% or 5%, runs of random length (clustered),
// every item, none.
enum class Pattern { Half, Sparse, Clustered, All, None };

std::vector<bool> make_pattern(std::size_t n, Pattern p, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<bool> v(n);
  bool run = false;
  std::size_t left = 0;
  for (std::size_t i = 0; i < n; ++i) {
    switch (p) {
    case Pattern::Half:
      v[i] = rng() % 2 == 0;
      break;
    case Pattern::Sparse:
      v[i] = rng() % 20 == 0;
      break;
    case Pattern::Clustered:
      if (left == 0) {
        run = rng() % 2 == 0;
        left = 1 + rng() % 300;
      }
      --left;
      v[i] = run;
      break;
    case Pattern::All:
      v[i] = true;
      break;
    case Pattern::None:
      v[i] = false;
      break;
    }
  }
  return v;
}

bool takes_flags(Compaction how) {
  return how == Compaction::SelectFlagged || how == Compaction::PartitionFlagged;
}
bool is_partition(Compaction how) {
  return how == Compaction::PartitionFlagged || how == Compaction::PartitionIf;
}

// Equal as unique compares them: half and bfloat16 as float (the inputs hold no NaN).
template <class T>
bool same_value(T a, T b) {
  if constexpr (is_half_like<T>)
    return as_double(a) == as_double(b);
  else
    return a == b;
}

// Inputs whose selection is `pick`: flags (any nonzero byte selects), values above 0
// for the predicate, a value differing from the one before for unique. Narrow types'
// values stay within their range (bytes: runs wrap modulo 256, still differing).
template <class T>
struct Inputs {
  std::vector<T> values;
  std::vector<std::uint8_t> flags;
};
template <class T>
Inputs<T> make_inputs(Compaction how, const std::vector<bool>& pick, unsigned seed) {
  std::mt19937 rng(seed * 7 + 1);
  Inputs<T> in;
  const std::size_t n = pick.size();
  in.values.resize(n);
  in.flags.resize(n);
  const bool narrow = sizeof(T) < 4;
  const long long range = sizeof(T) == 1 ? 100 : 1000;
  const bool is_signed = std::is_signed<T>::value || is_half_like<T>;
  long long run = 0;
  for (std::size_t i = 0; i < n; ++i) {
    in.flags[i] = pick[i] ? static_cast<std::uint8_t>(1 + rng() % 255) : 0;
    long long v = 0;
    if (how == Compaction::Unique) {
      if (pick[i]) run += 1 + static_cast<long long>(rng() % 3);
      v = run % (narrow ? 1000 : 1000000);
      if (sizeof(T) == 1) v %= 256; // as the byte wraps, but exactly
    } else if (how == Compaction::SelectIf || how == Compaction::PartitionIf) {
      const long long m = static_cast<long long>(rng() % range);
      v = pick[i] ? 1 + m : is_signed ? -m : 0;
    } else {
      v = static_cast<long long>(rng() % (2 * range + 1)) - range;
    }
    in.values[i] = from_double<T>(static_cast<double>(v));
  }
  // unique keeps element 0 whatever its pattern says; runs started by pick[0] or not
  return in;
}

// The host's answer: the stored items and the count of selected ones.
template <class T>
std::vector<T> reference(Compaction how, const Inputs<T>& in, std::uint64_t& count) {
  const std::size_t n = in.values.size();
  std::vector<T> out;
  if (how == Compaction::Unique) {
    std::unique_copy(in.values.begin(), in.values.end(), std::back_inserter(out), same_value<T>);
    count = out.size();
    return out;
  }
  std::vector<std::size_t> index(n);
  for (std::size_t i = 0; i < n; ++i)
    index[i] = i;
  auto selected = [&](std::size_t i) {
    return takes_flags(how) ? in.flags[i] != 0 : as_double(in.values[i]) > 0;
  };
  if (is_partition(how)) {
    const auto mid = std::stable_partition(index.begin(), index.end(), selected);
    count = static_cast<std::uint64_t>(mid - index.begin());
  } else {
    index.erase(
        std::remove_if(index.begin(), index.end(), [&](std::size_t i) { return !selected(i); }),
        index.end());
    count = index.size();
  }
  for (std::size_t i : index)
    out.push_back(in.values[i]);
  return out;
}

template <class T>
void run(Scanner& s, Compaction how, const T* in, const std::uint8_t* flags, T* out, std::size_t n,
         std::uint64_t* count, cudaStream_t stream = nullptr) {
  switch (how) {
  case Compaction::SelectFlagged:
    return s.select_flagged(in, flags, out, n, count, stream);
  case Compaction::SelectIf:
    return s.select_if(in, out, n, kPositive, count, stream);
  case Compaction::Unique:
    return s.unique(in, out, n, count, stream);
  case Compaction::PartitionFlagged:
    return s.partition_flagged(in, flags, out, n, count, stream);
  case Compaction::PartitionIf:
    return s.partition_if(in, out, n, kPositive, count, stream);
  }
}

// The same through one policy instead of the dispatcher's choice.
template <class T>
void run_policy(Scanner& s, const Policy& policy, Compaction how, const T* in,
                const std::uint8_t* flags, T* out, std::size_t n, std::uint64_t* count) {
  ScanRequest r = ScanRequest::compaction_of(data_type_of<T>(), detail::compaction_heads(how), in,
                                             flags, out, n, count, nullptr);
  r.policy = &policy;
  const CustomOp as_op{kPositive.name, kPositive.body, "false"};
  if (detail::takes_predicate(r.compaction)) r.op = as_op;
  detail::ScannerAccess::scan(s, r);
}

// An int32 case on the device (one spare element: n may be 0) and what it gives.
struct Int32Case {
  std::uint64_t want_count = 0;
  std::vector<std::int32_t> want;
  DeviceBuffer<std::int32_t> in, out;
  DeviceBuffer<std::uint8_t> flags;
  Int32Case(Compaction how, std::size_t n, Pattern p, unsigned seed)
      : in(n + 1), out(n + 1), flags(n + 1) {
    const Inputs<std::int32_t> host =
        make_inputs<std::int32_t>(how, make_pattern(n, p, seed), seed);
    want = reference(how, host, want_count);
    in.upload(host.values);
    flags.upload(host.flags);
  }
};

bool same_bits(const void* a, const void* b, std::size_t bytes) {
  return std::memcmp(a, b, bytes) == 0;
}

// One case: pointers offset by in_off / out_off / flags_off elements from their
// allocations (misaligned for the vector width), or in place.
struct Layout {
  std::size_t in_off = 0, out_off = 0, flags_off = 0;
  bool in_place = false;
  const Policy* policy = nullptr; ///< this policy, else the dispatcher's
};

template <class T>
void check(Scanner& s, Compaction how, std::size_t n, Pattern p, Layout at = {},
           unsigned seed = 1) {
  const Inputs<T> host = make_inputs<T>(how, make_pattern(n, p, seed), seed);
  std::uint64_t want_count = 0;
  const std::vector<T> want = reference(how, host, want_count);
  DeviceBuffer<T> d_in(n + at.in_off), d_out(n + at.out_off);
  DeviceBuffer<std::uint8_t> d_flags(n + at.flags_off);
  DeviceBuffer<std::uint64_t> d_count(1);
  d_in.upload(host.values, at.in_off);
  d_flags.upload(host.flags, at.flags_off);
  d_out.poison();
  d_count.poison();
  T* in = d_in.ptr + at.in_off;
  T* out = at.in_place ? in : d_out.ptr + at.out_off;
  if (at.policy)
    run_policy<T>(s, *at.policy, how, in, d_flags.ptr + at.flags_off, out, n, d_count.ptr);
  else
    run<T>(s, how, in, d_flags.ptr + at.flags_off, out, n, d_count.ptr);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  const std::string what = ::testing::PrintToString(static_cast<int>(how)) + " " +
                           std::string(to_string(data_type_of<T>())) + " n=" + std::to_string(n) +
                           " pattern=" + std::to_string(static_cast<int>(p)) + " offsets " +
                           std::to_string(at.in_off) + "/" + std::to_string(at.out_off) +
                           (at.in_place ? " in place" : "") +
                           (at.policy ? " " + at.policy->key() : std::string());
  ASSERT_EQ(d_count.download(1)[0], want_count) << what;
  const std::vector<T> got =
      at.in_place ? d_in.download(n, at.in_off) : d_out.download(n, at.out_off);
  ASSERT_TRUE(want.empty() || same_bits(got.data(), want.data(), want.size() * sizeof(T))) << what;
  if (at.in_place) return;
  // Nothing is stored past the selected items.
  T poison;
  std::memset(static_cast<void*>(&poison), 0xA5, sizeof poison);
  for (std::size_t i = want.size(); i < n; ++i)
    ASSERT_TRUE(same_bits(&got[i], &poison, sizeof(T))) << what << " stored at " << i;
}

constexpr Compaction kAll[] = {Compaction::SelectFlagged, Compaction::SelectIf, Compaction::Unique,
                               Compaction::PartitionFlagged, Compaction::PartitionIf};

// Tile edges of the default shapes (2048 8-byte, 4096 4-byte, 8192 narrow items),
// primes, warps.
const std::size_t kSizes[] = {1,    2,    31,   32,   33,   1009, 2047,  2048,  2049,
                              4095, 4096, 4097, 8191, 8192, 8193, 12289, 65537, 1000003};

template <class T>
void every_mode_size_and_pattern(Scanner& s) {
  for (Compaction how : kAll) {
    for (std::size_t n : kSizes)
      check<T>(s, how, n, Pattern::Half);
    for (Pattern p : {Pattern::Sparse, Pattern::Clustered, Pattern::All, Pattern::None})
      for (std::size_t n : {1ul, 4097ul, 65537ul})
        check<T>(s, how, n, p);
  }
}

class GpuSelect : public GpuTest {};

TEST_F(GpuSelect, EveryModeTypeSizeAndPattern) {
  Scanner s;
  every_mode_size_and_pattern<std::int32_t>(s);
  every_mode_size_and_pattern<std::uint32_t>(s);
  every_mode_size_and_pattern<float>(s);
  every_mode_size_and_pattern<std::int64_t>(s);
  every_mode_size_and_pattern<std::uint64_t>(s);
  every_mode_size_and_pattern<double>(s);
}

// Narrow elements move as they are (no accumulator); a predicate and unique take half
// and bfloat16 as float.
TEST_F(GpuSelect, EveryModeSizeAndPatternOfNarrowTypes) {
  Scanner s;
  every_mode_size_and_pattern<std::int8_t>(s);
  every_mode_size_and_pattern<std::uint8_t>(s);
  every_mode_size_and_pattern<std::int16_t>(s);
  every_mode_size_and_pattern<std::uint16_t>(s);
  every_mode_size_and_pattern<__half>(s);
  every_mode_size_and_pattern<__nv_bfloat16>(s);
}

TEST_F(GpuSelect, NothingWritesACountOfZero) {
  Scanner s;
  DeviceBuffer<std::uint64_t> d_count(1);
  for (Compaction how : kAll) {
    d_count.poison();
    run<int>(s, how, nullptr, nullptr, nullptr, 0, d_count.ptr);
    EXPECT_EQ(selected_count(d_count.ptr), 0u);
  }
}

TEST_F(GpuSelect, MisalignedPointers) {
  Scanner s;
  for (Compaction how : kAll)
    for (std::size_t in_off : {0ul, 1ul, 3ul})
      for (std::size_t out_off : {0ul, 1ul, 2ul}) {
        const Layout at{in_off, out_off, (in_off + out_off) % 4, false};
        check<std::int32_t>(s, how, 100003, Pattern::Half, at);
        check<double>(s, how, 50021, Pattern::Clustered, at);
        check<std::uint64_t>(s, how, 4097, Pattern::Sparse, at);
        check<std::int8_t>(s, how, 100003, Pattern::Half, at);
        check<__half>(s, how, 50021, Pattern::Clustered, at);
      }
}

TEST_F(GpuSelect, SelectionsAndUniqueInPlace) {
  Scanner s;
  for (Compaction how : {Compaction::SelectFlagged, Compaction::SelectIf, Compaction::Unique})
    for (Pattern p : {Pattern::Half, Pattern::Sparse, Pattern::Clustered, Pattern::All}) {
      check<std::int32_t>(s, how, (1u << 20) + 7, p, Layout{1, 0, 0, true});
      check<std::int64_t>(s, how, 300007, p, Layout{0, 0, 0, true});
      check<float>(s, how, 4097, p, Layout{2, 0, 0, true});
      check<std::uint8_t>(s, how, (1u << 20) + 5, p, Layout{3, 0, 0, true});
      check<__nv_bfloat16>(s, how, 300007, p, Layout{1, 0, 0, true});
    }
}

TEST_F(GpuSelect, LargeInputs) {
  Scanner s;
  const std::size_t n = (1u << 26) + 5;
  check<std::int32_t>(s, Compaction::SelectFlagged, n, Pattern::Sparse);
  check<std::int32_t>(s, Compaction::PartitionFlagged, n, Pattern::Half);
  check<std::int64_t>(s, Compaction::SelectIf, n, Pattern::Clustered);
  check<std::uint32_t>(s, Compaction::Unique, n, Pattern::Half);
  check<std::int8_t>(s, Compaction::PartitionIf, n, Pattern::Sparse);
  check<std::uint16_t>(s, Compaction::SelectFlagged, n, Pattern::Clustered);
}

// Explicit shapes: small tiles (long look-backs), the shared-memory block scans, the
// warp transpose, streaming hints; tiles by blockIdx and by ticket.
TEST_F(GpuSelect, OtherShapesAndTickets) {
  for (bool tickets : {false, true}) {
    ScopedEnv knob("SCANTUNE_TICKETS", tickets ? std::optional<std::string>("1") : std::nullopt);
    Scanner s;
    for (const char* key : {"lookback_warp.tpb32.ipt1.vec1.warp_scans",
                            "lookback_warp.tpb64.ipt3.vec1.blelloch.wxpose",
                            "lookback_warp.tpb128.ipt8.vec2.hillis_steele.cs.span4",
                            "lookback_warp.tpb512.ipt16.vec4.blelloch_padded"}) {
      const Policy policy = Policy::parse(key);
      for (Compaction how : kAll)
        for (std::size_t n : {1ul, 97ul, 20011ul, 300007ul}) {
          const Int32Case c(how, n, Pattern::Half, 5);
          DeviceBuffer<std::uint64_t> d_count(1);
          run_policy<std::int32_t>(s, policy, how, c.in.ptr, c.flags.ptr, c.out.ptr, n,
                                   d_count.ptr);
          ASSERT_EQ(d_count.download(1)[0], c.want_count) << key << " n=" << n << " " << tickets;
          ASSERT_EQ(c.out.download(c.want.size()), c.want) << key << " n=" << n << " " << tickets;
        }
    }
  }
}

// Select by flags on lookback_bulk (sm_90): one, four and eight consumer warps, the
// reducer's flags read as words or byte by byte (a segment of 32 x 6 8-byte items),
// 4- and 8-byte types, every pattern, sizes on its tile edges, aligned (the flags on a
// barrier of their own), misaligned (flags copied by the producer's lanes) and in place
// (the flags on the values' barrier); stages released early (the compacted items held
// in registers while the offset comes through the prefix ring), 3 and 6 stages. The
// same for a partition by flags, never in place.
TEST_F(GpuSelect, BulkSelectsAndPartitionsByFlags) {
  if (device_arch() < 90) GTEST_SKIP() << "lookback_bulk needs sm_90";
  Scanner s;
  for (const char* key : {"lookback_bulk.tpb32.ipt4.vec4.warp_scans.st3",
                          "lookback_bulk.tpb128.ipt12.vec4.warp_scans.st6",
                          "lookback_bulk.tpb256.ipt6.vec2.warp_scans.st4",
                          "lookback_bulk.tpb32.ipt4.vec4.warp_scans.st3.early",
                          "lookback_bulk.tpb256.ipt6.vec2.warp_scans.st6.early"}) {
    const Policy p = Policy::parse(key);
    const std::size_t tile = p.tile_items();
    for (std::size_t n : {1ul, 31ul, tile - 1, tile, tile + 1, 3 * tile + 7, 37 * tile + 5})
      for (Pattern pat :
           {Pattern::Half, Pattern::Sparse, Pattern::Clustered, Pattern::All, Pattern::None}) {
        if (p.vector_width == 4) {
          check<std::int32_t>(s, Compaction::SelectFlagged, n, pat, Layout{0, 0, 0, false, &p});
          check<float>(s, Compaction::SelectFlagged, n, pat, Layout{0, 0, 0, true, &p});
          check<std::int32_t>(s, Compaction::PartitionFlagged, n, pat, Layout{0, 0, 0, false, &p});
        } else {
          check<double>(s, Compaction::SelectFlagged, n, pat, Layout{0, 0, 0, false, &p});
          check<std::uint64_t>(s, Compaction::SelectFlagged, n, pat, Layout{0, 0, 0, true, &p});
          check<double>(s, Compaction::PartitionFlagged, n, pat, Layout{0, 0, 0, false, &p});
        }
      }
    for (std::size_t in_off : {0ul, 1ul, 3ul})
      for (std::size_t flags_off : {0ul, 5ul}) {
        const std::size_t n = 100003;
        if (p.vector_width == 4) {
          check<std::uint32_t>(s, Compaction::SelectFlagged, n, Pattern::Half,
                               Layout{in_off, 2, flags_off, false, &p});
          check<std::uint32_t>(s, Compaction::PartitionFlagged, n, Pattern::Sparse,
                               Layout{in_off, 2, flags_off, false, &p});
        } else {
          check<std::int64_t>(s, Compaction::SelectFlagged, n, Pattern::Clustered,
                              Layout{in_off, 0, flags_off, in_off == 1, &p});
          check<std::int64_t>(s, Compaction::PartitionFlagged, n, Pattern::Clustered,
                              Layout{in_off, 1, flags_off, false, &p});
        }
      }
    // Enough tiles a block that every stage comes back many times: an early release
    // hands its stage back while the segment's offset is still read.
    if (p.early_release)
      for (Compaction how : {Compaction::SelectFlagged, Compaction::PartitionFlagged})
        check<std::int32_t>(s, how, (1ul << 24) + 3, Pattern::Half, Layout{0, 0, 0, false, &p});
  }
}

// The count may go to mapped pinned host memory (what the Python package does): the
// GPU writes it, a partition's kernels read it back, the host reads it after a sync.
TEST_F(GpuSelect, CountInMappedHostMemory) {
  Scanner s;
  std::uint64_t* count = nullptr;
  SCANTUNE_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&count), sizeof *count,
                                  cudaHostAllocMapped | cudaHostAllocPortable));
  for (Compaction how : kAll)
    for (std::size_t n : {0ul, 1ul, 4097ul, 1000003ul}) {
      const Int32Case c(how, n, Pattern::Sparse, 3);
      *count = ~0ull;
      run<std::int32_t>(s, how, c.in.ptr, c.flags.ptr, c.out.ptr, n, count);
      SCANTUNE_CUDA_TRY(cudaStreamSynchronize(nullptr));
      ASSERT_EQ(*count, c.want_count) << static_cast<int>(how) << " n=" << n;
      ASSERT_EQ(c.out.download(c.want.size()), c.want) << static_cast<int>(how) << " n=" << n;
    }
  SCANTUNE_CUDA_TRY(cudaFreeHost(count));
}

// std::unique compares with ==: NaNs never repeat, -0.0 and +0.0 do.
TEST_F(GpuSelect, UniqueComparesFloatsAsEquality) {
  Scanner s;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> in{nan, nan, -0.0, 0.0, 1.0, 1.0, nan, 2.0};
  DeviceBuffer<double> d_in(in.size()), d_out(in.size());
  DeviceBuffer<std::uint64_t> d_count(1);
  d_in.upload(in);
  s.unique(d_in.ptr, d_out.ptr, in.size(), d_count.ptr);
  const std::vector<double> want{nan, nan, -0.0, 1.0, nan, 2.0};
  ASSERT_EQ(selected_count(d_count.ptr), want.size());
  const auto got = d_out.download(want.size());
  EXPECT_TRUE(same_bits(got.data(), want.data(), want.size() * sizeof(double)));
}

// Half and bfloat16 compare as float too.
TEST_F(GpuSelect, UniqueComparesHalvesAsFloats) {
  Scanner s;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> values{nan, nan, -0.0, 0.0, 1.0, 1.0, nan, 2.0, 2.0};
  std::vector<__half> in;
  for (double v : values)
    in.push_back(from_double<__half>(v));
  DeviceBuffer<__half> d_in(in.size()), d_out(in.size());
  DeviceBuffer<std::uint64_t> d_count(1);
  d_in.upload(in);
  s.unique(d_in.ptr, d_out.ptr, in.size(), d_count.ptr);
  const std::vector<__half> want{in[0], in[1], in[2], in[4], in[6], in[7]};
  ASSERT_EQ(selected_count(d_count.ptr), want.size());
  const auto got = d_out.download(want.size());
  EXPECT_TRUE(same_bits(got.data(), want.data(), want.size() * sizeof(__half)));
}

// Calls on a stream, back to back, the count read once at the end: asynchronous.
TEST_F(GpuSelect, StreamOrderedCallsAndTheCApi) {
  Scanner s;
  cudaStream_t stream;
  SCANTUNE_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::size_t n = 123457;
  const Inputs<float> host =
      make_inputs<float>(Compaction::SelectIf, make_pattern(n, Pattern::Half, 9), 9);
  DeviceBuffer<float> d_in(n), d_a(n), d_b(n);
  DeviceBuffer<std::uint64_t> d_count(2);
  d_in.upload(host.values);
  s.partition_if(d_in.ptr, d_a.ptr, n, kPositive, d_count.ptr, stream);
  s.select_if(d_a.ptr, d_b.ptr, n, kPositive, d_count.ptr + 1, stream);
  std::uint64_t want = 0;
  const auto selected = reference(Compaction::SelectIf, host, want);
  EXPECT_EQ(selected_count(d_count.ptr, stream), want);
  EXPECT_EQ(selected_count(d_count.ptr + 1, stream), want);
  EXPECT_EQ(d_b.download(want), selected);
  SCANTUNE_CUDA_TRY(cudaStreamDestroy(stream));

  scantune_scanner_t c = nullptr;
  ASSERT_EQ(scantune_scanner_create(&c, -1, nullptr, nullptr), SCANTUNE_SUCCESS);
  ASSERT_EQ(scantune_compact(c, SCANTUNE_PARTITION_IF, SCANTUNE_FLOAT32, d_in.ptr, nullptr,
                             "positive", "return x > 0;", d_a.ptr, n, d_count.ptr, nullptr),
            SCANTUNE_SUCCESS)
      << scantune_last_error();
  std::uint64_t count = 0;
  ASSERT_EQ(scantune_selected_count(d_count.ptr, nullptr, &count), SCANTUNE_SUCCESS);
  EXPECT_EQ(count, want);
  EXPECT_EQ(d_a.download(want), selected);
  EXPECT_EQ(scantune_scanner_destroy(c), SCANTUNE_SUCCESS);
}

TEST_F(GpuSelect, BrokenPredicateThrowsWithTheNvrtcLog) {
  Scanner s;
  DeviceBuffer<float> d(16), d_out(16);
  DeviceBuffer<std::uint64_t> d_count(1);
  try {
    s.select_if(d.ptr, d_out.ptr, 16, Predicate{"broken", "return x +* ;"}, d_count.ptr);
    FAIL() << "expected a compile error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Compile);
    EXPECT_NE(std::string(e.what()).find("predicate broken"), std::string::npos) << e.what();
    EXPECT_NE(e.log().find("error"), std::string::npos) << e.log();
  }
}

// Small cases for compute-sanitizer (--gtest_filter='GpuSanitize*').
class GpuSanitizeCompaction : public GpuTest {};

TEST_F(GpuSanitizeCompaction, EveryModeAtSmallSizes) {
  Scanner s;
  for (Compaction how : kAll)
    for (std::size_t n : {1ul, 33ul, 4097ul, 20011ul}) {
      check<std::int32_t>(s, how, n, Pattern::Half, Layout{1, 2, 3, false});
      check<double>(s, how, n, Pattern::Clustered);
      check<std::int8_t>(s, how, n, Pattern::Half, Layout{3, 1, 2, false});
      check<__half>(s, how, n, Pattern::Clustered, Layout{1, 0, 0, false});
      if (!is_partition(how))
        check<std::int32_t>(s, how, n, Pattern::Sparse, Layout{0, 0, 0, true});
    }
  if (device_arch() < 90) return;
  for (const char* key : {"lookback_bulk.tpb64.ipt8.vec4.warp_scans.st4",
                          "lookback_bulk.tpb64.ipt8.vec4.warp_scans.st3.early"}) {
    const Policy bulk = Policy::parse(key);
    for (std::size_t n : {1ul, 511ul, 20011ul}) { // select_bulk_kernel, lanes' and bulk copies
      check<std::int32_t>(s, Compaction::SelectFlagged, n, Pattern::Half,
                          Layout{1, 2, 3, false, &bulk});
      check<std::int32_t>(s, Compaction::SelectFlagged, n, Pattern::Clustered,
                          Layout{0, 0, 0, true, &bulk});
      check<std::int32_t>(s, Compaction::PartitionFlagged, n, Pattern::Half,
                          Layout{1, 2, 3, false, &bulk});
      check<std::int32_t>(s, Compaction::PartitionFlagged, n, Pattern::Sparse,
                          Layout{0, 0, 0, false, &bulk});
    }
  }
}

} // namespace
} // namespace scantune::test

// Segmented scans on the GPU against the host reference (every segment scanned on
// its own): head flags and rows, every type, operator and kind, segment edges on
// warp and tile boundaries, empty-of-heads and all-heads inputs, segments spanning
// more than 32 tiles, misaligned pointers and in place. Integers and the
// integer-valued float inputs of make_input compare exactly.
#include <gtest/gtest.h>

#include <array>
#include <random>

#include "algorithms.hpp"
#include "common/compare.hpp"
#include "common/expect_error.hpp"
#include "common/gpu.hpp"
#include "common/scan_reference.hpp"
#include "common/scoped_env.hpp"
#include "common/spec_sets.hpp"
#include "kernel_registry.hpp"
#include "scan_request.hpp"

namespace scantune::test {
namespace {

// Segment heads of one pattern over n elements (element 0's flag varies too).
std::vector<std::uint8_t> make_heads(std::size_t n, int pattern, std::size_t tile,
                                     std::uint64_t seed) {
  std::vector<std::uint8_t> h(n, 0);
  std::mt19937_64 rng(seed + n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (pattern) {
    case 0: // sparse random
      h[i] = rng() % 97 == 0 ? 3 : 0;
      break;
    case 1: // dense random, any nonzero byte
      h[i] = static_cast<std::uint8_t>(rng() % 3 == 0 ? 1 + rng() % 255 : 0);
      break;
    case 2: // every element its own segment
      h[i] = 1;
      break;
    case 3: // no head after element 0 (one segment), element 0 unflagged
      break;
    case 5: // every element a segment in the first quarter, then every 997th: a tile's
            // first offset is far from where the mean segment length puts it
      h[i] = i < n / 4 || i % 997 == 0 ? 1 : 0;
      break;
    default: // heads on warp and tile edges (and one after)
      h[i] = (i % tile == 0 || i % 32 == 0 || i % tile == 1) ? 1 : 0;
      break;
    }
  }
  return h;
}

struct Layout {
  std::size_t offset = 0; ///< elements the input (and flags) start past an aligned pointer
  bool in_place = false;
  std::size_t head_shift = 0; ///< elements the head source starts past the input's offset
};

// The head sources beside rows (check_at's row_length selects rows).
enum class Source { Flags, Keys32, Keys64, Offsets32, Offsets64 };

// Keys numbering the segments of `heads` (a run of equal keys per segment), or CSR
// begin offsets with every third segment followed by an empty one.
template <class W>
std::vector<W> keys_or_offsets(const std::vector<std::uint8_t>& heads, bool offsets) {
  std::vector<W> v;
  W key = 7;
  for (std::size_t i = 0; i < heads.size(); ++i) {
    const bool head = i == 0 || heads[i];
    if (!offsets) {
      key = static_cast<W>(key + (head && i > 0 ? 0x100000001ull : 0));
      v.push_back(key);
    } else if (head) {
      v.push_back(static_cast<W>(i));
      if (v.size() % 3 == 0) v.push_back(static_cast<W>(i)); // an empty segment
    }
  }
  if (offsets) v.push_back(static_cast<W>(heads.size()));
  return v;
}

// Device arrays of one head source for `heads`, starting `offset` elements in.
struct DeviceHeads {
  DeviceBuffer<std::uint8_t> flags;
  DeviceBuffer<std::uint32_t> w32;
  DeviceBuffer<std::uint64_t> w64;
  Segments segments;
  DeviceHeads(Source src, const std::vector<std::uint8_t>& heads, std::size_t offset)
      : flags(heads.size() + 40), w32(2 * heads.size() + 40), w64(2 * heads.size() + 40) {
    const bool offsets = src == Source::Offsets32 || src == Source::Offsets64;
    if (src == Source::Flags) {
      flags.upload(heads, offset);
      segments = Segments::flags(flags.ptr + offset);
    } else if (src == Source::Keys32 || src == Source::Offsets32) {
      const auto v = keys_or_offsets<std::uint32_t>(heads, offsets);
      w32.upload(v, offset);
      segments = offsets ? Segments::offsets_of(w32.ptr + offset, v.size() - 1)
                         : Segments::keys_of(w32.ptr + offset);
    } else {
      const auto v = keys_or_offsets<std::uint64_t>(heads, offsets);
      w64.upload(v, offset);
      segments = offsets ? Segments::offsets_of(w64.ptr + offset, v.size() - 1)
                         : Segments::keys_of(w64.ptr + offset);
    }
  }
};

template <class T>
void check_at(Scanner& scanner, const Policy* p, Op op, ScanKind kind, std::size_t n,
              const std::vector<std::uint8_t>& heads, std::size_t row_length, Layout at,
              Source src = Source::Flags) {
  const T init = make_init<T>(op);
  const std::vector<T> in = make_input<T>(n, op, 11 + n);
  std::vector<std::uint8_t> h = heads;
  if (row_length) {
    h.assign(n, 0);
    for (std::size_t i = 0; i < n; i += row_length)
      h[i] = 1;
  }
  const std::vector<T> want = reference_segmented_scan(in, h, op, kind, init);
  DeviceBuffer<T> d_in(n + 8), d_out(n + 8);
  DeviceHeads d_heads(src, row_length ? h : heads, at.offset + at.head_shift);
  d_out.poison();
  d_in.upload(in, at.offset);
  T* out = at.in_place ? d_in.ptr + at.offset : d_out.ptr + at.offset + 1;
  ScanRequest r =
      detail::make_request<T>(kind, d_in.ptr + at.offset, out, n, op, &init, nullptr, p);
  r.segments = row_length ? Segments::rows(row_length) : d_heads.segments;
  detail::ScannerAccess::scan(scanner, r);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  const auto got = at.in_place ? d_in.download(n, at.offset) : d_out.download(n, at.offset + 1);
  ASSERT_TRUE(equal_exact(got, want))
      << (p ? p->key() : "dispatched") << " " << to_string(data_type_of<T>()) << " "
      << to_string(op) << " " << to_string(kind) << " n=" << n << " rows of " << row_length
      << " source " << static_cast<int>(src) << " offset=" << at.offset
      << (at.in_place ? " in place" : "");
}

// Sizes around tile edges, primes, and one that spans more than 32 tiles.
std::vector<std::size_t> sizes(std::size_t tile) {
  return {1, 2, 31, 33, tile - 1, tile, tile + 1, 3 * tile + 7, 7919, 37 * tile + 5};
}

std::vector<Policy> segmented_policies(DataType t) {
  const int vec = size_of(t) == 8 ? 2 : 4;
  return {
      make_policy(Algorithm::LookbackWarp, 256, 12, vec, BlockScan::WarpScans, TileIO::Transpose),
      make_policy(Algorithm::LookbackWarp, 128, 8, vec, BlockScan::WarpScans, TileIO::Direct),
      make_policy(Algorithm::LookbackWarp, 64, 5, 1, BlockScan::WarpScans, TileIO::WarpTranspose, 0,
                  true)};
}

void prepare_segmented(const std::vector<DataType>& types) {
  std::vector<detail::KernelSpec> specs;
  for (DataType t : types)
    for (const Policy& p : segmented_policies(t))
      for (Op op : ops_for(t))
        for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
          for (detail::Heads h : {detail::Heads::Flags, detail::Heads::Periodic})
            specs.push_back({p, t, detail::OpSpec::from(op), k, h});
  detail::KernelRegistry::instance().prepare(specs, device_arch(), 72);
}

// Head flags of every pattern: every type, operator and kind, sizes around the tile.
template <class PoliciesOf>
void check_every_flags_case(PoliciesOf policies_of) {
  Scanner scanner;
  for (DataType t : all_types())
    for (const Policy& p : policies_of(t))
      for (Op op : ops_for(t))
        for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
          for (std::size_t n : sizes(p.tile_items()))
            for (int pattern = 0; pattern < 5; ++pattern)
              for_type(t, [&](auto tag) {
                using T = decltype(tag);
                const auto heads = make_heads(n, pattern, p.tile_items(), 3);
                check_at<T>(scanner, &p, op, k, n, heads, 0, {});
              });
}

TEST_F(GpuTest, SegmentedFlagsEveryTypeOperatorKindAndPattern) {
  prepare_segmented(all_types());
  check_every_flags_case(segmented_policies);
}

TEST_F(GpuTest, SegmentedRowsOfEveryLength) {
  prepare_segmented({DataType::Int32, DataType::Float64});
  Scanner scanner;
  for (DataType t : {DataType::Int32, DataType::Float64})
    for (const Policy& p : segmented_policies(t)) {
      const std::size_t tile = p.tile_items();
      for (std::size_t len : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{4},
                              std::size_t{16}, std::size_t{31}, std::size_t{32}, std::size_t{33},
                              tile - 1, tile, tile + 1, 40 * tile + 3})
        for (std::size_t rows : {std::size_t{1}, std::size_t{2}, std::size_t{7}})
          for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
            for_type(t, [&](auto tag) {
              check_at<decltype(tag)>(scanner, &p, Op::Sum, k, rows * len + (rows == 7 ? 5 : 0), {},
                                      len, {});
            });
    }
}

TEST_F(GpuTest, SegmentedMisalignedAndInPlace) {
  Scanner scanner;
  for (std::size_t offset : {0, 1, 2, 3})
    for (bool in_place : {false, true})
      for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
        const std::size_t n = 100003;
        const auto heads = make_heads(n, 0, 3072, offset);
        check_at<std::int32_t>(scanner, nullptr, Op::Sum, k, n, heads, 0, {offset, in_place});
        check_at<double>(scanner, nullptr, Op::Max, k, n, heads, 0, {offset, in_place});
        check_at<std::uint64_t>(scanner, nullptr, Op::BitXor, k, n, {}, 1000, {offset, in_place});
      }
}

// Scan by key and CSR offsets (with empty segments): every pattern, both word sizes.
TEST_F(GpuTest, SegmentedKeysAndOffsets) {
  Scanner scanner;
  const Policy p =
      make_policy(Algorithm::LookbackWarp, 128, 8, 4, BlockScan::WarpScans, TileIO::Transpose);
  // Offsets also through a direct-I/O tile (a head-bit buffer of its own; a thread's 12
  // bits straddle two words).
  const Policy direct =
      make_policy(Algorithm::LookbackWarp, 256, 12, 1, BlockScan::WarpScans, TileIO::Direct);
  for (Source src : {Source::Keys32, Source::Keys64, Source::Offsets32, Source::Offsets64})
    for (std::size_t n : sizes(p.tile_items()))
      for (int pattern = 0; pattern < 6; ++pattern)
        for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
          const auto heads = make_heads(n, pattern, p.tile_items(), 5);
          check_at<std::int32_t>(scanner, &p, Op::Sum, k, n, heads, 0, {}, src);
          if (src == Source::Offsets32 || src == Source::Offsets64)
            check_at<std::int32_t>(scanner, &direct, Op::Sum, k, n, heads, 0, {}, src);
          check_at<double>(scanner, nullptr, Op::Max, k, n, heads, 0, {1, k == ScanKind::Exclusive},
                           src);
        }
}

// A full tile's keys: a thread reads its own by vectors where they are aligned as the
// values are (read_heads::load_keys), one by one where the keys are shifted against the
// values. Every tile I/O, both key widths, 4- and 8-byte values, a misaligned input.
TEST_F(GpuTest, SegmentedKeysByVectorsOrOneByOne) {
  Scanner scanner;
  for (TileIO io : all_tile_ios()) {
    const Policy p4 = make_policy(Algorithm::LookbackWarp, 128, 8, 4, BlockScan::WarpScans, io);
    const Policy p8 = make_policy(Algorithm::LookbackWarp, 64, 12, 2, BlockScan::WarpScans, io);
    for (Source src : {Source::Keys32, Source::Keys64})
      for (std::size_t head_shift : {0, 1})
        for (int pattern : {0, 1, 4})
          for (std::size_t n : sizes(p8.tile_items())) {
            const auto heads = make_heads(n, pattern, p8.tile_items(), 9);
            check_at<std::int32_t>(scanner, &p4, Op::Sum, ScanKind::Inclusive, n, heads, 0,
                                   {0, false, head_shift}, src);
            check_at<std::int64_t>(scanner, &p8, Op::Sum, ScanKind::Exclusive, n, heads, 0,
                                   {1, false, head_shift}, src);
            check_at<double>(scanner, &p8, Op::Max, ScanKind::Inclusive, n, heads, 0,
                             {0, true, head_shift}, src);
          }
  }
}

// lookback_bulk's segmented kernel (sm_90): flags or keys bulk-copied beside the values
// where the tile's part starts on 16 bytes, else copied by the producer's lanes. One,
// two and eight consumer warps; 1, 3, 4 and 6 rows a segment (the reducer's rotated
// reads).
std::vector<Policy> bulk_segmented_policies(DataType t) {
  const int vec = size_of(t) == 8 ? 2 : 4;
  auto bulk = [](int tpb, int ipt, int vec, int stages) {
    Policy p = make_policy(Algorithm::LookbackBulk, tpb, ipt, vec, BlockScan::WarpScans,
                           TileIO::Transpose);
    p.stages = stages;
    return p;
  };
  return {bulk(256, 16, vec, 3), bulk(64, 12, vec, 3), bulk(32, 4, 1, 3)};
}

TEST_F(GpuTest, SegmentedBulkFlagsEveryTypeOperatorKindAndPattern) {
  if (device_arch() < 90) GTEST_SKIP() << "lookback_bulk needs sm_90";
  std::vector<detail::KernelSpec> specs;
  for (DataType t : all_types())
    for (const Policy& p : bulk_segmented_policies(t))
      for (Op op : ops_for(t))
        for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
          specs.push_back({p, t, detail::OpSpec::from(op), k, detail::Heads::Flags});
  detail::KernelRegistry::instance().prepare(specs, device_arch(), 72);
  check_every_flags_case(bulk_segmented_policies);
}

// Scan by key and CSR offsets (every third segment followed by an empty one) on the bulk
// kernel: 32- and 64-bit words, every pattern and size (uneven segment lengths: the
// offsets' search misses its guess and probes from the block's last tile).
TEST_F(GpuTest, SegmentedBulkKeysAndOffsets) {
  if (device_arch() < 90) GTEST_SKIP() << "lookback_bulk needs sm_90";
  Scanner scanner;
  for (Source src : {Source::Keys32, Source::Keys64, Source::Offsets32, Source::Offsets64})
    for (DataType t : {DataType::Int32, DataType::Float64})
      for (const Policy& p : bulk_segmented_policies(t))
        for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
          for (std::size_t n : sizes(p.tile_items()))
            for (int pattern = 0; pattern < 6; ++pattern) {
              const auto heads = make_heads(n, pattern, p.tile_items(), 5);
              if (t == DataType::Int32)
                check_at<std::int32_t>(scanner, &p, Op::Sum, k, n, heads, 0, {}, src);
              else
                check_at<double>(scanner, &p, Op::Max, k, n, heads, 0, {}, src);
            }
  // Every element a segment over more tiles than the grid holds: a block's first tile
  // lies more than 2^19 offsets past its search's start (the probe's reach), later ones
  // a grid of tiles past the last.
  const std::size_t n = (std::size_t{1} << 21) + 3;
  for (Source src : {Source::Offsets32, Source::Offsets64})
    for (const Policy& p : bulk_segmented_policies(DataType::Int32))
      check_at<std::int32_t>(scanner, &p, Op::Sum, ScanKind::Inclusive, n, make_heads(n, 2, 0, 5),
                             0, {}, src);
}

// Misaligned values, heads misaligned against them (the lanes' copy), in place.
TEST_F(GpuTest, SegmentedBulkMisalignedAndInPlace) {
  if (device_arch() < 90) GTEST_SKIP() << "lookback_bulk needs sm_90";
  Scanner scanner;
  for (Source src : {Source::Flags, Source::Keys32, Source::Keys64, Source::Offsets64})
    for (std::size_t offset : {0, 1, 3})
      for (std::size_t head_shift : {0, 5, 16})
        for (bool in_place : {false, true})
          for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
            for (int pattern : {0, 3, 4}) {
              const std::size_t n = 100003;
              const auto heads = make_heads(n, pattern, 4096, offset);
              const Layout at{offset, in_place, head_shift};
              const Policy p32 = bulk_segmented_policies(DataType::Int32)[0];
              const Policy p64 = bulk_segmented_policies(DataType::Float64)[1];
              check_at<std::int32_t>(scanner, &p32, Op::Sum, k, n, heads, 0, at, src);
              check_at<double>(scanner, &p64, Op::Max, k, n, heads, 0, at, src);
            }
}

// An early stage release on the segmented kernel: each consumer takes its rows, heads
// and carry-in out of the stage and scans them before the prefix comes through the ring
// of 2S. Tiles of 128 items cycle a block through both rings many times; every head
// source, 3 and 5 stages, sparse heads, a head an element, none after element 0, heads
// on tile edges; eight consumers misaligned and in place.
TEST_F(GpuTest, SegmentedBulkEarlyReleaseKeepsCarries) {
  if (device_arch() < 90) GTEST_SKIP() << "lookback_bulk needs sm_90";
  Scanner scanner;
  auto early = [](DataType t, int tpb, int ipt, int stages) {
    Policy p = make_policy(Algorithm::LookbackBulk, tpb, ipt, size_of(t) == 8 ? 2 : 4,
                           BlockScan::WarpScans, TileIO::Transpose);
    p.stages = stages;
    p.early_release = true;
    return p;
  };
  const std::vector<Source> sources{Source::Flags, Source::Keys32, Source::Keys64,
                                    Source::Offsets32, Source::Offsets64};
  for (int stages : {3, 5})
    for (DataType t : {DataType::Int32, DataType::Float64}) {
      const Policy p = early(t, 32, 4, stages);
      ASSERT_FALSE(p.invalid_reason(t)) << p.key();
      for (Source src : sources)
        for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
          for (std::size_t n :
               {std::size_t{1}, std::size_t{127}, std::size_t{1000}, std::size_t{300007}})
            for (int pattern : {0, 2, 3, 4}) {
              const auto heads = make_heads(n, pattern, p.tile_items(), 5);
              if (t == DataType::Int32)
                check_at<std::int32_t>(scanner, &p, Op::Sum, k, n, heads, 0, {}, src);
              else
                check_at<double>(scanner, &p, Op::Max, k, n, heads, 0, {}, src);
            }
    }
  const Policy wide = early(DataType::Int32, 256, 16, 3);
  for (Source src : sources)
    for (std::size_t offset : {0, 3})
      for (bool in_place : {false, true}) {
        const std::size_t n = 100003;
        check_at<std::int32_t>(scanner, &wide, Op::Sum, ScanKind::Exclusive, n,
                               make_heads(n, 0, wide.tile_items(), offset), 0,
                               {offset, in_place, 5}, src);
      }
}

// SCANTUNE_CHECK=1 reads CSR offsets back and names the first bad one.
TEST_F(GpuTest, SegmentedCheckNamesTheFirstBadOffset) {
  test::ScopedEnv check("SCANTUNE_CHECK", "1");
  Scanner scanner;
  const std::vector<std::int64_t> offsets{0, 4, 3, 10};
  DeviceBuffer<std::int64_t> d_off(offsets.size());
  DeviceBuffer<float> d_x(10);
  d_off.upload(offsets);
  EXPECT_ERROR_NAMING(scanner.segmented_inclusive_scan(d_x.ptr, d_x.ptr, 10,
                                                       Segments::offsets_of(d_off.ptr, 3), Op::Sum),
                      "offsets[2] = 3 is less than offsets[1] = 4");
}

// Small runs for compute-sanitizer (memcheck, racecheck): both head sources, tiles
// with and without heads, more than 32 tiles of look-back.
TEST_F(GpuTest, SegmentedSanitizeSmall) {
  Scanner scanner;
  const Policy p =
      make_policy(Algorithm::LookbackWarp, 64, 4, 4, BlockScan::WarpScans, TileIO::Transpose);
  const Policy direct =
      make_policy(Algorithm::LookbackWarp, 64, 32, 1, BlockScan::WarpScans, TileIO::Direct);
  for (std::size_t n : {1ul, 255ul, 1000ul, 9001ul})
    for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
      check_at<std::int32_t>(scanner, &p, Op::Sum, k, n, make_heads(n, 0, 256, 1), 0, {1, false});
      check_at<std::int32_t>(scanner, &p, Op::Sum, k, n, {}, 100, {0, true});
      check_at<std::int32_t>(scanner, &p, Op::Sum, k, n, make_heads(n, 1, 256, 2), 0, {},
                             Source::Keys64);
      check_at<std::int32_t>(scanner, &p, Op::Sum, k, n, make_heads(n, 1, 256, 2), 0, {},
                             Source::Offsets32);
      // Offsets' head bits in a buffer of their own (direct I/O stages no tile).
      check_at<std::int32_t>(scanner, &direct, Op::Sum, k, n, make_heads(n, 2, 256, 3), 0, {},
                             Source::Offsets64);
      if (device_arch() >= 90) // the bulk kernel's flags: staged by bulk copies and by lanes
        for (std::size_t shift : {0, 3})
          for (bool early : {false, true}) { // early: stages back before the prefix ring
            Policy bulk = bulk_segmented_policies(DataType::Int32)[1];
            bulk.early_release = early;
            check_at<std::int32_t>(scanner, &bulk, Op::Sum, k, n, make_heads(n, 0, 256, 4), 0,
                                   {1, false, shift});
            check_at<std::int32_t>(scanner, &bulk, Op::Sum, k, n, make_heads(n, 1, 256, 4), 0,
                                   {0, true, shift}, Source::Keys64);
            check_at<std::int32_t>(scanner, &bulk, Op::Sum, k, n, make_heads(n, 4, 256, 4), 0,
                                   {1, false, shift}, Source::Offsets32);
          }
    }
}

TEST_F(GpuTest, SegmentedPublicApiAndCustomOperator) {
  const std::size_t n = 1 << 20;
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
  const auto heads = make_heads(n, 0, 4096, 9);
  DeviceBuffer<float> d_x(n), d_y(n);
  DeviceBuffer<std::uint8_t> d_h(n);
  d_x.upload(x);
  d_h.upload(heads);
  Scanner scanner;
  const CustomOp absmax{"absmax", "return fabsf(a) > fabsf(b) ? a : b;", "0.0f"};
  scanner.segmented_inclusive_scan(d_x.ptr, d_y.ptr, n, Segments::flags(d_h.ptr), absmax);
  std::vector<float> want(n);
  for (std::size_t i = 0; i < n; ++i) {
    const bool head = i == 0 || heads[i];
    // absmax(a, b) keeps b (the later element) on ties, as the device operator does
    want[i] = !head && std::fabs(want[i - 1]) > std::fabs(x[i]) ? want[i - 1] : x[i];
  }
  EXPECT_TRUE(equal_exact(d_y.download(n), want));
  scanner.segmented_exclusive_scan(d_x.ptr, d_y.ptr, n, Segments::rows(1000), Op::Sum, 2.0f);
  std::vector<std::uint8_t> rows(n, 0);
  for (std::size_t i = 0; i < n; i += 1000)
    rows[i] = 1;
  EXPECT_TRUE(equal_exact(d_y.download(n),
                          reference_segmented_scan(x, rows, Op::Sum, ScanKind::Exclusive, 2.0f)));
}

} // namespace
} // namespace scantune::test

// Small runs of every algorithm for compute-sanitizer (memcheck, racecheck):
// run with --gtest_filter='GpuSanitize*'. Also part of the normal GPU suite.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/gpu.hpp"
#include "common/scan_reference.hpp"
#include "common/spec_sets.hpp"
#include "scan_request.hpp"

namespace scantune::test {
namespace {

class GpuSanitize : public GpuTest {};

TEST_F(GpuSanitize, EveryAlgorithmAndBlockScanAtSmallSizes) {
  Scanner scanner;
  std::vector<Policy> policies{Policy::sequential()};
  for (Algorithm a : tile_algorithms())
    for (BlockScan bs : all_block_scans())
      for (const Policy& p : {make_policy(a, 64, 4, 4, bs, TileIO::Transpose),
                              make_policy(a, 96, 2, 2, bs, TileIO::Direct)})
        if (std::find(policies.begin(), policies.end(), p) == policies.end())
          policies.push_back(p); // lookback_bulk has one block scan
  Policy ring =
      make_policy(Algorithm::LookbackBulk, 64, 4, 4, BlockScan::WarpScans, TileIO::Transpose);
  ring.stages = 8; // a tile or two a block: no wrap (GpuMemcheck.BulkRingsWrap wraps it)
  policies.push_back(ring);
  Policy early = ring; // consumers hand stages back before the prefix: the rings of 2S
  early.early_release = true;
  early.stages = 3;
  policies.push_back(early);
  ring.io = TileIO::Direct; // lane runs of 3 vectors: rotated reads and writes
  ring.items_per_thread = 12;
  policies.push_back(ring);
  Policy deep = make_policy(Algorithm::LookbackPipelined, 64, 4, 4, BlockScan::WarpScans,
                            TileIO::WarpTranspose);
  deep.stages = 5; // three copies in flight
  policies.push_back(deep);
  Policy big = make_policy(Algorithm::LookbackPipelined, 1024, 8, 4, BlockScan::WarpScans,
                           TileIO::Transpose);
  policies.push_back(big);                // 3 x 32 KB of dynamic shared memory
  for (Algorithm a : tile_algorithms()) { // the reproducible look-backs
    Policy p = make_policy(a, 64, 4, 4, BlockScan::WarpScans, TileIO::Transpose);
    p.reproducible = p.uses_tile_status();
    if (p.reproducible) policies.push_back(p);
  }
  for (const Policy& p : policies)
    for (std::size_t n : {1ul, 255ul, 256ul, 1000ul, 4099ul})
      for (std::size_t offset : {0ul, 1ul}) {
        auto in = make_input<std::int32_t>(n, Op::Sum, n);
        DeviceBuffer<std::int32_t> d_in(n + 2), d_out(n + 2);
        d_in.upload(in, offset);
        scantune::detail::scan_with(scanner, p, ScanKind::Exclusive, d_in.ptr + offset,
                                    d_out.ptr + offset, n, Op::Sum, 3);
        ASSERT_EQ(d_out.download(n, offset), reference_scan(in, Op::Sum, ScanKind::Exclusive, 3))
            << p.key() << " n=" << n;
        scantune::detail::scan_with(scanner, p, ScanKind::Inclusive, d_in.ptr + offset,
                                    d_in.ptr + offset, n, Op::Sum,
                                    0); // in place
        ASSERT_EQ(d_in.download(n, offset), reference_scan(in, Op::Sum, ScanKind::Inclusive, 0))
            << p.key() << " n=" << n;
      }
}

// lookback_bulk tickets of several tiles: the later tiles of a ticket take the block's
// previous prefix; the last ticket ends part-way at some sizes. A block draws one ticket
// and the end marker within one pass of its ring (stages > tiles a ticket, tiles for
// about a ticket a block): racecheck reports every wrap of an mbarrier ring, one tile a
// ticket too, so wrapping rings are memcheck's (GpuMemcheck below; docs/decisions.md).
void scan_bulk_tickets(const std::vector<std::size_t>& sizes, int stages_early) {
  Scanner scanner;
  for (int per_ticket : {1, 2, 3})
    for (bool early : {false, true}) {
      Policy p =
          make_policy(Algorithm::LookbackBulk, 64, 4, 4, BlockScan::WarpScans, TileIO::Transpose);
      p.tiles_per_ticket = per_ticket;
      p.early_release = early;
      p.stages = early ? stages_early : 8;
      for (std::size_t n : sizes) {
        auto in = make_input<std::int32_t>(n, Op::Sum, n);
        DeviceBuffer<std::int32_t> d_in(n + 1), d_out(n + 1);
        d_in.upload(in, 1);
        scantune::detail::scan_with(scanner, p, ScanKind::Exclusive, d_in.ptr + 1, d_out.ptr, n,
                                    Op::Sum, 3);
        ASSERT_EQ(d_out.download(n), reference_scan(in, Op::Sum, ScanKind::Exclusive, 3))
            << p.key() << " n=" << n;
      }
    }
}

TEST_F(GpuSanitize, BulkTicketsOfSeveralTiles) {
  if (device_arch() < 90) GTEST_SKIP() << "lookback_bulk needs sm_90";
  scan_bulk_tickets({1, 700, 256 * 3 * 9 + 5, 40009}, 4);
}

// For memcheck only: rings wrapping many times a block, 3 stages with early release.
class GpuMemcheck : public GpuTest {};

TEST_F(GpuMemcheck, BulkRingsWrap) {
  if (device_arch() < 90) GTEST_SKIP() << "lookback_bulk needs sm_90";
  scan_bulk_tickets({2000003}, 3);
}

// Reductions (several blocks meet at the last one's fold) and scans from a device start
// value written by the reduction just before them.
TEST_F(GpuSanitize, ReductionsAndDeviceStartValues) {
  Scanner scanner;
  for (std::size_t n : {0ul, 1ul, 1000ul, 70001ul}) {
    auto in = make_input<std::int32_t>(n, Op::Sum, n);
    DeviceBuffer<std::int32_t> d_in(n), d_out(n), d_total(1);
    d_in.upload(in);
    scanner.reduce(d_in.ptr, d_total.ptr, n, Op::Sum);
    std::int32_t total = 0;
    for (std::int32_t x : in)
      total = static_cast<std::int32_t>(static_cast<std::uint32_t>(total) + x);
    ASSERT_EQ(d_total.download(1)[0], total) << "n=" << n;
    scanner.exclusive_scan(d_in.ptr, d_out.ptr, n, Op::Sum, DeviceValue<std::int32_t>{d_total.ptr});
    ASSERT_EQ(d_out.download(n), reference_scan(in, Op::Sum, ScanKind::Exclusive, total));
  }
}

// One-warp blocks (the warp-scan block scan's one-warp path), and with a tile loop
// several tiles per block of a full wave: 12501 tiles of 32.
TEST_F(GpuSanitize, OneWarpBlocksAndTileLoops) {
  Scanner scanner;
  const std::size_t n = 400009;
  auto in = make_input<std::int32_t>(n, Op::Sum, 5);
  DeviceBuffer<std::int32_t> d_in(n + 1), d_out(n + 1);
  d_in.upload(in, 1);
  for (Algorithm a : {Algorithm::Chained, Algorithm::LookbackThread, Algorithm::LookbackWarp})
    for (bool loop : {false, true}) {
      Policy p = make_policy(a, 32, 1, 1, BlockScan::WarpScans, TileIO::Transpose);
      p.tile_loop = loop;
      scantune::detail::scan_with(scanner, p, ScanKind::Exclusive, d_in.ptr + 1, d_out.ptr + 1, n,
                                  Op::Sum, 7);
      ASSERT_EQ(d_out.download(n, 1), reference_scan(in, Op::Sum, ScanKind::Exclusive, 7))
          << p.key();
    }
}

TEST_F(GpuSanitize, WideTypesAndLookbackWindows) {
  Scanner scanner;
  for (Algorithm a : {Algorithm::Chained, Algorithm::LookbackThread, Algorithm::LookbackWarp}) {
    const Policy p = make_policy(a, 32, 2, 2, BlockScan::BlellochPadded, TileIO::Transpose);
    const std::size_t n = 64 * 40 + 3; // 41 tiles: more than one look-back window
    auto in = make_input<double>(n, Op::Sum, 4);
    DeviceBuffer<double> d_in(n), d_out(n);
    d_in.upload(in);
    scantune::detail::scan_with(scanner, p, ScanKind::Inclusive, d_in.ptr, d_out.ptr, n, Op::Sum);
    ASSERT_EQ(d_out.download(n), reference_scan(in, Op::Sum, ScanKind::Inclusive, 0.0)) << p.key();
  }
}

} // namespace
} // namespace scantune::test

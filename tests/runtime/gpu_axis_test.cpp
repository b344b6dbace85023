// Axis scans on the GPU (torch.cumsum along an outer dimension): every column of an
// outer x len x inner array against a host scan of it (templates/axis_scan.cuh): shapes
// around tiles, warps and row groups, long chains, short columns within a thread, small
// matrices sharing a block, whole chains a block (a tile loop), non-commutative
// operators, in place, misaligned pointers.
#include <gtest/gtest.h>

#include <array>
#include <random>

#include "algorithms.hpp"
#include "common/compare.hpp"
#include "common/gpu.hpp"
#include "common/scan_reference.hpp"
#include "common/spec_sets.hpp"
#include "scan_request.hpp"

namespace scantune::test {
namespace {

// Axis scans: every (o, j) column of an outer x len x inner array against
// `scan_column` of the column on the host, in place or not, the arrays `skew`
// elements past an allocation's start.
template <class T, class ColumnScan>
void check_axis_of(Scanner& scanner, const Policy* p, OpRef op, ScanKind kind, T init,
                   const std::vector<T>& in, std::size_t outer, std::size_t len, std::size_t inner,
                   bool in_place, ColumnScan scan_column, std::size_t skew = 0) {
  const std::size_t n = outer * len * inner;
  std::vector<T> want(n);
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t j = 0; j < inner; ++j) {
      std::vector<T> column(len);
      for (std::size_t i = 0; i < len; ++i)
        column[i] = in[(o * len + i) * inner + j];
      const std::vector<T> scanned = scan_column(column);
      for (std::size_t i = 0; i < len; ++i)
        want[(o * len + i) * inner + j] = scanned[i];
    }
  DeviceBuffer<T> d_in(n + skew), d_out(n + skew);
  d_in.upload(in, skew);
  d_out.poison();
  T* out = (in_place ? d_in.ptr : d_out.ptr) + skew;
  ScanRequest r = detail::make_request<T>(kind, d_in.ptr + skew, out, 0, op, &init, nullptr, p);
  detail::set_axis(r, outer, len, inner);
  detail::ScannerAccess::scan(scanner, r);
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  ASSERT_TRUE(equal_exact((in_place ? d_in : d_out).download(n, skew), want))
      << (p ? p->key() : "dispatched") << " " << to_string(data_type_of<T>()) << " "
      << to_string(kind) << " " << outer << " x " << len << " x " << inner
      << (in_place ? " in place" : "") << (skew ? " skewed" : "");
}

// The same for a built-in operator, against a host scan of the column, for shapes
// around the tile's rows and columns, odd inner (no vectors), in place and exclusive.
template <class T>
void check_axis(Scanner& scanner, const Policy* p, Op op, ScanKind kind, std::size_t outer,
                std::size_t len, std::size_t inner, bool in_place, std::size_t skew = 0) {
  const T init = make_init<T>(op);
  const std::size_t n = outer * len * inner;
  check_axis_of<T>(
      scanner, p, op, kind, init, make_input<T>(n, op, 17 + n), outer, len, inner, in_place,
      [&](const std::vector<T>& column) { return reference_scan(column, op, kind, init); }, skew);
}

TEST_F(GpuTest, AxisScansAgainstColumnScans) {
  Scanner scanner;
  const Policy p =
      make_policy(Algorithm::LookbackWarp, 128, 4, 4, BlockScan::WarpScans, TileIO::Transpose);
  // The tile: 4 warps x 4 rows = 16 rows, 128 columns.
  for (auto [outer, len, inner] : std::vector<std::array<std::size_t, 3>>{{1, 1, 2},
                                                                          {1, 16, 128},
                                                                          {1, 17, 129},
                                                                          {3, 15, 127},
                                                                          {2, 1000, 3},
                                                                          {1, 600, 1000},
                                                                          {5, 33, 256},
                                                                          {1, 40 * 16 + 1, 64}})
    for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
      check_axis<std::int32_t>(scanner, &p, Op::Sum, k, outer, len, inner, false);
      check_axis<double>(scanner, nullptr, Op::Max, k, outer, len, inner, k == ScanKind::Inclusive);
      check_axis<std::uint64_t>(scanner, nullptr, Op::BitXor, k, outer, len, inner, false);
      // One element past a vector boundary: element accesses instead of vectors.
      check_axis<std::int32_t>(scanner, &p, Op::Max, k, outer, len, inner, false, 1);
      check_axis<float>(scanner, nullptr, Op::Sum, k, outer, len, inner, k == ScanKind::Inclusive,
                        3);
    }
  check_axis<float>(scanner, nullptr, Op::Sum, ScanKind::Inclusive, 4, 100, 1, false); // rows
}

// Long chains: 1025 (16-row tiles) and 257 (the default's 64-row tiles) chunks per
// column, so the look-back walks many windows; 4-row columns (the default's short
// tile, no look-back), dispatched and on a 16-row tile.
TEST_F(GpuTest, AxisScansOfLongAndShortColumns) {
  Scanner scanner;
  const Policy p =
      make_policy(Algorithm::LookbackWarp, 128, 4, 4, BlockScan::WarpScans, TileIO::Transpose);
  for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
    check_axis<std::int32_t>(scanner, &p, Op::Sum, k, 1, (1u << 14) + 3, 1000, false);
    check_axis<std::int32_t>(scanner, nullptr, Op::Sum, k, 1, (1u << 14) + 3, 1000, false);
    check_axis<std::int64_t>(scanner, nullptr, Op::Sum, k, 2, 5000, 300, k == ScanKind::Inclusive);
    check_axis<std::int32_t>(scanner, nullptr, Op::Sum, k, 1, 4, (1u << 20) + 5, false);
    check_axis<std::int32_t>(scanner, &p, Op::Sum, k, 3, 4, 1000, false);
    check_axis<float>(scanner, nullptr, Op::Max, k, 1, 7, 100000, false);
    check_axis<std::int32_t>(scanner, nullptr, Op::Sum, k, 5, 2, 40, false);
  }
}

// Narrow columns split a warp into row groups, short ones take fewer warps each, side by
// side (templates/axis_scan.cuh): column counts around a row's lanes (vectors of 1, 2
// and 4), column lengths around a thread's, a warp's, two warps' and a tile's rows,
// several chunks, and a block of three warps (one idle where two hold a column).
TEST_F(GpuTest, AxisRowGroupsAndShortColumns) {
  Scanner scanner;
  for (auto [tpb, ipt, vec] :
       std::vector<std::array<int, 3>>{{64, 2, 1}, {128, 4, 4}, {96, 4, 2}}) {
    const Policy p = make_policy(Algorithm::LookbackWarp, tpb, ipt, vec, BlockScan::WarpScans,
                                 TileIO::Transpose);
    for (std::size_t inner : {2, 3, 5, 8, 16, 17, 31, 33, 64}) {
      std::size_t lpr = 1;
      while (lpr < 32 && lpr * vec < inner)
        lpr *= 2;
      const std::size_t warp_rows = ipt * (32 / lpr), tile_rows = warp_rows * (tpb / 32);
      for (std::size_t len : {std::size_t{1}, warp_rows - 1, warp_rows, warp_rows + 1,
                              2 * warp_rows + 1, tile_rows, tile_rows + 1, 3 * tile_rows + 5}) {
        if (len == 0) continue;
        for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
          check_axis<std::int32_t>(scanner, &p, Op::Sum, k, 3, len, inner, false);
          if (vec <= 2) // 16-byte vectors at most
            check_axis<std::uint64_t>(scanner, &p, Op::BitXor, k, 2, len, inner,
                                      k == ScanKind::Inclusive);
        }
      }
    }
  }
}

// Small matrices share a block (templates/axis_scan.cuh): columns whose length divides
// the thread's rows lie within a thread, the tile running down the rows of all matrices
// (column blocks side by side where inner is wider than the tile); other short columns
// take the next slice of columns a warp group, of the next matrix where one runs out,
// so a block spans many matrices and the last ends part-way (8-row columns of 64 on 3
// warps of 2 rows: two chunks); the dispatcher's short-column default too.
TEST_F(GpuTest, AxisSmallMatricesShareABlock) {
  Scanner scanner;
  for (auto [tpb, ipt, vec] :
       std::vector<std::array<int, 3>>{{1024, 2, 1}, {512, 4, 2}, {256, 8, 4}, {96, 2, 2}}) {
    const Policy p = make_policy(Algorithm::LookbackWarp, tpb, ipt, vec, BlockScan::WarpScans,
                                 TileIO::Transpose);
    for (std::size_t outer : {1, 7, 1009})
      for (std::size_t len : {1, 2, 3, 4, 5, 7, 8})
        for (std::size_t inner : {5, 8, 31, 32, 64, 100, 300}) {
          const ScanKind k = (outer + len + inner) % 2 ? ScanKind::Inclusive : ScanKind::Exclusive;
          check_axis<std::int32_t>(scanner, &p, Op::Sum, k, outer, len, inner, false);
          if (vec <= 2)
            check_axis<std::uint64_t>(scanner, &p, Op::BitXor, k, outer, len, inner, true);
        }
  }
  // Few rows of many columns: one warp down them, the others on the next column blocks.
  const Policy four =
      make_policy(Algorithm::LookbackWarp, 128, 4, 4, BlockScan::WarpScans, TileIO::Transpose);
  for (auto [outer, len, inner] :
       std::vector<std::array<std::size_t, 3>>{{1, 4, 100003}, {3, 2, 5000}, {5, 3, 4097}})
    for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
      check_axis<std::int32_t>(scanner, &four, Op::Sum, k, outer, len, inner, false);
      check_axis<float>(scanner, nullptr, Op::Sum, k, outer, len, inner, true);
    }
  for (auto [outer, len, inner] :
       std::vector<std::array<std::size_t, 3>>{{4099, 2, 32}, {1025, 4, 17}, {333, 8, 64}})
    for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
      check_axis<float>(scanner, nullptr, Op::Sum, k, outer, len, inner, false);
      check_axis<double>(scanner, nullptr, Op::Max, k, outer, len, inner, true);
    }
}

// A non-commutative operator keeps each column's order through the look-back: the
// first non-zero value of the column so far (zeros are frequent).
TEST_F(GpuTest, AxisNonCommutativeOperatorKeepsColumnOrder) {
  Scanner scanner;
  const CustomOp first{"first_nonzero", "return a != 0 ? a : b;", "0"};
  const auto host = [](int a, int b) { return a != 0 ? a : b; };
  const Policy p =
      make_policy(Algorithm::LookbackWarp, 128, 4, 4, BlockScan::WarpScans, TileIO::Transpose);
  Policy loop = p;
  loop.tile_loop = true; // whole chains a block where there are enough (9000 columns)
  for (auto [outer, len, inner] : std::vector<std::array<std::size_t, 3>>{{1, (1u << 14) + 3, 1000},
                                                                          {1, 300, 9000},
                                                                          {2, 3001, 129},
                                                                          {1, 4, 5000},
                                                                          {3, 301, 16},
                                                                          {2, 5, 24},
                                                                          {2, 13, 40}})
    for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
      const std::size_t n = outer * len * inner;
      std::vector<int> in(n);
      std::mt19937 rng{unsigned(n)};
      for (int& x : in)
        x = rng() % 1024 == 0 ? int(rng() % 100) + 1 : 0; // mostly zeros: carries matter
      auto scan_column = [&](const std::vector<int>& column) {
        std::vector<int> out(column.size());
        int acc = 0; // the identity, the exclusive scans' init
        for (std::size_t i = 0; i < column.size(); ++i) {
          if (k == ScanKind::Exclusive) out[i] = acc;
          acc = host(acc, column[i]);
          if (k == ScanKind::Inclusive) out[i] = acc;
        }
        return out;
      };
      for (const Policy* policy :
           {&p, static_cast<const Policy*>(&loop), static_cast<const Policy*>(nullptr)})
        check_axis_of<int>(scanner, policy, first, k, 0, in, outer, len, inner, false, scan_column);
    }
}

// A tile loop (`.loop`): where chains of 128-byte rows or wider fill the device, each
// block scans whole chains down the columns (axis_tile::scan_chains), its carry in
// registers; with fewer chains, or columns of one chunk, the look-back tiles run. Shapes
// with 130-1000 chains (8-byte values: 16 columns a chain), odd inner (no vectors),
// chunks around the tile's rows, several matrices, misaligned, in place; few chains.
TEST_F(GpuTest, AxisTileLoopScansWholeChains) {
  Scanner scanner;
  for (auto [tpb, ipt, vec] : std::vector<std::array<int, 3>>{{128, 4, 4}, {256, 8, 2}}) {
    Policy p = make_policy(Algorithm::LookbackWarp, tpb, ipt, vec, BlockScan::WarpScans,
                           TileIO::Transpose);
    p.tile_loop = true;
    const std::size_t rows = std::size_t(tpb / 32) * ipt * (32 / 8); // a chunk at 8 lanes a row
    for (auto [outer, len, inner] :
         std::vector<std::array<std::size_t, 3>>{{1, 700, 8192},
                                                 {3, rows + 1, 3001},
                                                 {2, 5 * rows, 4224},
                                                 {1, 2 * rows - 1, 32000},
                                                 {1, 5000, 300},
                                                 {4, 7, 9000}})
      for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
        check_axis<std::int32_t>(scanner, &p, Op::Sum, k, outer, len, inner, false);
        if (vec <= 2) { // 16-byte vectors at most
          check_axis<std::int64_t>(scanner, &p, Op::Sum, k, outer, len, inner, true);
          check_axis<double>(scanner, &p, Op::Max, k, outer, len, inner, false, 1);
        }
        check_axis<float>(scanner, &p, Op::Sum, k, outer, len, inner, k == ScanKind::Inclusive, 3);
      }
  }
}

// The scanner's own choice for 8-16 bytes of columns: scans of structs of the columns
// (axis_columns.hpp), a matrix each; exclusive scans and misaligned pointers keep the
// axis kernel.
TEST_F(GpuTest, AxisScansOfFewColumnsAsStructs) {
  Scanner scanner;
  for (auto [outer, len, inner] : std::vector<std::array<std::size_t, 3>>{
           {1, 100003, 4}, {3, 7919, 2}, {1, 1, 4}, {2, 33, 3}, {17, 100, 2}})
    for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
      check_axis<std::int32_t>(scanner, nullptr, Op::Sum, k, outer, len, inner, false);
      check_axis<std::int32_t>(scanner, nullptr, Op::Max, k, outer, len, inner, true);
      check_axis<std::uint64_t>(scanner, nullptr, Op::BitXor, k, outer, len, 2, false);
      check_axis<double>(scanner, nullptr, Op::Min, k, outer, len, 2, false);
    }
}

// Columns of one element: the scanner's inclusive scan is a copy (nothing in place),
// its exclusive one the init; an explicit policy still runs the axis kernel.
TEST_F(GpuTest, AxisScansOfLengthOne) {
  Scanner scanner;
  const Policy p =
      make_policy(Algorithm::LookbackWarp, 128, 4, 4, BlockScan::WarpScans, TileIO::Transpose);
  for (auto [outer, inner] :
       std::vector<std::array<std::size_t, 2>>{{1, 100003}, {5, 7}, {1, 4}, {3, 1000}, {1, 1}})
    for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
      for (bool in_place : {false, true}) {
        check_axis<std::int32_t>(scanner, nullptr, Op::Sum, k, outer, 1, inner, in_place);
        check_axis<double>(scanner, nullptr, Op::Max, k, outer, 1, inner, in_place);
        check_axis<std::int32_t>(scanner, &p, Op::Sum, k, outer, 1, inner, in_place);
      }
}

} // namespace
} // namespace scantune::test

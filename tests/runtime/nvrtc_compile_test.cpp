// Every template path compiles under NVRTC for sm_90, and each policy of each entry point
// for sm_80 (for_arch says why; no GPU needed).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "common/nvrtc_batch.hpp"
#include "common/spec_sets.hpp"
#include "default_policies.hpp"
#include "errors.hpp"
#include "kernel_registry.hpp"
#include "nvrtc_compiler.hpp"
#include "shape_class.hpp"

namespace scantune::detail {
namespace {

using test::all_block_scans;
using test::all_types;
using test::make_policy;
using test::ops_for;
using test::tile_algorithms;

// What a list compiles for `arch`: all of it for sm_90; for sm_80 each policy of each
// entry point once. What differs between the two is code under __CUDA_ARCH__ (the bulk
// copies, compiled to nothing on sm_80), chosen by the policy and the kernel, never by
// the element type, operator or kind, which sm_90 covers (sm_80 took 140 CPU s, now 43).
std::vector<KernelSpec> for_arch(const std::vector<KernelSpec>& all, int arch) {
  if (arch >= 90) return all;
  std::vector<KernelSpec> v;
  std::set<std::string> seen;
  for (const auto& s : all)
    if (seen.insert(s.policy.key() + "/" + std::to_string(static_cast<int>(s.heads))).second)
      v.push_back(s);
  return v;
}

// Compiles specs in batches and checks every kernel got a lowered name and code.
void compile_all(const std::vector<KernelSpec>& all, int arch) {
  const std::vector<KernelSpec> specs = for_arch(all, arch);
  ASSERT_FALSE(specs.empty());
  for (std::size_t i = 0; i < specs.size(); i += 48) {
    std::vector<KernelSpec> batch(specs.begin() + static_cast<std::ptrdiff_t>(i),
                                  specs.begin() +
                                      static_cast<std::ptrdiff_t>(std::min(specs.size(), i + 48)));
    for (const auto& s : batch)
      ASSERT_FALSE(
          s.policy.invalid_reason(s.converts ? *s.converts : ScanTypes{s.type, s.type, s.type}))
          << s.id();
    CompiledProgram prog;
    ASSERT_NO_FATAL_FAILURE(test::compile_batch(batch, arch, &prog));
    EXPECT_GT(prog.cubin.size(), 1000u);
    for (const auto& l : prog.lowered_names)
      EXPECT_EQ(l.rfind("_Z", 0), 0u) << l;
  }
}

// Every inter-block algorithm x block-scan algorithm x tile I/O x vector width,
// with and without streaming cache hints, one-tile kernels with and without a tile
// loop (each distinct policy once).
std::vector<KernelSpec> algorithm_paths() {
  std::vector<KernelSpec> v;
  std::set<std::string> seen;
  for (DataType t : {DataType::Int32, DataType::Float64})
    for (Algorithm a : tile_algorithms())
      for (BlockScan bs : all_block_scans())
        for (TileIO io : test::all_tile_ios())
          for (int vec : {1, 2, 4}) {
            Policy p = make_policy(a, 128, 4, vec, bs, io, a == Algorithm::LookbackThread ? 50 : 0,
                                   vec == 2);
            p.tile_loop = p.one_tile_per_block() && vec == 1; // the looping kernel
            const KernelSpec s{p, t, OpSpec::from(Op::Sum), ScanKind::Inclusive};
            if (!p.invalid_reason(t) && seen.insert(s.id()).second) v.push_back(s);
          }
  for (Algorithm a : tile_algorithms()) { // a __launch_bounds__ minimum of resident blocks
    Policy p = make_policy(a, 128, 4, 4, BlockScan::WarpScans, TileIO::Transpose);
    p.min_blocks = 2;
    v.push_back({p, DataType::Int32, OpSpec::from(Op::Sum), ScanKind::Inclusive});
    // The reproducible look-back, on both element sizes and with a look-back span
    p.min_blocks = 0;
    p.reproducible = p.uses_tile_status();
    if (p.reproducible) {
      v.push_back({p, DataType::Float32, OpSpec::from(Op::Sum), ScanKind::Inclusive});
      p.vector_width = 2;
      p.lookback_span = a == Algorithm::Chained || a == Algorithm::LookbackThread ? 1 : 2;
      v.push_back({p, DataType::Float64, OpSpec::from(Op::Sum), ScanKind::Exclusive});
    }
  }
  v.push_back({Policy::sequential(), DataType::Int32, OpSpec::from(Op::Sum), ScanKind::Inclusive});
  v.push_back(
      {Policy::sequential(), DataType::UInt64, OpSpec::from(Op::BitXor), ScanKind::Exclusive});
  return v;
}

// Every type x operator x kind on the default single-pass, the three-pass and the
// bulk-copy paths (rows released early too).
std::vector<KernelSpec> type_op_paths() {
  std::vector<KernelSpec> v;
  for (DataType t : all_types())
    for (Op op : ops_for(t))
      for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
        const int vec = size_of(t) == 8 ? 2 : 4;
        v.push_back({make_policy(Algorithm::LookbackWarp, 256, 8, vec, BlockScan::WarpScans,
                                 TileIO::Transpose),
                     t, OpSpec::from(op), k});
        v.push_back({make_policy(Algorithm::LookbackWarp, 128, 16, vec, BlockScan::WarpScans,
                                 TileIO::WarpTranspose, 0, true),
                     t, OpSpec::from(op), k});
        v.push_back({make_policy(Algorithm::ReduceThenScan, 128, 4, vec, BlockScan::BlellochPadded,
                                 TileIO::Direct),
                     t, OpSpec::from(op), k});
        Policy bulk = make_policy(Algorithm::LookbackBulk, 256, 4 * vec, vec, BlockScan::WarpScans,
                                  TileIO::Transpose);
        v.push_back({bulk, t, OpSpec::from(op), k});
        bulk.early_release = true; // its consumers store from registers
        v.push_back({bulk, t, OpSpec::from(op), k});
        bulk.tiles_per_ticket = 4; // one look-back a ticket
        bulk.stages = 8;
        v.push_back({bulk, t, OpSpec::from(op), k});
      }
  return v;
}

std::vector<KernelSpec> custom_op_paths() {
  const CustomOp absmax{"absmax", "return fabs(a) > fabs(b) ? a : b;", "0.0"};
  const CustomOp maxplus{"max_plus", "return a > b ? a : b;", "-9223372036854775807ll - 1"};
  std::vector<KernelSpec> v;
  for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive})
    for (Algorithm a : test::tile_algorithms()) {
      v.push_back({make_policy(a, 256, 4, 2, BlockScan::WarpScans, TileIO::Transpose),
                   DataType::Float64, OpSpec::from(absmax), k});
      v.push_back({make_policy(a, 128, 8, 4, BlockScan::Blelloch, TileIO::Direct),
                   DataType::Float32, OpSpec::from(absmax), k});
      v.push_back({make_policy(a, 128, 4, 2, BlockScan::HillisSteele, TileIO::Transpose),
                   DataType::Int64, OpSpec::from(maxplus), k});
    }
  // The shipped logaddexp on both float types and on half through float.
  const Policy p =
      make_policy(Algorithm::LookbackWarp, 256, 8, 2, BlockScan::WarpScans, TileIO::Transpose);
  v.push_back({p, DataType::Float32, OpSpec::from(logaddexp_op()), ScanKind::Inclusive});
  v.push_back({p, DataType::Float64, OpSpec::from(logaddexp_op()), ScanKind::Exclusive});
  const ScanTypes half = scan_types(DataType::Float16);
  v.push_back({p, half.acc, OpSpec::from(logaddexp_op()), ScanKind::Inclusive, Heads::None, half});
  return v;
}

// Segmented kernels: both head sources, every type, operator and kind, the tile
// I/Os and vector widths, a custom operator.
std::vector<KernelSpec> segmented_paths() {
  const CustomOp absmax{"absmax", "return fabs(a) > fabs(b) ? a : b;", "0.0"};
  std::vector<KernelSpec> v;
  for (Heads h : {Heads::Flags, Heads::Periodic, Heads::Keys32, Heads::Keys64, Heads::Offsets32,
                  Heads::Offsets64, Heads::Axis, Heads::Reduce}) {
    for (DataType t : all_types()) // every operator with flags, sums with the other sources
      for (Op op : ops_for(t))
        for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
          if (h != Heads::Flags && op != Op::Sum) continue;
          const int vec = size_of(t) == 8 ? 2 : 4;
          v.push_back({make_policy(Algorithm::LookbackWarp, 256, 8, vec, BlockScan::WarpScans,
                                   TileIO::Transpose),
                       t, OpSpec::from(op), k, h});
        }
    for (TileIO io : test::all_tile_ios())
      v.push_back(
          {make_policy(Algorithm::LookbackWarp, 128, 32, 1, BlockScan::WarpScans, io, 100, true),
           DataType::Float64, OpSpec::from(absmax), ScanKind::Exclusive, h});
  }
  // segmented_bulk_kernel over each head source it takes (sm_90 only; sm_80 skips it),
  // the 64-bit one with its stages released early.
  for (Heads h : {Heads::Flags, Heads::Keys32, Heads::Keys64, Heads::Offsets32, Heads::Offsets64})
    for (int vec : {4, 2}) {
      Policy b = make_policy(Algorithm::LookbackBulk, 64, 8 * vec, vec, BlockScan::WarpScans,
                             TileIO::Transpose);
      b.stages = 5;
      b.early_release = vec == 2;
      v.push_back({b, vec == 4 ? DataType::Int32 : DataType::Float64,
                   OpSpec::from(vec == 4 ? Op::Sum : Op::Max),
                   vec == 4 ? ScanKind::Inclusive : ScanKind::Exclusive, h});
    }
  return v;
}

// Axis scans: the default of every shape class on every width and kind, blocks of
// fewer threads than columns (32 threads, 4 or 2 columns each), an odd warp
// count, windows of several spans, a non-commutative custom operator.
std::vector<KernelSpec> axis_paths() {
  const CustomOp first{"first_nonzero", "return a != 0 ? a : b;", "0"};
  std::vector<KernelSpec> v;
  std::set<std::string> seen;
  auto add = [&](const KernelSpec& s) {
    if (seen.insert(s.id()).second) v.push_back(s);
  };
  for (DataType t : {DataType::Int32, DataType::Float32, DataType::Int64, DataType::Float64})
    for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
      for (int len = 1; len <= kLenClasses; ++len)
        for (int inner = 1; inner <= kInnerClasses; ++inner)
          add({default_axis_policy(t, axis_class_shape(ShapeClass{len, inner})), t,
               OpSpec::from(Op::Sum), k, Heads::Axis});
      Policy odd = make_policy(Algorithm::LookbackWarp, 96, 2, 2, BlockScan::WarpScans,
                               TileIO::Transpose, 100);
      odd.lookback_span = 3;
      add({odd, t, OpSpec::from(Op::Max), k, Heads::Axis});
      Policy narrow = make_policy(Algorithm::LookbackWarp, 32, 4, size_of(t) == 8 ? 2 : 4,
                                  BlockScan::WarpScans, TileIO::Transpose);
      narrow.lookback_span = 8;
      add({narrow, t, OpSpec::from(Op::Sum), k, Heads::Axis});
      Policy loop = default_axis_policy(t); // whole chains a block (axis_tile::scan_chains)
      loop.tile_loop = true;
      add({loop, t, OpSpec::from(Op::Max), k, Heads::Axis});
      if (t == DataType::Int32 || t == DataType::Int64)
        add({default_axis_policy(t), t, OpSpec::from(first), k, Heads::Axis});
    }
  return v;
}

// Compaction: every mode x type on the default shape, the other block scans and tile
// I/Os, a predicate per type; narrow types on their default shape: unique (a shuffled
// and compared narrow item) and a predicate partition each, selections by flags of
// bytes and halves.
std::vector<KernelSpec> compaction_paths() {
  const CustomOp positive{"positive", "return x > 0;", "false"};
  std::vector<KernelSpec> v;
  for (Heads h : {Heads::SelectFlags, Heads::SelectIf, Heads::Unique, Heads::PartitionFlags,
                  Heads::PartitionIf})
    for (DataType t : all_types()) {
      const OpSpec op = takes_predicate(h) ? OpSpec::from(positive) : OpSpec::from(Op::Sum);
      const int vec = size_of(t) == 8 ? 2 : 4;
      v.push_back({make_policy(Algorithm::LookbackWarp, 256, size_of(t) == 8 ? 8 : 16, vec,
                               BlockScan::WarpScans, TileIO::Transpose),
                   t, op, ScanKind::Inclusive, h});
      v.push_back({make_policy(Algorithm::LookbackWarp, 128, 7, 1, BlockScan::BlellochPadded,
                               TileIO::WarpTranspose, 100, true),
                   t, op, ScanKind::Inclusive, h});
    }
  // select_bulk_kernel (sm_90 only; sm_80 compiles it to nothing): every type, the
  // 8-byte ones with stages released early.
  for (DataType t : all_types()) {
    const int vec = 16 / static_cast<int>(size_of(t));
    Policy b = make_policy(Algorithm::LookbackBulk, 128, 4 * vec, vec, BlockScan::WarpScans,
                           TileIO::Transpose);
    b.stages = 6;
    b.early_release = size_of(t) == 8;
    v.push_back({b, t, OpSpec::from(Op::Sum), ScanKind::Inclusive, Heads::SelectFlags});
  }
  for (DataType t : {DataType::Int8, DataType::UInt8, DataType::Int16, DataType::UInt16,
                     DataType::Float16, DataType::BFloat16}) {
    const Policy p = default_select_policy(t);
    v.push_back({p, t, OpSpec::from(Op::Sum), ScanKind::Inclusive, Heads::Unique});
    v.push_back({p, t, OpSpec::from(positive), ScanKind::Inclusive, Heads::PartitionIf});
    if (t == DataType::Int8 || t == DataType::Float16)
      v.push_back({p, t, OpSpec::from(Op::Sum), ScanKind::Inclusive, Heads::SelectFlags});
  }
  return v;
}

// Reverse scans: every algorithm that runs reversed x tile I/O x kind, with a built-in
// and a non-commutative custom operator, and every type x operator on lookback_warp.
std::vector<KernelSpec> reverse_paths() {
  const CustomOp first{"first_nonzero", "return a != 0 ? a : b;", "0"};
  std::vector<KernelSpec> v;
  for (Algorithm a : tile_algorithms()) {
    if (a == Algorithm::ReduceThenScan) continue;
    for (TileIO io : test::all_tile_ios())
      for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
        Policy p = make_policy(a, 128, 8, 4, BlockScan::WarpScans, io);
        p.reverse = true;
        if (p.invalid_reason(DataType::Int32)) continue;
        v.push_back({p, DataType::Int32, OpSpec::from(Op::Sum), k});
        v.push_back({p, DataType::Int32, OpSpec::from(first), k});
        p.vector_width = 2;
        v.push_back({p, DataType::Float64, OpSpec::from(Op::Max), k});
      }
  }
  for (DataType t : all_types())
    for (Op op : ops_for(t))
      for (ScanKind k : {ScanKind::Inclusive, ScanKind::Exclusive}) {
        Policy p = make_policy(Algorithm::LookbackWarp, 256, 8, size_of(t) == 8 ? 2 : 4,
                               BlockScan::WarpScans, TileIO::WarpTranspose);
        p.reverse = true;
        v.push_back({p, t, OpSpec::from(op), k});
      }
  return v;
}

// Converting scans (narrow and mixed types): every algorithm that converts x tile I/O on
// three pairs (1-byte, widening, half through float), and every pair the typed calls
// make on lookback_warp forward and reversed and on the sequential kernel.
std::vector<KernelSpec> converting_paths() {
  using D = DataType;
  const ScanTypes wide[] = {scan_types(D::Int8), scan_types(D::UInt8, D::Int32),
                            scan_types(D::Float16)};
  std::vector<KernelSpec> v;
  auto add = [&](const ScanTypes& t, Policy p, OpRef op, ScanKind k) {
    if (!p.invalid_reason(t)) v.push_back({p, t.acc, OpSpec::from(op), k, Heads::None, t});
  };
  for (const ScanTypes& t : wide) {
    const int vec = 16 / static_cast<int>(std::max(size_of(t.in), size_of(t.out)));
    for (Algorithm a : tile_algorithms())
      for (TileIO io : test::all_tile_ios())
        add(t, make_policy(a, 128, 16, vec, BlockScan::WarpScans, io), Op::Sum,
            io == TileIO::Direct ? ScanKind::Exclusive : ScanKind::Inclusive);
  }
  for (const ScanTypes& t : test::converting_types()) {
    const int vec = 16 / static_cast<int>(std::max(size_of(t.in), size_of(t.out)));
    Policy p =
        make_policy(Algorithm::LookbackWarp, 256, 16, vec, BlockScan::WarpScans, TileIO::Transpose);
    add(t, p, Op::Sum, ScanKind::Exclusive);
    p.reverse = true;
    add(t, p, Op::Max, ScanKind::Inclusive);
    add(t, Policy::sequential(), Op::Min, ScanKind::Inclusive);
    // lookback_bulk stages the input as it is (sm_90 only; sm_80 skips it).
    Policy b =
        make_policy(Algorithm::LookbackBulk, 256, 32, vec, BlockScan::WarpScans, TileIO::Transpose);
    b.stages = 4;
    add(t, b, Op::Sum, ScanKind::Inclusive);
    b.reverse = true;
    add(t, b, Op::Max, ScanKind::Exclusive);
    b.early_release = true; // where input and output share a width above a byte
    add(t, b, Op::Sum, ScanKind::Exclusive);
  }
  return v;
}

class NvrtcCompile : public ::testing::TestWithParam<int> {};

TEST_P(NvrtcCompile, ConvertingScans) {
  compile_all(converting_paths(), GetParam());
}

TEST_P(NvrtcCompile, ReverseScans) {
  compile_all(reverse_paths(), GetParam());
}

TEST_P(NvrtcCompile, CompactionModesAndTypes) {
  compile_all(compaction_paths(), GetParam());
}

TEST_P(NvrtcCompile, SegmentedHeadSourcesTypesOperatorsAndKinds) {
  compile_all(segmented_paths(), GetParam());
}

TEST_P(NvrtcCompile, AxisShapesTypesAndOperators) {
  compile_all(axis_paths(), GetParam());
}

TEST_P(NvrtcCompile, EveryAlgorithmBlockScanIoAndVectorWidth) {
  compile_all(algorithm_paths(), GetParam());
}
TEST_P(NvrtcCompile, EveryTypeOperatorAndKind) {
  compile_all(type_op_paths(), GetParam());
}
TEST_P(NvrtcCompile, CustomOperators) {
  compile_all(custom_op_paths(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Archs, NvrtcCompile, ::testing::Values(80, 90),
                         [](const auto& info) { return "sm_" + std::to_string(info.param); });

using test::compile_failure;

TEST(NvrtcCompileErrors, BrokenCustomOperatorCarriesTheNvrtcLog) {
  const CustomOp broken{"broken", "return a + undefined_thing(b);", "0"};
  const CompileError e =
      compile_failure({Policy{}, DataType::Int32, OpSpec::from(broken), ScanKind::Inclusive});
  const std::string what = e.what();
  EXPECT_NE(what.find("undefined_thing"), std::string::npos) << what;
  EXPECT_NE(what.find("custom operator broken"), std::string::npos)
      << what; // #line points at the user's code
  EXPECT_NE(what.find("--gpu-architecture=sm_90"), std::string::npos) << what;
  EXPECT_EQ(e.kind(), ErrorKind::Compile);
  EXPECT_NE(e.log().find("error"), std::string::npos);
  EXPECT_NE(e.log().find("--gpu-architecture=sm_90"), std::string::npos) << e.log();
}

TEST(NvrtcCompileErrors, BrokenPredicateCarriesTheNvrtcLog) {
  const CustomOp broken{"broken_pred", "return undefined_thing(x);", "false"};
  const CompileError e = compile_failure(
      {Policy{}, DataType::Float32, OpSpec::from(broken), ScanKind::Inclusive, Heads::SelectIf});
  const std::string what = e.what();
  EXPECT_NE(what.find("undefined_thing"), std::string::npos) << what;
  EXPECT_NE(what.find("predicate broken_pred"), std::string::npos) << what;
  EXPECT_EQ(e.kind(), ErrorKind::Compile);
}

// Bulk copies need sm_90: the registry refuses before compiling (no GPU needed).
TEST(NvrtcCompileErrors, BulkCopiesAreRefusedBelowSm90) {
  const KernelSpec s{Policy::parse("lookback_bulk.tpb256.ipt16.vec4.warp_scans.st6"),
                     DataType::Int32, OpSpec::from(Op::Sum), ScanKind::Inclusive};
  try {
    KernelRegistry::instance().get(s, 80, nullptr);
    FAIL() << "sm_80 should be refused";
  } catch (const Unsupported& e) {
    EXPECT_STREQ(e.what(), "policy lookback_bulk.tpb256.ipt16.vec4.warp_scans.st6 needs sm_90 or "
                           "newer (lookback_bulk uses bulk copies); this GPU is sm_80");
  }
  EXPECT_THROW(KernelRegistry::instance().prepare({s}, 86), Unsupported);
}

TEST(NvrtcCompileErrors, ReportsVersionAndArchs) {
  EXPECT_FALSE(nvrtc_version().empty());
  auto archs = nvrtc_supported_archs();
  EXPECT_NE(std::find(archs.begin(), archs.end(), 90), archs.end());
  EXPECT_NE(std::find(archs.begin(), archs.end(), 80), archs.end());
}

} // namespace
} // namespace scantune::detail

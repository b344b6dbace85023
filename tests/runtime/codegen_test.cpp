#include <gtest/gtest.h>

#include <string_view>

#include <fmt/format.h>

#include "algorithms.hpp"
#include "codegen.hpp"
#include "embedded_templates.hpp"
#include "errors.hpp"
#include "policy_fields.hpp"

namespace scantune::detail {
namespace {

KernelSpec spec(const char* key, DataType t, OpSpec op, ScanKind k) {
  return KernelSpec{Policy::parse(key), t, op, k};
}

TEST(Codegen, SourceRestatesItsPolicy) {
  auto g = generate({spec("lookback_warp.tpb256.ipt12.vec4.warp_scans", DataType::Int32,
                          OpSpec::from(Op::Sum), ScanKind::Inclusive)});
  EXPECT_NE(
      g.source.find("// kernel: lookback_warp.tpb256.ipt12.vec4.warp_scans|int32|sum|inclusive"),
      std::string::npos);
  EXPECT_NE(g.source.find("static_assert("), std::string::npos);
  EXPECT_NE(g.source.find("\"policy lookback_warp.tpb256.ipt12.vec4.warp_scans\""),
            std::string::npos);
  ASSERT_EQ(g.name_expressions.size(), 1u);
  ASSERT_EQ(g.name_expressions[0].size(), 1u);
  EXPECT_EQ(g.name_expressions[0][0],
            "&scantune::single_pass_kernel<int, scantune::op_sum<int>, scantune::KIND_INCLUSIVE, "
            "scantune::policy<scantune::ALG_LOOKBACK_WARP, 256, 12, 4, scantune::BS_WARP_SCANS, "
            "scantune::IO_TRANSPOSE, 0, scantune::CACHE_DEFAULT, 1, 3>>");
}

TEST(Codegen, SegmentedSpecsNameTheSegmentedKernelAndTheirHeads) {
  KernelSpec s = spec("lookback_warp.tpb256.ipt12.vec4.warp_scans", DataType::Float32,
                      OpSpec::from(Op::Max), ScanKind::Exclusive);
  const std::string flat_id = s.id();
  s.heads = Heads::Periodic;
  EXPECT_EQ(s.id(), flat_id + "|rows");
  auto g = generate({s});
  ASSERT_EQ(g.name_expressions.at(0).size(), 1u);
  EXPECT_EQ(g.name_expressions[0][0].rfind("&scantune::segmented_kernel<float, "
                                           "scantune::op_max<float>, scantune::KIND_EXCLUSIVE",
                                           0),
            0u);
  EXPECT_NE(g.name_expressions[0][0].find(", scantune::HEADS_PERIODIC>"), std::string::npos);
  s.heads = Heads::Flags;
  EXPECT_EQ(s.id(), flat_id + "|flags");
  EXPECT_NE(generate({s}).name_expressions[0][0].find(", scantune::HEADS_FLAGS>"),
            std::string::npos);
}

TEST(Codegen, WarpLookbackRunsSegmentedScansAndBulkRunsFlagsKeysAndOffsets) {
  for (Heads h : {Heads::Flags, Heads::Periodic, Heads::Keys32, Heads::Offsets64, Heads::Axis}) {
    EXPECT_FALSE(
        segmented_invalid_reason(Policy::parse("lookback_warp.tpb256.ipt12.vec4.warp_scans"), h));
    EXPECT_FALSE(segmented_invalid_reason(
        Policy::parse("lookback_warp.tpb128.ipt8.vec2.warp_scans.direct.cs"), h));
  }
  const Policy bulk = Policy::parse("lookback_bulk.tpb256.ipt16.vec4.warp_scans.st4");
  for (Heads h : {Heads::Flags, Heads::Keys32, Heads::Keys64, Heads::Offsets32, Heads::Offsets64})
    EXPECT_FALSE(segmented_invalid_reason(bulk, h)) << to_string(h);
  for (Heads h : {Heads::Periodic, Heads::Axis}) {
    const auto why = segmented_invalid_reason(bulk, h);
    ASSERT_TRUE(why) << to_string(h);
    EXPECT_NE(why->find("lookback_bulk has no"), std::string::npos) << *why;
  }
  for (const char* key : {"lookback_warp.tpb256.ipt12.vec4.blelloch",
                          "lookback_warp.tpb256.ipt12.vec4.warp_scans.loop",
                          "lookback_pipelined.tpb256.ipt12.vec4.warp_scans.st3",
                          "reduce_then_scan.tpb256.ipt8.vec4.warp_scans", "sequential"})
    EXPECT_TRUE(segmented_invalid_reason(Policy::parse(key), Heads::Flags)) << key;
  // Lane runs are the flat bulk kernel's: its segmented kernel scans rows.
  const auto runs = segmented_invalid_reason(
      Policy::parse("lookback_bulk.tpb64.ipt32.vec4.warp_scans.direct.st7"), Heads::Flags);
  ASSERT_TRUE(runs);
  EXPECT_EQ(*runs, "lookback_bulk's segmented kernel takes the xpose tile I/O");
}

// An axis scan's tile loop takes whole chains a block: axis_kernel's CHAINS code,
// named in the kernel (so its cache key and cubin are the loop's own); other segmented
// scans take no tile loop.
TEST(Codegen, AxisTileLoopIsTheChainsKernel) {
  const Policy loop = Policy::parse("lookback_warp.tpb256.ipt8.vec4.warp_scans.loop");
  EXPECT_FALSE(segmented_invalid_reason(loop, Heads::Axis));
  for (Heads h : {Heads::Flags, Heads::Keys32, Heads::Offsets64, Heads::Periodic}) {
    const auto why = segmented_invalid_reason(loop, h);
    ASSERT_TRUE(why) << to_string(h);
    EXPECT_NE(why->find("take no tile loop"), std::string::npos) << *why;
  }
  KernelSpec s{loop, DataType::Float32, OpSpec::from(Op::Sum), ScanKind::Inclusive, Heads::Axis};
  const std::string with_loop = generate({s}).name_expressions[0][0];
  EXPECT_NE(with_loop.find("axis_kernel<"), std::string::npos) << with_loop;
  EXPECT_NE(with_loop.find(", true>"), std::string::npos) << with_loop;
  s.policy.tile_loop = false;
  const std::string one_tile = generate({s}).name_expressions[0][0];
  EXPECT_EQ(one_tile.find(", true>"), std::string::npos) << one_tile;
  EXPECT_NE(s.id(), (KernelSpec{loop, DataType::Float32, OpSpec::from(Op::Sum), ScanKind::Inclusive,
                                Heads::Axis})
                        .id());
}

// segmented_bulk_kernel stages a flag byte or a key per element behind its value stages,
// a bit per element for offsets; a shape whose flat stages fit may not fit with them.
TEST(Codegen, BulkSegmentedStagesFlagsBesideTheTiles) {
  const Policy p = Policy::parse("lookback_bulk.tpb256.ipt16.vec4.warp_scans.st6");
  const ScanTypes i32{DataType::Int32, DataType::Int32, DataType::Int32};
  EXPECT_EQ(dynamic_shared_bytes(p, i32, Heads::Flags), 6u * 4096 * 5);
  EXPECT_EQ(dynamic_shared_bytes(p, i32, Heads::Flags) - dynamic_shared_bytes(p, i32),
            staged_head_bytes(p, Heads::Flags));
  EXPECT_EQ(staged_head_bytes(p, Heads::Keys64), 6u * 4096 * 8);
  EXPECT_EQ(staged_head_bytes(p, Heads::Offsets32), 6u * 4096 / 8);
  EXPECT_EQ(staged_head_bytes(p, Heads::Offsets64), 6u * 4096 / 8);
  EXPECT_EQ(staged_head_bytes(p, Heads::Periodic), 0u);
  EXPECT_EQ(staged_head_bytes(Policy::parse("lookback_warp.tpb256.ipt12.vec4.warp_scans"),
                              Heads::Offsets32),
            0u);
  EXPECT_FALSE(stored_problem_invalid_reason(p, DataType::Int32, "flags"));
  EXPECT_FALSE(stored_problem_invalid_reason(p, DataType::Int32, "offsets64.len_gt4096"));
  const Policy wide = Policy::parse("lookback_bulk.tpb256.ipt32.vec4.warp_scans.st6");
  EXPECT_FALSE(stored_problem_invalid_reason(wide, DataType::Int32, ""));
  const auto why = stored_problem_invalid_reason(wide, DataType::Int32, "flags");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("staged heads"), std::string::npos) << *why;
  KernelSpec s{p, DataType::Float64, OpSpec::from(Op::Max), ScanKind::Exclusive, Heads::Flags};
  EXPECT_NE(generate({s}).name_expressions[0][0].find("&scantune::segmented_bulk_kernel<"),
            std::string::npos);
}

// The descriptors name the device-side enumerators; templates/policy.cuh defines
// them with the numbers the host enums have.
TEST(Codegen, DeviceEnumeratorsMatchTheDescriptors) {
  std::string text;
  for (std::size_t i = 0; i < kTemplateFileCount; ++i)
    if (std::string_view(kTemplateFiles[i].name) == "scantune/policy.cuh")
      text = kTemplateFiles[i].text;
  ASSERT_FALSE(text.empty());
  auto defines = [&](std::string_view name, std::size_t value) {
    return text.find(fmt::format("{} = {}", name, value)) != std::string::npos;
  };
  for (const AlgorithmDesc& a : algorithms())
    EXPECT_TRUE(defines(a.device_enum, static_cast<std::size_t>(a.id))) << a.device_enum;
  for (const FieldDesc& f : policy_fields())
    for (int v = f.min; f.device_names && v <= f.max; ++v)
      EXPECT_TRUE(defines(f.device_names[v], static_cast<std::size_t>(v))) << f.device_names[v];
  for (const FieldDesc& f : policy_fields()) {
    if (f.asserted) {
      EXPECT_NE(text.find(fmt::format("static const int {} =", f.name)), std::string::npos)
          << f.name;
    }
  }
}

TEST(Codegen, MinBlocksReachTheTemplateOnlyWhereSet) {
  auto source = [](const char* key) {
    auto g = generate({spec(key, DataType::Int32, OpSpec::from(Op::Sum), ScanKind::Inclusive)});
    return g.name_expressions[0][0] + "\n" + g.source;
  };
  const std::string two = source("lookback_warp.tpb256.ipt12.vec4.warp_scans.mb2");
  EXPECT_NE(two.find("scantune::CACHE_DEFAULT, 1, 3, 2>>"), std::string::npos) << two;
  EXPECT_NE(two.find("::min_blocks == 2, \"policy "), std::string::npos) << two;
  EXPECT_EQ(source("lookback_warp.tpb256.ipt12.vec4.warp_scans").find("min_blocks"),
            std::string::npos);
}

TEST(Codegen, ReproducibleReachesTheTemplateAfterTheDefaultMinBlocks) {
  auto g = generate({spec("lookback_warp.tpb256.ipt12.vec4.warp_scans.repro", DataType::Float32,
                          OpSpec::from(Op::Sum), ScanKind::Inclusive)});
  const std::string text = g.name_expressions[0][0] + "\n" + g.source;
  EXPECT_NE(text.find("scantune::CACHE_DEFAULT, 1, 3, 0, 1>>"), std::string::npos) << text;
  EXPECT_NE(text.find("::reproducible == 1"), std::string::npos) << text;
}

TEST(Codegen, PipelinedStagesReachTheTemplate) {
  auto g = generate({spec("lookback_pipelined.tpb384.ipt24.vec4.warp_scans.wxpose.st4",
                          DataType::Int32, OpSpec::from(Op::Sum), ScanKind::Inclusive)});
  EXPECT_NE(g.name_expressions[0][0].find("scantune::CACHE_DEFAULT, 1, 4>>"), std::string::npos)
      << g.name_expressions[0][0];
  EXPECT_NE(g.source.find("::stages == 4, \"policy "
                          "lookback_pipelined.tpb384.ipt24.vec4.warp_scans.wxpose.st4\""),
            std::string::npos);
}

TEST(Codegen, WarpTransposeAndStreamingReachTheTemplate) {
  auto g = generate({spec("lookback_warp.tpb128.ipt20.vec4.warp_scans.wxpose.cs", DataType::Int32,
                          OpSpec::from(Op::Sum), ScanKind::Inclusive)});
  EXPECT_NE(
      g.name_expressions[0][0].find("scantune::IO_WARP_TRANSPOSE, 0, scantune::CACHE_STREAMING"),
      std::string::npos);
  EXPECT_NE(g.source.find("::tile_io == scantune::IO_WARP_TRANSPOSE && "), std::string::npos);
}

TEST(Codegen, ReduceThenScanLaunchesThreeKernels) {
  auto g = generate({spec("reduce_then_scan.tpb128.ipt4.vec2.blelloch", DataType::Float64,
                          OpSpec::from(Op::Max), ScanKind::Exclusive)});
  ASSERT_EQ(g.name_expressions[0].size(), 3u);
  EXPECT_NE(g.name_expressions[0][0].find("rts_reduce_kernel<double, scantune::op_max<double>"),
            std::string::npos);
  EXPECT_NE(g.name_expressions[0][1].find("rts_partials_kernel"), std::string::npos);
  EXPECT_NE(g.name_expressions[0][2].find("rts_downsweep_kernel"), std::string::npos);
}

TEST(Codegen, CustomOperatorBecomesAFunctor) {
  CustomOp absmax{"absmax", "return fabs(a) > fabs(b) ? a : b;", "0.0"};
  auto op = OpSpec::from(absmax);
  EXPECT_EQ(op.id().rfind("custom:absmax:", 0), 0u);
  auto g = generate({spec("sequential", DataType::Float64, op, ScanKind::Inclusive)});
  EXPECT_NE(g.source.find("return fabs(a) > fabs(b) ? a : b;"), std::string::npos);
  EXPECT_NE(g.source.find(
                "static __device__ __forceinline__ double identity() { return (double)(0.0); }"),
            std::string::npos);
  // Same name, different body: a different functor and a different id.
  CustomOp other{"absmax", "return a;", "0.0"};
  EXPECT_NE(OpSpec::from(other).id(), op.id());
}

TEST(Codegen, CompactionKernelsAndPredicates) {
  const CustomOp positive{"positive", "return x > 0;", "false"};
  KernelSpec s = spec("lookback_warp.tpb256.ipt16.vec4.warp_scans", DataType::Int32,
                      OpSpec::from(positive), ScanKind::Inclusive);
  s.heads = Heads::SelectIf;
  auto g = generate({s});
  ASSERT_EQ(g.name_expressions[0].size(), 1u);
  EXPECT_NE(g.name_expressions[0][0].find("select_kernel<int, scantune_user::pred_positive_int32_"),
            std::string::npos)
      << g.name_expressions[0][0];
  EXPECT_NE(g.name_expressions[0][0].find("scantune::SELECT_IF>"), std::string::npos);
  EXPECT_NE(g.source.find("__device__ __forceinline__ bool operator()(int x) const {\n"
                          "#line 1 \"predicate positive\"\nreturn x > 0;"),
            std::string::npos)
      << g.source;
  EXPECT_EQ(g.source.find("identity()"), std::string::npos); // a predicate has none
  EXPECT_EQ(s.id().substr(s.id().rfind('|')), "|select_if");
  // A partition counts first: its count kernel follows select_kernel (kernel 0 sizes grids).
  s.heads = Heads::PartitionIf;
  g = generate({s});
  ASSERT_EQ(g.name_expressions[0].size(), 2u);
  EXPECT_NE(g.name_expressions[0][0].find("select_kernel<"), std::string::npos);
  EXPECT_NE(g.name_expressions[0][1].find("select_count_kernel<"), std::string::npos);
  KernelSpec u = spec("lookback_warp.tpb256.ipt8.vec2.warp_scans", DataType::Float64,
                      OpSpec::from(Op::Sum), ScanKind::Inclusive);
  u.heads = Heads::Unique;
  EXPECT_NE(generate({u}).name_expressions[0][0].find(
                "select_kernel<double, scantune::op_sum<double>, scantune::KIND_INCLUSIVE"),
            std::string::npos);
  EXPECT_THROW(check_predicate(CustomOp{"2bad", "return x;", "false"}), InvalidArgument);
  EXPECT_THROW(check_predicate(CustomOp{"ok", " \n ", "false"}), InvalidArgument);
  EXPECT_NO_THROW(check_predicate(positive));
}

TEST(Codegen, RejectsBadOperators) {
  EXPECT_THROW(check_op(DataType::Float32, OpSpec::from(Op::BitXor)), Unsupported);
  EXPECT_NO_THROW(check_op(DataType::UInt64, OpSpec::from(Op::BitXor)));
  EXPECT_THROW(check_op(DataType::Int32, OpSpec::from(CustomOp{"2bad", "return a;", "0"})),
               InvalidArgument);
  EXPECT_THROW(check_op(DataType::Int32, OpSpec::from(CustomOp{"ok", "  ", "0"})), InvalidArgument);
  EXPECT_THROW(check_op(DataType::Int32, OpSpec::from(CustomOp{"ok", "return a;", ""})),
               InvalidArgument);
}

} // namespace
} // namespace scantune::detail

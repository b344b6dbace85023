// Struct-valued custom operators without a GPU: generated source, NVRTC compiles of
// every path they take for sm_80 and sm_90, the errors of bad structs, the C API's
// argument checks and the tuning database's problem text.
#include <optional>

#include <gtest/gtest.h>

#include "cache/tuning_db_test_util.hpp"
#include "codegen.hpp"
#include "common/expect_error.hpp"
#include "common/nvrtc_batch.hpp"
#include "common/struct_ops.hpp"
#include "dispatch.hpp"
#include "errors.hpp"
#include "kernel_registry.hpp"
#include "nvrtc_compiler.hpp"
#include "scantune/scantune.h"
#include "scantune/scantune.hpp"
#include "struct_values.hpp"

namespace scantune::detail {
namespace {

using test::kind_of;

std::vector<const CustomOp*> struct_ops() {
  return {&linear_recurrence_op(), &argmax_op(), &test::int3_sum_op(),
          &test::linear_recurrence_f64_op()};
}

KernelSpec struct_spec(const CustomOp& op, const Policy& p, ScanKind kind = ScanKind::Inclusive) {
  return {p, kStructStandIn, OpSpec::from(op), kind};
}

CustomOp with_struct(const char* source, const char* type, int bytes) {
  CustomOp op = linear_recurrence_op();
  op.value_struct = source;
  op.value_type = type;
  op.value_bytes = bytes;
  return op;
}

// The specs' kernels compile for `arch`, one batch (struct definitions never clash).
void compile_structs(const std::vector<KernelSpec>& specs, int arch) {
  for (const KernelSpec& s : specs)
    ASSERT_FALSE(struct_invalid_reason(s.policy, static_cast<std::size_t>(s.op.custom.value_bytes)))
        << s.id();
  test::compile_batch(specs, arch);
}

TEST(StructOpCodegen, SourceDefinesTheStructBesideItsFunctor) {
  const KernelSpec s = struct_spec(linear_recurrence_op(), default_struct_policy(8, 1u << 20));
  const GeneratedSource g = generate({s});
  EXPECT_NE(g.source.find("struct linear_recurrence_t { float a, b; };"), std::string::npos)
      << g.source;
  EXPECT_NE(g.source.find("static_assert(sizeof(linear_recurrence_t) == 8"), std::string::npos);
  EXPECT_NE(g.source.find("#line 1 \"struct of custom operator linear_recurrence\""),
            std::string::npos);
  ASSERT_EQ(g.name_expressions.size(), 1u);
  EXPECT_NE(g.name_expressions[0][0].find("_struct8_"), std::string::npos);
  EXPECT_NE(g.name_expressions[0][0].find("_v::linear_recurrence_t,"), std::string::npos)
      << g.name_expressions[0][0];
}

TEST(StructOpCodegen, TheStructIsPartOfTheOperatorsIdentity) {
  const CustomOp& op = linear_recurrence_op();
  CustomOp other = op;
  other.value_struct = "struct linear_recurrence_t { float b, a; };";
  EXPECT_NE(custom_op_hash(op), custom_op_hash(other));
  other = op;
  other.value_type.clear(); // a scalar operator of the same text
  other.value_struct.clear();
  other.value_bytes = 0;
  EXPECT_NE(custom_op_hash(op), custom_op_hash(other));
  EXPECT_NE(KernelSpec(struct_spec(op, default_struct_policy(8, 1u << 20))).id(),
            KernelSpec({default_struct_policy(8, 1u << 20), kStructStandIn, OpSpec::from(other),
                        ScanKind::Inclusive})
                .id());
}

class NvrtcStructCompile : public ::testing::TestWithParam<int> {};

TEST_P(NvrtcStructCompile, EveryOperatorsDefaultShapeBothKinds) {
  std::vector<KernelSpec> specs;
  // Each size band of the default and both kinds per operator.
  const std::uint64_t sizes[] = {1u << 18, 1u << 20, 1u << 22, 1u << 26};
  for (const CustomOp* op : struct_ops())
    for (std::size_t i = 0; i < 4; ++i)
      specs.push_back(struct_spec(*op, default_struct_policy(op->value_bytes, sizes[i]),
                                  i % 2 ? ScanKind::Exclusive : ScanKind::Inclusive));
  compile_structs(specs, GetParam());
}

// Every algorithm a struct may run, every block scan and tile I/O, vectors of one
// struct and of 16 bytes, the tile loop, cache hints and the reproducible look-back.
TEST_P(NvrtcStructCompile, EveryAlgorithmThatTakesStructs) {
  std::vector<KernelSpec> specs{struct_spec(linear_recurrence_op(), Policy::sequential())};
  const Algorithm algorithms[] = {Algorithm::SingleBlock, Algorithm::ReduceThenScan,
                                  Algorithm::Chained, Algorithm::LookbackThread,
                                  Algorithm::LookbackWarp};
  const BlockScan scans[] = {BlockScan::WarpScans, BlockScan::HillisSteele, BlockScan::Blelloch,
                             BlockScan::BlellochPadded};
  const TileIO ios[] = {TileIO::Transpose, TileIO::WarpTranspose, TileIO::Direct};
  int i = 0;
  for (Algorithm a : algorithms)
    for (BlockScan bs : scans) {
      Policy p;
      p.algorithm = a;
      p.block_scan = bs;
      p.block_threads = 128;
      p.items_per_thread = 4;
      p.io = ios[i % 3];
      p.vector_width = i % 2 ? 2 : 1;
      p.streaming = i % 4 == 1;
      p.tile_loop = p.one_tile_per_block() && i % 5 == 0;
      p.reproducible = a == Algorithm::LookbackWarp && bs == BlockScan::WarpScans;
      const CustomOp& op = i % 2 ? linear_recurrence_op() : test::int3_sum_op();
      specs.push_back(struct_spec(op, p, i % 3 ? ScanKind::Inclusive : ScanKind::Exclusive));
      ++i;
    }
  Policy wide = default_struct_policy(16, 1u << 20);
  wide.reproducible = true;
  specs.push_back(struct_spec(test::linear_recurrence_f64_op(), wide, ScanKind::Exclusive));
  compile_structs(specs, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Archs, NvrtcStructCompile, ::testing::Values(80, 90),
                         [](const auto& info) { return "sm_" + std::to_string(info.param); });

CompileError struct_compile_failure(const CustomOp& op) {
  return test::compile_failure(struct_spec(op, default_struct_policy(8, 1u << 20)));
}

TEST(StructOpErrors, BrokenStructSourceIsACompileErrorWithTheLog) {
  const CompileError e = struct_compile_failure(
      with_struct("struct linear_recurrence_t { float a, b }", "linear_recurrence_t", 8));
  const std::string what = e.what();
  EXPECT_EQ(e.kind(), ErrorKind::Compile);
  EXPECT_NE(what.find("struct of custom operator linear_recurrence"), std::string::npos) << what;
  EXPECT_NE(e.log().find("error"), std::string::npos) << e.log();
}

TEST(StructOpErrors, ValueBytesThatAreNotTheSizeofFailToCompile) {
  const CompileError e = struct_compile_failure(with_struct(
      "struct linear_recurrence_t { float a, b; int pad; };", "linear_recurrence_t", 8));
  EXPECT_EQ(e.kind(), ErrorKind::Compile);
  EXPECT_NE(std::string(e.what()).find("is not value_bytes = 8"), std::string::npos) << e.what();
}

TEST(StructOpErrors, StructsOverSixteenBytesOrNotWordsAreUnsupported) {
  Scanner s;
  auto* in = reinterpret_cast<const void*>(std::uintptr_t{0x10000});
  auto* out = reinterpret_cast<void*>(std::uintptr_t{0x80000});
  const CustomOp big = with_struct("struct big_t { float v[5]; short s; };", "big_t", 22);
  EXPECT_EQ(kind_of([&] { s.scan_struct(in, out, 10, big, ScanKind::Inclusive); }),
            ErrorKind::Unsupported);
  EXPECT_ERROR_NAMING(s.scan_struct(in, out, 10, big, ScanKind::Inclusive), "'big_t'", "22 bytes",
                      "4, 8, 12 or 16");
  const CustomOp odd = with_struct("struct odd_t { short a, b, c; };", "odd_t", 6);
  EXPECT_EQ(kind_of([&] { s.scan_struct(in, out, 10, odd, ScanKind::Exclusive); }),
            ErrorKind::Unsupported);
  EXPECT_EQ(kind_of([&] {
              s.scan_struct(in, out, 10, with_struct("struct z_t {};", "z_t", 0),
                            ScanKind::Inclusive);
            }),
            ErrorKind::InvalidArgument);
  EXPECT_ERROR_NAMING(s.scan_struct(in, out, 10, with_struct("", "t", 8), ScanKind::Inclusive),
                      "no source for its value type 't'");
  EXPECT_ERROR_NAMING(
      s.scan_struct(in, out, 10, with_struct("struct t {};", "not an id", 8), ScanKind::Inclusive),
      "'not an id' is not a C identifier");
}

TEST(StructOpErrors, ArgumentsAreCheckedBeforeAnyDeviceWork) {
  Scanner s;
  const CustomOp& op = linear_recurrence_op();
  auto at = [](std::uintptr_t a) { return reinterpret_cast<LinearRecurrence*>(a); };
  EXPECT_ERROR_NAMING(s.scan_struct(at(0), at(0x80000), 4, op, ScanKind::Inclusive),
                      "null input pointer with n = 4");
  EXPECT_ERROR_NAMING(s.scan_struct(at(0x10004), at(0x80000), 4, op, ScanKind::Inclusive),
                      "input pointer", "not aligned to its 8-byte linear_recurrence_t elements");
  EXPECT_ERROR_NAMING(s.scan_struct(at(0x10000), at(0x10008), 4, op, ScanKind::Inclusive),
                      "overlap");
  const test::Int3* int3 = nullptr;
  EXPECT_ERROR_NAMING(
      s.scan_struct(int3, const_cast<test::Int3*>(int3), 0, op, ScanKind::Inclusive),
      "the host struct has 12 bytes, value_bytes says 8");
  const CustomOp scalar{"plus", "return a + b;", "0"};
  EXPECT_ERROR_NAMING(s.scan_struct(at(0x10000), at(0x80000), 4, scalar, ScanKind::Inclusive),
                      "not struct-valued");
  // A struct operator on the typed scans' path is refused, not run on floats.
  float* f = reinterpret_cast<float*>(std::uintptr_t{0x10000});
  EXPECT_EQ(kind_of([&] {
              s.inclusive_scan(f, reinterpret_cast<float*>(std::uintptr_t{0x80000}), 4, op);
            }),
            ErrorKind::Unsupported);
  EXPECT_ERROR_NAMING(s.scan_struct(at(0x10000), at(0x80000), 4, op, ScanKind::Inclusive, nullptr,
                                    "lookback_pipelined.tpb256.ipt12.vec2.warp_scans"),
                      "cannot run on 8-byte structs");
}

TEST(StructPolicies, TheGpuSuitesKeysParseAndTakeStructs) {
  for (const char* key : test::struct_policy_keys()) {
    Policy p;
    ASSERT_NO_THROW(p = Policy::parse(key)) << key;
    EXPECT_EQ(p.key(), key);
    EXPECT_FALSE(struct_invalid_reason(p, 8)) << key;
  }
}

TEST(StructPolicies, WhatStructsRun) {
  for (std::size_t bytes : {4, 8, 12, 16})
    for (std::uint64_t n : {1ull, 1ull << 19, 1ull << 21, 1ull << 24, 1ull << 32})
      EXPECT_FALSE(struct_invalid_reason(default_struct_policy(bytes, n), bytes))
          << bytes << " " << n;
  Policy p = default_struct_policy(8, 1u << 20);
  p.vector_width = 4; // 32 bytes
  EXPECT_TRUE(struct_invalid_reason(p, 8));
  p = default_struct_policy(12, 1u << 20);
  p.streaming = true;
  EXPECT_TRUE(struct_invalid_reason(p, 12));
  EXPECT_FALSE(struct_invalid_reason(p, 16));
  EXPECT_TRUE(
      struct_invalid_reason(Policy::parse("lookback_bulk.tpb256.ipt12.vec2.warp_scans"), 8));
  EXPECT_TRUE(struct_invalid_reason(Policy::parse("lookback_warp.tpb1024.ipt16.vec1.warp_scans"),
                                    16)); // 256 KB of tile
}

TEST(StructCApi, Arguments) {
  scantune_scanner_t s = nullptr;
  ASSERT_EQ(scantune_scanner_create(&s, -1, nullptr, nullptr), SCANTUNE_SUCCESS)
      << scantune_last_error();
  scantune_struct_op_t op{};
  scantune_linear_recurrence_op(&op);
  EXPECT_STREQ(op.value_type, "linear_recurrence_t");
  EXPECT_EQ(op.value_bytes, 8);
  scantune_struct_op_t argmax{};
  scantune_argmax_op(&argmax);
  EXPECT_STREQ(argmax.name, "argmax");
  void* in = reinterpret_cast<void*>(std::uintptr_t{0x10000});
  void* out = reinterpret_cast<void*>(std::uintptr_t{0x80000});
  EXPECT_EQ(scantune_struct_scan(s, nullptr, 0, in, out, 4, nullptr, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scantune_last_error(), "null struct operator");
  EXPECT_EQ(scantune_struct_scan(nullptr, &op, 0, in, out, 4, nullptr, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scantune_struct_scan(s, &op, 1, nullptr, out, 4, nullptr, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scantune_last_error(), "null input pointer with n = 4");
  scantune_struct_op_t big = op;
  big.value_bytes = 24;
  EXPECT_EQ(scantune_struct_scan(s, &big, 0, in, out, 4, nullptr, nullptr),
            SCANTUNE_ERROR_UNSUPPORTED);
  scantune_struct_op_t untyped = op;
  untyped.value_type = nullptr;
  EXPECT_EQ(scantune_struct_scan(s, &untyped, 0, in, out, 4, nullptr, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scantune_struct_scan(s, &op, 0, in, out, 4, "bogus", nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scantune_scanner_destroy(s), SCANTUNE_SUCCESS);
}

TEST(StructDispatch, ProblemTextRoundTrip) {
  const ProblemName p =
      ProblemName::of(kStructStandIn, linear_recurrence_op(), ScanKind::Exclusive);
  EXPECT_EQ(p.struct_bytes, 8);
  EXPECT_EQ(p.problem_text(), "@struct8");
  EXPECT_EQ(p.label(), "struct8 linear_recurrence exclusive");
  ProblemName q;
  q.type = kStructStandIn;
  ASSERT_TRUE(q.set_problem_text("@struct16"));
  EXPECT_EQ(q.struct_bytes, 16);
  ProblemName wrong;
  wrong.type = DataType::Float32;
  EXPECT_FALSE(wrong.set_problem_text("@struct8"));
}

TEST(StructDispatch, UntunedPlanIsTheStructDefault) {
  Scanner s(ScannerOptions{-1, "off", {}});
  const Plan p = s.plan_struct(argmax_op(), ScanKind::Exclusive, 1u << 20);
  EXPECT_EQ(p.match, Match::BuiltIn);
  EXPECT_EQ(p.policy, default_struct_policy(8, 1u << 20).key());
  EXPECT_EQ(s.plan_struct(test::linear_recurrence_f64_op(), ScanKind::Inclusive, 1u << 20).policy,
            default_struct_policy(16, 1u << 20).key());
  EXPECT_ERROR_NAMING(s.plan_struct(CustomOp{"plus", "return a + b;", "0"}, ScanKind::Inclusive, 8),
                      "not struct-valued");
}

TEST(StructDispatch, TunedWinnersRoundTripThroughTheDatabase) {
  db::testing::TempDir dir;
  const ProblemName name =
      ProblemName::of(kStructStandIn, linear_recurrence_op(), ScanKind::Inclusive);
  const char* tuned = "lookback_warp.tpb128.ipt16.vec2.warp_scans";
  {
    auto tdb = db::TuningDb::open(dir / "tuning.db");
    const auto dev = tdb.add_device(db::testing::h100());
    db::BestEntry e = db::testing::make_best(dev, std::nullopt, "uint32", 1u << 24, 1000.0, tuned);
    e.op = name.op;
    e.op_hash = name.op_hash;
    e.kind = "inclusive";
    e.problem = name.problem_text();
    tdb.set_best(e);
    // A winner no struct can run (32-byte vectors) is ignored with a warning.
    e.size = 1u << 12;
    e.policy = "lookback_warp.tpb128.ipt16.vec4.warp_scans";
    tdb.set_best(e);
  }
  const auto entries = read_tuned_entries(dir / "tuning.db");
  ASSERT_TRUE(entries.has_value());
  const DispatchTable t(90, db::testing::h100().model(), *entries, "x");
  const Choice exact = t.resolve(name, 1u << 24);
  EXPECT_EQ(exact.match, Match::Exact);
  EXPECT_EQ(exact.policy.key(), tuned);
  EXPECT_EQ(t.resolve(name, 1u << 12).match, Match::NearestSize);
  // Another struct operator, or the same one on another kind: the built-in default.
  const Choice other =
      t.resolve(ProblemName::of(kStructStandIn, argmax_op(), ScanKind::Inclusive), 1u << 24);
  EXPECT_EQ(other.match, Match::BuiltIn);
  EXPECT_EQ(other.policy, default_struct_policy(8, 1u << 24));
  EXPECT_EQ(t.resolve(ProblemName::of(kStructStandIn, linear_recurrence_op(), ScanKind::Exclusive),
                      1u << 24)
                .policy,
            default_struct_policy(8, 1u << 24));
}

} // namespace
} // namespace scantune::detail

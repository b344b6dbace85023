// Converting scans' types: defaults, text, checks, their policies, their problem names
// and DB text, and the typed calls' argument errors (no GPU needed).
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "common/spec_sets.hpp"
#include "default_policies.hpp"
#include "dispatch.hpp"
#include "scan_request.hpp"

namespace scantune {
namespace {

using D = DataType;

TEST(ScanTypes, DefaultAccumulatorWidensTheOutput) {
  EXPECT_EQ(scan_types(D::Int8), (ScanTypes{D::Int8, D::Int32, D::Int8}));
  EXPECT_EQ(scan_types(D::UInt16), (ScanTypes{D::UInt16, D::UInt32, D::UInt16}));
  EXPECT_EQ(scan_types(D::Float16), (ScanTypes{D::Float16, D::Float32, D::Float16}));
  EXPECT_EQ(scan_types(D::BFloat16, D::Float32), (ScanTypes{D::BFloat16, D::Float32, D::Float32}));
  EXPECT_EQ(scan_types(D::UInt8, D::Int32), (ScanTypes{D::UInt8, D::Int32, D::Int32}));
  EXPECT_EQ(scan_types(D::Int32, D::Int64), (ScanTypes{D::Int32, D::Int64, D::Int64}));
  EXPECT_EQ(scan_types(D::Float64, D::Float16), (ScanTypes{D::Float64, D::Float64, D::Float16}));
  EXPECT_TRUE(scan_types(D::Float64).uniform());
  EXPECT_EQ(data_type_of<__half>(), D::Float16);
  EXPECT_EQ(data_type_of<__nv_bfloat16>(), D::BFloat16);
  EXPECT_EQ(data_type_of<bool>(), D::UInt8);
  EXPECT_TRUE((std::is_same_v<accumulator_t<std::int8_t>, std::int32_t>));
  EXPECT_TRUE((std::is_same_v<accumulator_t<__half>, float>));
  EXPECT_TRUE((std::is_same_v<accumulator_t<double>, double>));
}

TEST(ScanTypes, UnservablePairsAreUnsupported) {
  for (auto [in, out] : {std::pair{D::Int64, D::Int32}, std::pair{D::Float32, D::Int32},
                         std::pair{D::Float16, D::Int16}}) {
    try {
      scan_types(in, out);
      ADD_FAILURE() << to_string(in) << " -> " << to_string(out);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Unsupported) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::string(to_string(in))), std::string::npos);
    }
  }
  try {
    check_scan_types({D::Int8, D::Int8, D::Int8});
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find("cannot accumulate in int8"), std::string::npos);
  }
  EXPECT_THROW(visit_type(D::Int16, [](auto) { return 0; }), Error);
}

TEST(ScanTypes, TextRoundTrips) {
  EXPECT_EQ(to_string(scan_types(D::Int32)), "int32");
  EXPECT_EQ(to_string(scan_types(D::UInt8, D::Int32)), "uint8:int32");
  EXPECT_EQ(to_string(scan_types(D::Float16)), "float16:float32:float16");
  for (const ScanTypes& t : test::converting_types())
    EXPECT_EQ(parse_scan_types(to_string(t)), t) << to_string(t);
  EXPECT_EQ(parse_scan_types("int8"), scan_types(D::Int8));
  EXPECT_THROW(parse_scan_types("int8:int8"), Error);
  EXPECT_THROW(parse_scan_types("uint8:int32:int64:int64"), Error);
  EXPECT_THROW(parse_scan_types("uint8:short"), Error);
}

TEST(ScanTypes, PoliciesThatCannotConvertSayWhy) {
  const ScanTypes bytes = scan_types(D::UInt8, D::Int32);
  const auto bulk = Policy::parse("lookback_bulk.tpb256.ipt16.vec4.warp_scans.st6");
  EXPECT_FALSE(bulk.invalid_reason(D::Int32));
  EXPECT_FALSE(bulk.invalid_reason(bytes)); // it stages the bytes and converts as it reads
  // Its vectors too move the wider side: 8 int32 outputs are 32 bytes.
  const auto wide = Policy::parse("lookback_bulk.tpb256.ipt16.vec8.warp_scans.st6");
  ASSERT_TRUE(wide.invalid_reason(bytes));
  EXPECT_NE(wide.invalid_reason(bytes)->find("exceeds 16 bytes"), std::string::npos);
  // Stages of bytes, then two int32 output segments per consumer warp.
  EXPECT_EQ(bulk.dynamic_shared_bytes(bytes), 6u * 4096 + 2u * 4096 * 4);
  const auto pipelined = Policy::parse("lookback_pipelined.tpb256.ipt16.vec2.warp_scans.st4");
  ASSERT_TRUE(pipelined.invalid_reason(bytes));
  EXPECT_NE(pipelined.invalid_reason(bytes)->find("4, 8 or 16 bytes"), std::string::npos);
  const auto staged = Policy::parse("lookback_pipelined.tpb256.ipt24.vec4.warp_scans.wxpose");
  ASSERT_TRUE(staged.invalid_reason(bytes));
  EXPECT_NE(staged.invalid_reason(bytes)->find("one width"), std::string::npos);
  EXPECT_FALSE(Policy::parse("lookback_pipelined.tpb256.ipt24.vec8.warp_scans.wxpose")
                   .invalid_reason(scan_types(D::Float16)));
  // Vectors move the wider of input and output: 16 int8 elements, 4 int32 ones.
  EXPECT_FALSE(Policy::parse("lookback_warp.tpb128.ipt16.vec16.warp_scans")
                   .invalid_reason(scan_types(D::Int8)));
  EXPECT_TRUE(Policy::parse("lookback_warp.tpb128.ipt16.vec8.warp_scans").invalid_reason(bytes));
}

TEST(ScanTypes, ConvertedPoliciesRunEveryPairFromEveryBuiltInShape) {
  const char* shapes[] = {"lookback_bulk.tpb256.ipt32.vec4.warp_scans.st7",
                          "lookback_pipelined.tpb512.ipt12.vec4.warp_scans.st3",
                          "lookback_warp.tpb512.ipt32.vec2.warp_scans",
                          "single_block.tpb256.ipt24.vec2.hillis_steele", "sequential"};
  for (const ScanTypes& t : test::converting_types())
    for (const char* key : shapes)
      for (std::size_t n : {std::size_t{1} << 20, std::size_t{1} << 28}) {
        Policy tuned = Policy::parse(key);
        tuned.reverse = tuned.algorithm != Algorithm::Sequential;
        const Policy p = detail::converted_policy(tuned, t, n);
        EXPECT_FALSE(p.invalid_reason(t)) << key << " for " << to_string(t) << ": " << p.key();
        EXPECT_EQ(p.reverse, tuned.reverse) << p.key();
        if (p.algorithm != Algorithm::Sequential) {
          EXPECT_EQ(static_cast<std::size_t>(p.vector_width) *
                        std::max(size_of(t.in), size_of(t.out)),
                    16u)
              << p.key();
        }
      }
}

TEST(ScanTypes, ProblemNamesAndDatabaseText) {
  const auto p =
      detail::ProblemName::of(scan_types(D::UInt8, D::Int32), Op::Sum, ScanKind::Inclusive);
  EXPECT_EQ(p.type, D::Int32);
  EXPECT_EQ(p.label(), "uint8:int32 sum inclusive");
  EXPECT_EQ(p.problem_text(), "@uint8:int32");
  detail::ProblemName q;
  q.type = D::Int32;
  ASSERT_TRUE(q.set_problem_text("@uint8:int32"));
  ASSERT_TRUE(q.converts);
  EXPECT_EQ(*q.converts, *p.converts);
  q.type = D::Int64; // the DB's type column is the accumulator: a mismatch is not a problem
  EXPECT_FALSE(q.set_problem_text("@uint8:int32"));
  EXPECT_TRUE(q.set_problem_text("rows"));
  EXPECT_EQ(q.heads, detail::Heads::Periodic);
}

TEST(ScanTypes, TypedCallsCheckTheirArgumentsWithoutAGpu) {
  Scanner s;
  std::uint8_t* bytes = reinterpret_cast<std::uint8_t*>(std::uintptr_t{4096});
  std::int32_t* ints = reinterpret_cast<std::int32_t*>(std::uintptr_t{1 << 20});
  // In place across sizes.
  try {
    s.inclusive_scan(bytes, reinterpret_cast<std::int32_t*>(bytes), 100, Op::Sum);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("changes the element size"), std::string::npos);
  }
  // Misaligned output of its own type.
  try {
    s.inclusive_scan(bytes, reinterpret_cast<std::int32_t*>(std::uintptr_t{(1 << 20) + 2}), 100,
                     Op::Sum);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("4-byte int32"), std::string::npos) << e.what();
  }
  // Overlap measured at each side's width.
  EXPECT_THROW(s.inclusive_scan(reinterpret_cast<std::uint8_t*>(ints) + 396, ints, 100, Op::Sum),
               Error);
  // Bitwise operators follow the accumulator: fine on int8 (int32), not on half (float).
  EXPECT_THROW(s.inclusive_scan(reinterpret_cast<__half*>(bytes), reinterpret_cast<__half*>(bytes),
                                100, Op::BitXor),
               Error);
  // The segmented, axis, reduction and compaction calls take accumulator types only.
  try {
    s.reduce(reinterpret_cast<std::int8_t*>(bytes), reinterpret_cast<std::int8_t*>(ints), 100,
             Op::Sum);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find("a reduction takes 4- and 8-byte elements"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("not int8"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace scantune

namespace scantune {
namespace {

// The built-in fallback keeps costly custom operators (transcendental calls) off
// lookback_bulk, whose one reducer warp per tile their combine chain would bound.
TEST(CostlyCustomOperators, BuiltInFallbackAvoidsBulk) {
  const CustomOp absmax{"absmax", "return fabsf(a) > fabsf(b) ? a : b;", "0.0f"};
  const auto cheap = detail::ProblemName::of(DataType::Float32, absmax, ScanKind::Inclusive);
  const auto costly =
      detail::ProblemName::of(DataType::Float32, logaddexp_op(), ScanKind::Inclusive);
  EXPECT_FALSE(cheap.costly);
  EXPECT_TRUE(costly.costly);
  const detail::DispatchTable table(90, "NVIDIA H100 80GB HBM3", {}, "");
  const std::uint64_t n = std::uint64_t{1} << 28;
  EXPECT_EQ(table.resolve(cheap, n).policy.algorithm, Algorithm::LookbackBulk);
  const detail::Choice c = table.resolve(costly, n);
  EXPECT_NE(c.policy.algorithm, Algorithm::LookbackBulk);
  EXPECT_NE(c.source.find("costly"), std::string::npos) << c.source;
}

} // namespace
} // namespace scantune

#include <gtest/gtest.h>

#include "algorithms.hpp"
#include "policy.hpp"
#include "scantune/scantune.hpp"

namespace scantune {
namespace {

TEST(PolicyKey, DefaultIsTheDocumentedKey) {
  EXPECT_EQ(Policy{}.key(), "lookback_warp.tpb256.ipt12.vec4.warp_scans");
}

TEST(PolicyKey, RoundTripsEveryCanonicalKey) {
  for (auto alg : {Algorithm::SingleBlock, Algorithm::ReduceThenScan, Algorithm::Chained,
                   Algorithm::LookbackThread, Algorithm::LookbackWarp})
    for (auto bs : {BlockScan::WarpScans, BlockScan::HillisSteele, BlockScan::Blelloch,
                    BlockScan::BlellochPadded})
      for (auto io : {TileIO::Transpose, TileIO::Direct, TileIO::WarpTranspose})
        for (bool streaming : {false, true}) {
          Policy p;
          p.streaming = streaming;
          p.algorithm = alg;
          p.block_scan = bs;
          p.io = io;
          p.block_threads = 384;
          p.items_per_thread = 6;
          p.vector_width = 2;
          p.backoff_ns = p.uses_tile_status() ? 250 : 0;
          const std::string key = p.key();
          EXPECT_EQ(Policy::parse(key).key(), key);
          EXPECT_EQ(Policy::parse(key), p);
        }
  EXPECT_EQ(Policy::parse("sequential"), Policy::sequential());
  EXPECT_EQ(Policy::parse("lookback_thread.tpb128.ipt16.vec4.blelloch.direct.bo200").key(),
            "lookback_thread.tpb128.ipt16.vec4.blelloch.direct.bo200");
  EXPECT_EQ(Policy::parse("lookback_warp.tpb128.ipt20.vec4.warp_scans.wxpose.cs.bo100").key(),
            "lookback_warp.tpb128.ipt20.vec4.warp_scans.wxpose.cs.bo100");
  EXPECT_EQ(Policy::parse("lookback_warp.tpb128.ipt20.vec4.warp_scans.cs").io, TileIO::Transpose);
  EXPECT_EQ(Policy::parse("lookback_pipelined.tpb256.ipt12.vec4.warp_scans.wxpose.span4").key(),
            "lookback_pipelined.tpb256.ipt12.vec4.warp_scans.wxpose.span4");
  EXPECT_EQ(Policy::parse("lookback_warp.tpb256.ipt12.vec4.warp_scans.span4").lookback_span, 4);
  // Stages: only a count other than 3 shows in the key, last.
  EXPECT_EQ(Policy::parse("lookback_pipelined.tpb512.ipt16.vec4.warp_scans.wxpose.st4.span2").key(),
            "lookback_pipelined.tpb512.ipt16.vec4.warp_scans.wxpose.span2.st4");
  EXPECT_EQ(Policy::parse("lookback_pipelined.tpb512.ipt16.vec4.warp_scans.st4").stages, 4);
  EXPECT_EQ(Policy::parse("lookback_pipelined.tpb512.ipt16.vec4.warp_scans.st3").key(),
            "lookback_pipelined.tpb512.ipt16.vec4.warp_scans");
  EXPECT_EQ(Policy::parse("lookback_bulk.tpb256.ipt32.vec4.warp_scans.st6").key(),
            "lookback_bulk.tpb256.ipt32.vec4.warp_scans.st6");
  // A tile loop shows last, as ".loop".
  EXPECT_EQ(Policy::parse("lookback_warp.tpb256.ipt24.vec4.warp_scans.loop.wxpose.cs").key(),
            "lookback_warp.tpb256.ipt24.vec4.warp_scans.wxpose.cs.loop");
  EXPECT_TRUE(Policy::parse("chained.tpb64.ipt1.vec1.warp_scans.bo100.loop").tile_loop);
  EXPECT_FALSE(Policy::parse("lookback_warp.tpb256.ipt24.vec4.warp_scans").tile_loop);
  // ".xpose" is the default and is dropped from the canonical key.
  EXPECT_EQ(Policy::parse("chained.tpb64.ipt2.vec2.hillis_steele.xpose").key(),
            "chained.tpb64.ipt2.vec2.hillis_steele");
}

TEST(PolicyKey, ParseErrorsNameTheProblem) {
  auto message = [](const char* key) {
    try {
      Policy::parse(key);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("lookahead.tpb256.ipt12.vec4.warp_scans").find("unknown algorithm 'lookahead'"),
            std::string::npos);
  EXPECT_NE(message("lookback_warp.tpbX.ipt12.vec4.warp_scans").find("'tpb<number>'"),
            std::string::npos);
  EXPECT_NE(message("lookback_warp.tpb256.ipt12.vec4.kogge").find("block-scan algorithm 'kogge'"),
            std::string::npos);
  EXPECT_NE(message("lookback_warp.tpb256").find("expected <algorithm>"), std::string::npos);
  EXPECT_NE(message("sequential.tpb1").find("no tile parameters"), std::string::npos);
}

TEST(PolicyKey, MinBlocksAppearsOnlyWhereSet) {
  const char* key = "lookback_warp.tpb256.ipt12.vec4.warp_scans.loop.mb2";
  Policy p = Policy::parse(key);
  EXPECT_EQ(p.min_blocks, 2);
  EXPECT_EQ(p.key(), key);
  p.min_blocks = 0; // the default: absent from keys, so earlier keys are unchanged
  EXPECT_EQ(p.key(), "lookback_warp.tpb256.ipt12.vec4.warp_scans.loop");
  EXPECT_EQ(
      Policy::parse("single_block.tpb128.ipt8.vec4.blelloch.mb4").invalid_reason(DataType::Int32),
      std::nullopt);
  EXPECT_EQ(Policy::parse("lookback_warp.tpb256.ipt12.vec4.warp_scans.mb33")
                .invalid_reason(DataType::Int32)
                .value_or("valid"),
            "minimum blocks per SM 33 is outside [0, 32]");
  EXPECT_EQ(Policy::parse("lookback_bulk.tpb512.ipt16.vec4.warp_scans.st4.mb4")
                .invalid_reason(DataType::Int32)
                .value_or("valid"),
            "4 blocks x 608 threads exceed the 2048 threads an SM holds");
}

TEST(PolicyKey, ReproducibleIsAFlagOfTheLookBackAlgorithms) {
  const char* key = "lookback_pipelined.tpb256.ipt12.vec4.warp_scans.wxpose.repro";
  Policy p = Policy::parse(key);
  EXPECT_TRUE(p.reproducible);
  EXPECT_EQ(p.key(), key);
  EXPECT_FALSE(
      Policy::parse("chained.tpb128.ipt8.vec4.warp_scans.repro").invalid_reason(DataType::Float32));
  EXPECT_EQ(Policy::parse("reduce_then_scan.tpb128.ipt8.vec4.warp_scans.repro")
                .invalid_reason(DataType::Float32)
                .value_or("valid"),
            "a reproducible look-back applies only to chained and look-back algorithms, not "
            "reduce_then_scan");
}

// lookback_bulk's consumers holding xpose rows of up to 32 items in registers, for flat
// and segmented scans and select by flags whose input and output share a width above a
// byte.
TEST(PolicyKey, EarlyReleaseIsAFlagOfBulkRows) {
  const char* key = "lookback_bulk.tpb256.ipt32.vec4.warp_scans.st7.early";
  const Policy p = Policy::parse(key);
  EXPECT_TRUE(p.early_release);
  EXPECT_EQ(p.key(), key);
  EXPECT_FALSE(Policy::parse("lookback_bulk.tpb256.ipt32.vec4.warp_scans.st7").early_release);
  for (DataType t : {DataType::Int32, DataType::Float32, DataType::Int16, DataType::Float16})
    EXPECT_FALSE(p.invalid_reason(t)) << to_string(t);
  EXPECT_FALSE(Policy::parse("lookback_bulk.tpb256.ipt16.vec2.warp_scans.st7.early")
                   .invalid_reason(DataType::Float64));
  auto why = [](const char* k, const ScanTypes& t) {
    return Policy::parse(k).invalid_reason(t).value_or("valid");
  };
  const ScanTypes int32{DataType::Int32, DataType::Int32, DataType::Int32};
  EXPECT_EQ(why("lookback_warp.tpb256.ipt12.vec4.warp_scans.early", int32),
            "an early stage release applies only to lookback_bulk, not lookback_warp");
  EXPECT_EQ(why("lookback_bulk.tpb64.ipt32.vec4.warp_scans.direct.st7.early", int32),
            "an early stage release needs the xpose tile I/O and at most 32 items a thread, "
            "not direct and 32");
  EXPECT_EQ(why("lookback_bulk.tpb256.ipt64.vec16.warp_scans.st6.early",
                {DataType::Int8, DataType::Int8, DataType::Int8}),
            "an early stage release needs the xpose tile I/O and at most 32 items a thread, "
            "not xpose and 64");
  EXPECT_EQ(why("lookback_bulk.tpb256.ipt32.vec16.warp_scans.st6.early",
                {DataType::UInt8, DataType::Int32, DataType::UInt8}),
            "an early stage release needs input and output of one width above a byte, not "
            "uint8 -> uint8");
  EXPECT_EQ(why("lookback_bulk.tpb256.ipt16.vec4.warp_scans.st6.early",
                {DataType::UInt8, DataType::Int32, DataType::Int32}),
            "an early stage release needs input and output of one width above a byte, not "
            "uint8 -> int32");
  using detail::Heads;
  for (Heads h : {Heads::Flags, Heads::Keys32, Heads::Keys64, Heads::Offsets32, Heads::Offsets64,
                  Heads::SelectFlags, Heads::PartitionFlags})
    EXPECT_FALSE(detail::problem_invalid_reason(p, h, DataType::Int32)) << detail::to_string(h);
  EXPECT_EQ(detail::problem_invalid_reason(p, Heads::Unique, DataType::Int32).value_or("valid"),
            "lookback_bulk has no unique kernel (it selects and partitions by flags)");
}

TEST(PolicyKey, TilesPerTicketAreANumberOfFlatBulkRows) {
  const char* key = "lookback_bulk.tpb256.ipt16.vec4.warp_scans.st8.tk3.early";
  const Policy p = Policy::parse(key);
  EXPECT_EQ(p.tiles_per_ticket, 3);
  EXPECT_EQ(p.stages, 8);
  EXPECT_EQ(p.key(), key);
  EXPECT_EQ(Policy::parse("lookback_bulk.tpb256.ipt16.vec4.warp_scans.st7").tiles_per_ticket, 1);
  EXPECT_EQ(Policy::parse("lookback_bulk.tpb256.ipt16.vec4.warp_scans.st7.tk1").key(),
            "lookback_bulk.tpb256.ipt16.vec4.warp_scans.st7");
  EXPECT_FALSE(p.invalid_reason(DataType::Int32));
  auto why = [](const char* k) {
    return Policy::parse(k).invalid_reason(DataType::Int32).value_or("valid");
  };
  EXPECT_EQ(why("lookback_warp.tpb256.ipt12.vec4.warp_scans.tk2"),
            "tiles per ticket apply only to lookback_bulk, not lookback_warp");
  EXPECT_EQ(why("lookback_bulk.tpb256.ipt16.vec4.warp_scans.st7.tk9"),
            "tiles per ticket 9 is outside [1, 8]");
  EXPECT_EQ(why("lookback_bulk.tpb128.ipt8.vec4.warp_scans.st9.tk2"),
            "9 shared-memory stages is outside [3, 8]");
  using detail::Heads;
  EXPECT_EQ(detail::problem_invalid_reason(p, Heads::Flags, DataType::Int32).value_or("valid"),
            "segmented scans take one tile a ticket (no .tk<N>)");
  EXPECT_EQ(
      detail::problem_invalid_reason(p, Heads::SelectFlags, DataType::Int32).value_or("valid"),
      "compaction takes one tile a ticket (no .tk<N>)");
}

TEST(PolicyValidation, RejectsInvalidCombinationsWithAReason) {
  auto reason = [](const char* key, DataType t) {
    return Policy::parse(key).invalid_reason(t).value_or("valid");
  };
  EXPECT_EQ(reason("lookback_warp.tpb256.ipt12.vec4.warp_scans", DataType::Int32), "valid");
  EXPECT_EQ(reason("lookback_warp.tpb256.ipt12.vec4.warp_scans", DataType::Float64),
            "vector width 4 x 8 bytes exceeds 16 bytes");
  EXPECT_EQ(reason("lookback_warp.tpb256.ipt6.vec4.warp_scans", DataType::Int32),
            "items per thread 6 is not a multiple of the vector width 4");
  EXPECT_EQ(reason("lookback_warp.tpb100.ipt4.vec4.warp_scans", DataType::Int32),
            "block threads 100 is not a multiple of 32 in [32, 1024]");
  EXPECT_EQ(reason("lookback_warp.tpb256.ipt33.vec1.warp_scans", DataType::Int32),
            "items per thread 33 above 32 apply only to lookback_bulk");
  EXPECT_EQ(reason("lookback_bulk.tpb256.ipt65.vec1.warp_scans", DataType::Int32),
            "items per thread 65 is outside [1, 64]");
  EXPECT_EQ(reason("lookback_bulk.tpb256.ipt64.vec4.warp_scans", DataType::Int32), "valid");
  EXPECT_EQ(reason("lookback_warp.tpb256.ipt12.vec3.warp_scans", DataType::Int32),
            "vector width 3 is not a power of two");
  EXPECT_EQ(reason("single_block.tpb256.ipt12.vec4.warp_scans.bo100", DataType::Int32),
            "a backoff applies only to chained and look-back algorithms, not single_block");
  EXPECT_EQ(reason("lookback_thread.tpb256.ipt12.vec4.warp_scans.span4", DataType::Int32),
            "a look-back span applies only to lookback_warp, lookback_pipelined and lookback_bulk, "
            "not lookback_thread");
  EXPECT_EQ(reason("lookback_warp.tpb256.ipt12.vec4.warp_scans.span9", DataType::Int32),
            "look-back span 9 is outside [1, 8]");
  EXPECT_EQ(reason("lookback_pipelined.tpb256.ipt12.vec4.warp_scans.direct", DataType::Int32),
            "lookback_pipelined stages tiles in shared memory: it needs the xpose or wxpose tile "
            "I/O, not direct");
  // The stages are dynamic shared memory: 3 x 256 x 24 x 4 bytes (72 KB) is fine,
  // 3 x 1024 x 32 x 4 (384 KB) is more than any GPU gives a block.
  EXPECT_EQ(reason("lookback_pipelined.tpb256.ipt24.vec4.warp_scans", DataType::Int32), "valid");
  EXPECT_EQ(reason("lookback_pipelined.tpb1024.ipt32.vec4.warp_scans", DataType::Int32),
            "needs 393512 bytes of shared memory for int32 (3 tile stages; the largest any GPU "
            "allows one block is 232448)");
  EXPECT_EQ(reason("lookback_pipelined.tpb128.ipt8.vec4.warp_scans.st9", DataType::Int32),
            "9 shared-memory stages is outside [3, 8]");
  EXPECT_EQ(reason("lookback_warp.tpb128.ipt8.vec4.warp_scans.st4", DataType::Int32),
            "shared-memory stages apply only to lookback_pipelined and lookback_bulk, not "
            "lookback_warp");
  EXPECT_EQ(reason("lookback_thread.tpb256.ipt12.vec4.warp_scans.loop", DataType::Int32), "valid");
  EXPECT_EQ(reason("lookback_pipelined.tpb256.ipt12.vec4.warp_scans.loop", DataType::Int32),
            "a tile loop applies only to chained, lookback_thread and lookback_warp (one tile per "
            "block), not lookback_pipelined");
  EXPECT_EQ(reason("reduce_then_scan.tpb256.ipt12.vec4.warp_scans.loop", DataType::Int32),
            "a tile loop applies only to chained, lookback_thread and lookback_warp (one tile per "
            "block), not reduce_then_scan");
  // lookback_bulk: its own layout and copies, three role warps beside the consumers.
  EXPECT_EQ(reason("lookback_bulk.tpb256.ipt32.vec4.warp_scans.st6", DataType::Int32), "valid");
  EXPECT_EQ(reason("lookback_bulk.tpb256.ipt16.vec2.warp_scans.span2.st6", DataType::Float64),
            "valid");
  // Lane runs (one warp scan a segment) where the tile I/O is direct.
  EXPECT_EQ(reason("lookback_bulk.tpb512.ipt8.vec2.warp_scans.direct.st7", DataType::Int64),
            "valid");
  const char* fixed = "lookback_bulk takes the default block scan (warp_scans), the xpose or "
                      "direct tile I/O and no cache hints";
  EXPECT_EQ(reason("lookback_bulk.tpb256.ipt32.vec4.blelloch", DataType::Int32), fixed);
  EXPECT_EQ(reason("lookback_bulk.tpb256.ipt32.vec4.warp_scans.wxpose", DataType::Int32), fixed);
  EXPECT_EQ(reason("lookback_bulk.tpb256.ipt32.vec4.warp_scans.cs", DataType::Int32), fixed);
  EXPECT_EQ(reason("lookback_bulk.tpb960.ipt4.vec4.warp_scans", DataType::Int32),
            "lookback_bulk runs block threads + 96 = 1056 threads per block, more than 1024");
  // 8 stages of 256 x 32 x 4 bytes (256 KB) do not fit in any block.
  EXPECT_NE(reason("lookback_bulk.tpb256.ipt32.vec4.warp_scans.st8", DataType::Int32)
                .find("(8 tile stages; the largest any GPU allows one block is 232448)"),
            std::string::npos);
  EXPECT_EQ(reason("lookback_warp.tpb256.ipt24.vec4.warp_scans", DataType::Int32), "valid");
  EXPECT_NE(reason("lookback_warp.tpb1024.ipt32.vec2.warp_scans", DataType::Float64)
                .find("shared memory"),
            std::string::npos);
}

TEST(PolicyLaunch, BulkBlocksAddThreeRoleWarpsAndNeedSm90) {
  const Policy bulk = Policy::parse("lookback_bulk.tpb256.ipt32.vec4.warp_scans.st6");
  EXPECT_EQ(bulk.launch_threads(), 256 + 96);
  EXPECT_EQ(bulk.min_arch(), 90);
  EXPECT_TRUE(bulk.uses_tile_status());
  EXPECT_TRUE(bulk.stages_tiles());
  EXPECT_EQ(bulk.dynamic_shared_bytes(DataType::Int32), 6u * 256 * 32 * 4);
  const Policy warp = Policy::parse("lookback_warp.tpb256.ipt12.vec4.warp_scans");
  EXPECT_EQ(warp.launch_threads(), 256);
  EXPECT_EQ(warp.min_arch(), 80);
  EXPECT_FALSE(warp.stages_tiles());
}

TEST(PolicyNames, EnumsRoundTrip) {
  for (auto t : {DataType::Int32, DataType::UInt32, DataType::Int64, DataType::UInt64,
                 DataType::Float32, DataType::Float64})
    EXPECT_EQ(parse_data_type(to_string(t)), t);
  for (auto op : {Op::Sum, Op::Product, Op::Min, Op::Max, Op::BitAnd, Op::BitOr, Op::BitXor})
    EXPECT_EQ(parse_op(to_string(op)), op);
  EXPECT_THROW(parse_op("plus"), Error);
  EXPECT_THROW(parse_data_type("half"), Error);
}

} // namespace
} // namespace scantune

// Misuse gets clear errors before any device work (runs without a GPU).
#include <optional>

#include <gtest/gtest.h>

#include "common/expect_error.hpp"

#include "policy.hpp"
#include "scan_request.hpp"
#include "scantune/scantune.h"
#include "scantune/scantune.hpp"

namespace scantune {
namespace {

using test::error_of;

using test::kind_of;

// A fake but element-aligned device address: argument checks run before any use.
template <class T>
T* fake_ptr(std::uintptr_t a = 0x10000) {
  return reinterpret_cast<T*>(a);
}

TEST(Misuse, BitwiseOperatorOnFloat) {
  Scanner s;
  EXPECT_EQ(error_of([&] {
              s.inclusive_scan(fake_ptr<float>(), fake_ptr<float>(0x20000), 10, Op::BitXor);
            }),
            "operator bit_xor applies to integer types only, not float32");
}

TEST(Misuse, NullPointersWithElements) {
  Scanner s;
  EXPECT_EQ(error_of([&] { s.inclusive_scan<int>(nullptr, fake_ptr<int>(), 10, Op::Sum); }),
            "null input pointer with n = 10");
  EXPECT_EQ(
      error_of([&] { s.exclusive_scan<double>(fake_ptr<double>(), nullptr, 3, Op::Max, 0.0); }),
      "null output pointer with n = 3");
}

TEST(Misuse, ZeroElementsIsANoOpEvenWithNullPointers) {
  Scanner s;
  EXPECT_NO_THROW(s.inclusive_scan<int>(nullptr, nullptr, 0, Op::Sum));
}

TEST(Misuse, MisalignedAndOverlappingPointers) {
  Scanner s;
  EXPECT_NE(error_of([&] {
              s.inclusive_scan(fake_ptr<long long>(0x10004), fake_ptr<long long>(), 4, Op::Sum);
            }).find("not aligned to its 8-byte int64 elements"),
            std::string::npos);
  EXPECT_EQ(error_of([&] {
              s.inclusive_scan(fake_ptr<int>(0x10000), fake_ptr<int>(0x10008), 100, Op::Sum);
            }),
            "input and output ranges overlap without being identical");
}

TEST(Misuse, InvalidExplicitPolicy) {
  Scanner s;
  EXPECT_EQ(error_of([&] {
              scantune::detail::scan_with(
                  s, Policy::parse("lookback_warp.tpb256.ipt12.vec4.warp_scans"),
                  ScanKind::Inclusive, fake_ptr<double>(), fake_ptr<double>(0x40000), 8, Op::Sum);
            }),
            "policy lookback_warp.tpb256.ipt12.vec4.warp_scans cannot run on float64: vector width "
            "4 x 8 bytes "
            "exceeds 16 bytes");
}

TEST(Misuse, MalformedCustomOperator) {
  Scanner s;
  CustomOp op{"not an identifier", "return a;", "0"};
  EXPECT_NE(error_of([&] {
              s.inclusive_scan(fake_ptr<int>(), fake_ptr<int>(0x40000), 8, op);
            }).find("is not a C identifier"),
            std::string::npos);
}

TEST(Misuse, ErrorsCarryTheirKind) {
  Scanner s;
  EXPECT_EQ(kind_of([&] {
              s.inclusive_scan(fake_ptr<float>(), fake_ptr<float>(0x20000), 10, Op::BitXor);
            }),
            ErrorKind::Unsupported);
  EXPECT_EQ(kind_of([&] { s.inclusive_scan<int>(nullptr, fake_ptr<int>(), 10, Op::Sum); }),
            ErrorKind::InvalidArgument);
  EXPECT_EQ(kind_of([&] {
              s.scan_with("lookback_warp.tpb256", ScanKind::Inclusive, fake_ptr<int>(),
                          fake_ptr<int>(0x40000), 4, Op::Sum);
            }),
            ErrorKind::InvalidArgument);
  EXPECT_EQ(to_string(ErrorKind::Compile), "compile");
  EXPECT_EQ(to_string(ErrorKind::Database), "database");
}

// Planning needs no device: a caller can size its workspace before any GPU work.
TEST(Misuse, WorkspaceBytesFollowThePlan) {
  Scanner s(ScannerOptions{-1, "off", "off"});
  const std::size_t n = std::size_t{1} << 24;
  const Policy p = Policy::parse(s.plan(DataType::Int32, Op::Sum, ScanKind::Inclusive, n).policy);
  const std::size_t bytes = s.workspace_bytes(DataType::Int32, Op::Sum, ScanKind::Inclusive, n);
  if (p.uses_tile_status()) {
    EXPECT_GE(bytes, n / p.tile_items() * 8) << p.key(); // a status word per tile at least
  }
  EXPECT_EQ(s.workspace_bytes(DataType::Int32, Op::Sum, ScanKind::Inclusive, 0), 0u);
  EXPECT_EQ(
      kind_of([&] { s.workspace_bytes(DataType::Float32, Op::BitOr, ScanKind::Inclusive, n); }),
      ErrorKind::Unsupported);
}

TEST(Misuse, CallerWorkspaceNeedsAPointer) {
  Scanner s;
  EXPECT_EQ(error_of([&] {
              s.inclusive_scan(fake_ptr<int>(), fake_ptr<int>(0x40000), 4, Op::Sum, nullptr,
                               Workspace{nullptr, 64});
            }),
            "a workspace of 64 bytes with a null pointer");
}

TEST(CApi, PrepareAndWorkspaceArguments) {
  scantune_scanner_t s = nullptr;
  ASSERT_EQ(scantune_scanner_create(&s, -1, "off", nullptr), SCANTUNE_SUCCESS)
      << scantune_last_error();
  std::size_t bytes = 1;
  EXPECT_EQ(scantune_workspace_bytes(s, SCANTUNE_INT32, SCANTUNE_OP_SUM, 0, 0, &bytes),
            SCANTUNE_SUCCESS);
  EXPECT_EQ(bytes, 0u);
  EXPECT_EQ(scantune_workspace_bytes(s, SCANTUNE_INT32, SCANTUNE_OP_SUM, 0, 10, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scantune_prepare(s, SCANTUNE_FLOAT64, SCANTUNE_OP_BIT_XOR, 0, 10),
            SCANTUNE_ERROR_UNSUPPORTED);
  EXPECT_EQ(scantune_scan_ex(s, SCANTUNE_INT32, SCANTUNE_OP_SUM, 0, fake_ptr<int>(),
                             fake_ptr<int>(0x40000), 4, nullptr, nullptr, 64, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scantune_last_error(), "a workspace of 64 bytes with a null pointer");
  EXPECT_STREQ(scantune_last_error_log(), "");
  EXPECT_STREQ(scantune_status_string(SCANTUNE_ERROR_DATABASE), "tuning database error");
  EXPECT_EQ(scantune_scanner_destroy(s), SCANTUNE_SUCCESS);
}

TEST(Misuse, SegmentsNeedExactlyOneHeadSource) {
  Scanner scanner(ScannerOptions{-1, "off", {}});
  const auto* flags = fake_ptr<std::uint8_t>(0x90000);
  auto run = [&](Segments seg, int* out = fake_ptr<int>(0x40000)) {
    scanner.segmented_inclusive_scan(fake_ptr<int>(), out, 4, seg, Op::Sum);
  };
  EXPECT_EQ(error_of([&] { run(Segments{}); }),
            "a segmented scan needs head flags, a row length, keys or offsets (Segments::flags, "
            "::rows, ::keys_of, ::offsets_of); a row length of 0 has no rows");
  Segments both = Segments::flags(flags);
  both.row_length = 8;
  EXPECT_EQ(error_of([&] { run(both); }),
            "segments given by 2 head sources at once (flags, rows, keys, offsets: choose one)");
  EXPECT_EQ(kind_of([&] { run(both); }), ErrorKind::InvalidArgument);
  Segments odd = Segments::keys_of(fake_ptr<std::int32_t>(0x90000));
  odd.word_bytes = 2;
  EXPECT_EQ(error_of([&] { run(odd); }), "keys of 2 bytes: 4 or 8 expected");
  EXPECT_EQ(error_of([&] {
              run(Segments::keys_of(fake_ptr<std::int64_t>(0x90000)), fake_ptr<int>(0x90000 + 24));
            }),
            "the keys overlap the output");
  EXPECT_EQ(error_of([&] { run(Segments::flags(flags), fake_ptr<int>(0x90000 - 8)); }),
            "the head flags overlap the output");
  EXPECT_EQ(error_of([&] {
              scanner.segmented_exclusive_scan(fake_ptr<double>(), fake_ptr<double>(0x40000), 4,
                                               Segments::rows(2), Op::BitOr, 0.0);
            }),
            "operator bit_or applies to integer types only, not float64");
}

TEST(Misuse, AxisScanShapes) {
  Scanner scanner(ScannerOptions{-1, "off", {}});
  const std::size_t big = std::size_t{1} << 40;
  EXPECT_EQ(error_of([&] {
              scanner.axis_inclusive_scan(fake_ptr<int>(), fake_ptr<int>(0x40000), big, big, 2,
                                          Op::Sum);
            }),
            "an axis scan of 1099511627776 x 1099511627776 x 2 elements overflows");
  // Nothing to scan: no device work, no error (even with null pointers).
  EXPECT_EQ(error_of([&] { scanner.axis_inclusive_scan<int>(nullptr, nullptr, 0, 5, 7, Op::Sum); }),
            "no error");
  EXPECT_EQ(error_of([&] {
              scanner.axis_exclusive_scan<double>(nullptr, fake_ptr<double>(), 2, 3, 4, Op::Sum,
                                                  0.0);
            }),
            "null input pointer with n = 24");
}

TEST(Misuse, SegmentedScanRefusesPoliciesWithoutAKernelForItsHeads) {
  Scanner scanner(ScannerOptions{-1, "off", {}});
  const Policy p = Policy::parse("lookback_bulk.tpb256.ipt16.vec4.warp_scans.st4");
  const int init = 0;
  ScanRequest r = detail::make_request<int>(ScanKind::Inclusive, fake_ptr<int>(),
                                            fake_ptr<int>(0x40000), 4, Op::Sum, &init, nullptr, &p);
  r.segments = Segments::rows(2);
  EXPECT_EQ(
      error_of([&] { detail::ScannerAccess::scan(scanner, r); }),
      "policy lookback_bulk.tpb256.ipt16.vec4.warp_scans.st4 cannot run a segmented scan: "
      "lookback_bulk has no segmented kernel over rows (it takes head flags, keys and offsets)");
  const Policy q = Policy::parse("lookback_pipelined.tpb256.ipt12.vec4.warp_scans.st3");
  r.policy = &q;
  r.segments = Segments::flags(fake_ptr<std::uint8_t>(0x80000));
  EXPECT_EQ(error_of([&] { detail::ScannerAccess::scan(scanner, r); }),
            "policy lookback_pipelined.tpb256.ipt12.vec4.warp_scans cannot run a segmented "
            "scan: lookback_pipelined has no segmented kernel");
}

TEST(CApi, SegmentedScanArguments) {
  scantune_scanner_t s = nullptr;
  ASSERT_EQ(scantune_scanner_create(&s, -1, "off", nullptr), SCANTUNE_SUCCESS)
      << scantune_last_error();
  EXPECT_EQ(scantune_segmented_scan(s, SCANTUNE_INT32, SCANTUNE_OP_SUM, 0, fake_ptr<int>(),
                                    fake_ptr<int>(0x40000), 4, nullptr, 0, nullptr, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scantune_last_error()).find("needs head flags, a row length"),
            std::string::npos);
  EXPECT_EQ(scantune_scan_by_key(s, SCANTUNE_INT32, SCANTUNE_OP_SUM, 0, fake_ptr<int>(),
                                 fake_ptr<int>(0x40000), 4, nullptr, 4, nullptr, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scantune_last_error(), "null keys pointer");
  EXPECT_EQ(scantune_segmented_scan_offsets(s, SCANTUNE_INT32, SCANTUNE_OP_SUM, 0, fake_ptr<int>(),
                                            fake_ptr<int>(0x40000), 4, fake_ptr<int>(0x90000), 3, 2,
                                            nullptr, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scantune_last_error(), "offsets of 3 bytes: 4 or 8 expected");
  EXPECT_EQ(scantune_segmented_scan(s, SCANTUNE_INT32, SCANTUNE_OP_SUM, 1, fake_ptr<int>(),
                                    fake_ptr<int>(0x40000), 4, nullptr, 2, nullptr, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scantune_last_error(), "exclusive scan without an init value");
  EXPECT_EQ(scantune_scanner_destroy(s), SCANTUNE_SUCCESS);
}

TEST(Misuse, DeviceStartValuesAndReductions) {
  Scanner s;
  EXPECT_EQ(error_of([&] {
              s.inclusive_scan(fake_ptr<int>(), fake_ptr<int>(0x40000), 4, Op::Sum,
                               DeviceValue<int>{nullptr});
            }),
            "null device pointer for the inclusive scan's start value");
  EXPECT_NE(error_of([&] {
              s.exclusive_scan(fake_ptr<double>(), fake_ptr<double>(0x40000), 4, Op::Sum,
                               DeviceValue<double>{fake_ptr<double>(0x90004)});
            }).find("start value pointer"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { s.reduce<int>(fake_ptr<int>(), nullptr, 4, Op::Max); }),
            "null result pointer for a reduction");
  EXPECT_EQ(error_of([&] { s.reduce(fake_ptr<int>(0x10000), fake_ptr<int>(0x10008), 4, Op::Max); }),
            "the reduction's result overlaps its input");
  EXPECT_EQ(error_of([&] { s.reduce(fake_ptr<float>(), fake_ptr<float>(0x40000), 4, Op::BitOr); }),
            "operator bit_or applies to integer types only, not float32");
}

TEST(Misuse, CompactionArguments) {
  Scanner s;
  auto* count = fake_ptr<std::uint64_t>(0x90000);
  auto* flags = fake_ptr<std::uint8_t>(0xa0000);
  const Predicate positive{"positive", "return x > 0;"};
  EXPECT_EQ(error_of([&] {
              s.select_flagged(fake_ptr<int>(), flags, fake_ptr<int>(0x40000), 4, nullptr);
            }),
            "null device pointer for the count of selected items");
  EXPECT_EQ(error_of([&] {
              s.unique(fake_ptr<int>(), fake_ptr<int>(0x40000), 0,
                       fake_ptr<std::uint64_t>(0x90004));
            }),
            "the count pointer 0x90004 is not aligned to 8 bytes");
  EXPECT_EQ(error_of([&] {
              s.select_flagged<float>(fake_ptr<float>(), nullptr, fake_ptr<float>(0x40000), 4,
                                      count);
            }),
            "null flags pointer with n = 4");
  EXPECT_EQ(error_of([&] {
              s.partition_flagged<double>(fake_ptr<double>(), nullptr, fake_ptr<double>(0x40000), 4,
                                          count);
            }),
            "null flags pointer with n = 4");
  EXPECT_EQ(
      error_of([&] { s.select_if<int>(nullptr, fake_ptr<int>(0x40000), 4, positive, count); }),
      "null input pointer with n = 4");
  EXPECT_EQ(error_of([&] { s.unique<long long>(fake_ptr<long long>(), nullptr, 4, count); }),
            "null output pointer with n = 4");
  EXPECT_EQ(error_of([&] { s.partition_if(fake_ptr<int>(), fake_ptr<int>(), 4, positive, count); }),
            "a partition cannot run in place (it stores rejected items past their own index)");
  EXPECT_EQ(error_of([&] {
              s.select_flagged(fake_ptr<int>(), fake_ptr<std::uint8_t>(0x40002),
                               fake_ptr<int>(0x40000), 4, count);
            }),
            "the head flags overlap the output");
  EXPECT_EQ(error_of([&] {
              s.select_if(fake_ptr<int>(), fake_ptr<int>(0x40000), 4, positive,
                          fake_ptr<std::uint64_t>(0x40008));
            }),
            "the count of selected items overlaps the output");
  EXPECT_EQ(
      error_of([&] { s.select_if(fake_ptr<int>(), fake_ptr<int>(0x10004), 4, positive, count); }),
      "input and output ranges overlap without being identical");
  EXPECT_EQ(error_of([&] {
              s.select_if(fake_ptr<int>(), fake_ptr<int>(0x40000), 4, Predicate{"1x", "return 1;"},
                          count);
            }),
            "predicate name '1x' is not a C identifier (letters, digits, '_', at most 64)");
  EXPECT_EQ(
      error_of([&] {
        s.partition_if(fake_ptr<int>(), fake_ptr<int>(0x40000), 4, Predicate{"p", " "}, count);
      }),
      "predicate 'p' has an empty body");
  EXPECT_EQ(error_of([&] {
              s.run_select(DataType::Int32, Compaction::SelectIf, fake_ptr<int>(), nullptr, nullptr,
                           fake_ptr<int>(0x40000), 4, count, nullptr);
            }),
            "null predicate for a select_if");
  // Narrow elements move as they are: their checks are the element's own (alignment to
  // 2 bytes, a partition not in place), and lookback_bulk's 4- and 8-byte rows are refused.
  EXPECT_EQ(error_of([&] {
              s.run_select(DataType::Float16, Compaction::Unique, fake_ptr<std::uint8_t>(0x1001),
                           nullptr, nullptr, fake_ptr<std::uint16_t>(0x40000), 4, count, nullptr);
            }),
            "input pointer 0x1001 is not aligned to its 2-byte float16 elements");
  EXPECT_EQ(error_of([&] {
              s.partition_flagged(fake_ptr<std::int8_t>(), flags, fake_ptr<std::int8_t>(), 4,
                                  count);
            }),
            "a partition cannot run in place (it stores rejected items past their own index)");
  const Policy bulk = Policy::parse("lookback_bulk.tpb128.ipt32.vec16.warp_scans.st4");
  ScanRequest r = ScanRequest::compaction_of(DataType::UInt8, detail::Heads::SelectFlags,
                                             fake_ptr<std::uint8_t>(), flags,
                                             fake_ptr<std::uint8_t>(0x40000), 4, count, nullptr);
  r.policy = &bulk;
  EXPECT_EQ(error_of([&] { detail::ScannerAccess::scan(s, r); }),
            "policy lookback_bulk.tpb128.ipt32.vec16.warp_scans.st4 cannot run a compaction: "
            "lookback_bulk compacts 4- and 8-byte items, not uint8");
}

TEST(CApi, CompactionArguments) {
  scantune_scanner_t s = nullptr;
  ASSERT_EQ(scantune_scanner_create(&s, -1, "off", nullptr), SCANTUNE_SUCCESS)
      << scantune_last_error();
  auto* count = fake_ptr<std::uint64_t>(0x90000);
  EXPECT_EQ(scantune_compact(s, static_cast<scantune_compaction_t>(7), SCANTUNE_INT32,
                             fake_ptr<int>(), nullptr, nullptr, nullptr, fake_ptr<int>(0x40000), 4,
                             count, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scantune_last_error(), "unknown compaction code 7");
  EXPECT_EQ(scantune_compact(s, SCANTUNE_SELECT_IF, SCANTUNE_INT32, fake_ptr<int>(), nullptr,
                             nullptr, "return x > 0;", fake_ptr<int>(0x40000), 4, count, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scantune_last_error(),
               "predicate name '' is not a C identifier (letters, digits, '_', at most 64)");
  EXPECT_EQ(scantune_compact(s, SCANTUNE_PARTITION_FLAGGED, SCANTUNE_FLOAT64, fake_ptr<double>(),
                             nullptr, nullptr, nullptr, fake_ptr<double>(0x40000), 4, count,
                             nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scantune_last_error(), "null flags pointer with n = 4");
  // Narrow elements are checked as themselves (2-byte int16 here), not refused.
  EXPECT_EQ(scantune_compact(s, SCANTUNE_PARTITION_FLAGGED, SCANTUNE_INT16, fake_ptr<short>(),
                             fake_ptr<std::uint8_t>(0xa0000), nullptr, nullptr,
                             fake_ptr<short>(0x40001), 4, count, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scantune_last_error(),
               "output pointer 0x40001 is not aligned to its 2-byte int16 elements");
  EXPECT_EQ(scantune_compact(nullptr, SCANTUNE_UNIQUE, SCANTUNE_INT32, fake_ptr<int>(), nullptr,
                             nullptr, nullptr, fake_ptr<int>(0x40000), 4, count, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  std::uint64_t host = 0;
  EXPECT_EQ(scantune_selected_count(nullptr, nullptr, &host), SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scantune_last_error(), "null device pointer for the count of selected items");
  EXPECT_EQ(scantune_scanner_destroy(s), SCANTUNE_SUCCESS);
}

TEST(CApi, DeviceStartAndReduceArguments) {
  scantune_scanner_t s = nullptr;
  ASSERT_EQ(scantune_scanner_create(&s, -1, "off", nullptr), SCANTUNE_SUCCESS)
      << scantune_last_error();
  EXPECT_EQ(scantune_scan_from_device(s, SCANTUNE_INT32, SCANTUNE_OP_SUM, 1, fake_ptr<int>(),
                                      fake_ptr<int>(0x40000), 4, nullptr, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scantune_last_error(), "null device pointer for the scan's start value");
  EXPECT_EQ(scantune_reduce(s, SCANTUNE_INT64, SCANTUNE_OP_SUM, fake_ptr<long long>(), nullptr, 4,
                            nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scantune_last_error(), "null result pointer for a reduction");
  EXPECT_EQ(scantune_reduce(s, SCANTUNE_INT64, static_cast<scantune_op_t>(9), fake_ptr<long long>(),
                            fake_ptr<long long>(0x40000), 4, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scantune_scanner_destroy(s), SCANTUNE_SUCCESS);
}

TEST(CApi, StatusCodesAndMessages) {
  scantune_scanner_t s = nullptr;
  ASSERT_EQ(scantune_scanner_create(&s, -1, nullptr, nullptr), SCANTUNE_SUCCESS)
      << scantune_last_error();
  EXPECT_EQ(scantune_inclusive_scan(s, SCANTUNE_FLOAT32, SCANTUNE_OP_BIT_AND, fake_ptr<float>(),
                                    fake_ptr<float>(0x40000), 4, nullptr),
            SCANTUNE_ERROR_UNSUPPORTED);
  EXPECT_STREQ(scantune_last_error(),
               "operator bit_and applies to integer types only, not float32");
  EXPECT_EQ(scantune_inclusive_scan(s, SCANTUNE_INT32, SCANTUNE_OP_SUM, nullptr, fake_ptr<int>(), 4,
                                    nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scantune_last_error(), "null input pointer with n = 4");
  EXPECT_EQ(scantune_exclusive_scan(s, SCANTUNE_INT32, SCANTUNE_OP_SUM, fake_ptr<int>(),
                                    fake_ptr<int>(0x40000), 4, nullptr, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scantune_last_error(), "exclusive scan without an init value");
  EXPECT_EQ(scantune_scan_with_policy(s, "bogus", SCANTUNE_INT32, SCANTUNE_OP_SUM, 0,
                                      fake_ptr<int>(), fake_ptr<int>(0x40000), 4, nullptr, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scantune_last_error()).find("unknown algorithm 'bogus'"),
            std::string::npos);
  EXPECT_EQ(scantune_inclusive_scan(nullptr, SCANTUNE_INT32, SCANTUNE_OP_SUM, nullptr, nullptr, 0,
                                    nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scantune_status_string(SCANTUNE_ERROR_COMPILE), "kernel compilation failed");
  EXPECT_EQ(scantune_scanner_destroy(s), SCANTUNE_SUCCESS);
}

} // namespace
} // namespace scantune

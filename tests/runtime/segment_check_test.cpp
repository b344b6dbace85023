// SCANTUNE_CHECK's CSR contract: the first offending offset is named (no GPU needed).
#include <gtest/gtest.h>

#include "common/expect_error.hpp"
#include "common/scoped_env.hpp"
#include "segments.hpp"

namespace scantune::detail {
namespace {

TEST(SegmentCheck, AcceptsTheCsrContractWithEmptySegments) {
  EXPECT_NO_THROW(check_offsets_contract({0, 0, 3, 3, 3, 10}, 10));
  EXPECT_NO_THROW(check_offsets_contract({0}, 0));
}

TEST(SegmentCheck, NamesTheFirstBadOffset) {
  EXPECT_ERROR_NAMING(check_offsets_contract({1, 4, 10}, 10), "offsets[0] = 1, expected 0");
  EXPECT_ERROR_NAMING(check_offsets_contract({0, 5, 4, 3, 10}, 10),
                      "offsets[2] = 4 is less than offsets[1] = 5");
  EXPECT_ERROR_NAMING(check_offsets_contract({0, 12, 10}, 10), "offsets[1] = 12 exceeds n = 10");
  EXPECT_ERROR_NAMING(check_offsets_contract({0, 4, 9}, 10), "offsets[2] = 9, expected n = 10");
}

TEST(SegmentCheck, OnlyWithTheVariable) {
  {
    test::ScopedEnv off("SCANTUNE_CHECK", std::nullopt);
    EXPECT_FALSE(segment_check_requested());
  }
  test::ScopedEnv on("SCANTUNE_CHECK", "1");
  EXPECT_TRUE(segment_check_requested());
}

} // namespace
} // namespace scantune::detail

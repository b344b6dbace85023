// The descriptor comparison behind the ranks' argument check: pure host code.
#include <gtest/gtest.h>

#include "descriptor.hpp"

namespace scantune::nccl::detail {
namespace {

Descriptor sum_int32(std::size_t n = 10) {
  return make_descriptor(DataType::Int32, ScanKind::Inclusive, Op::Sum, nullptr, n,
                         ArgProblem::None, 0);
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(NcclDescriptor, AgreeingRanksGiveNoMessage) {
  // Chunk sizes and devices differ between ranks by design.
  EXPECT_EQ(compare_descriptors({sum_int32(0), sum_int32(5), sum_int32(7)}), "");
  EXPECT_EQ(compare_descriptors({sum_int32()}), "");
}

TEST(NcclDescriptor, NamesTheRanksOfEachType) {
  auto f = make_descriptor(DataType::Float32, ScanKind::Inclusive, Op::Sum, nullptr, 1,
                           ArgProblem::None, 2);
  const std::string msg = compare_descriptors({sum_int32(), sum_int32(), f, sum_int32()});
  EXPECT_TRUE(contains(msg, "element type: ranks 0, 1, 3 int32; rank 2 float32")) << msg;
  EXPECT_FALSE(contains(msg, "operator")) << msg;
}

TEST(NcclDescriptor, NamesOperatorAndKindDifferences) {
  auto max = make_descriptor(DataType::Int32, ScanKind::Inclusive, Op::Max, nullptr, 1,
                             ArgProblem::None, 0);
  const std::int32_t init = 0;
  auto excl =
      make_descriptor(DataType::Int32, ScanKind::Exclusive, Op::Sum, &init, 1, ArgProblem::None, 0);
  const std::string msg = compare_descriptors({sum_int32(), max, excl});
  EXPECT_TRUE(contains(msg, "operator: ranks 0, 2 sum; rank 1 max")) << msg;
  EXPECT_TRUE(contains(msg, "kind: ranks 0, 1 inclusive; rank 2 exclusive")) << msg;
}

TEST(NcclDescriptor, CustomOperatorsCompareBySource) {
  const CustomOp a{"absmax", "return fabs(a) > fabs(b) ? a : b;", "0.0"};
  const CustomOp b{"absmax", "return fabs(a) >= fabs(b) ? a : b;", "0.0"};
  const auto d = [](const CustomOp& c) {
    return make_descriptor(DataType::Float64, ScanKind::Inclusive, c, nullptr, 1, ArgProblem::None,
                           0);
  };
  EXPECT_EQ(compare_descriptors({d(a), d(a)}), "");
  const std::string msg = compare_descriptors({d(a), d(b)});
  EXPECT_TRUE(contains(msg, "operator: rank 0 custom operator")) << msg;
  auto builtin = make_descriptor(DataType::Float64, ScanKind::Inclusive, Op::Max, nullptr, 1,
                                 ArgProblem::None, 0);
  EXPECT_TRUE(contains(compare_descriptors({d(a), builtin}), "rank 1 max"));
}

TEST(NcclDescriptor, ExclusiveInitsMustAgree) {
  const double one = 1.0, two = 2.0;
  const auto d = [](const double* init) {
    return make_descriptor(DataType::Float64, ScanKind::Exclusive, Op::Sum, init, 1,
                           ArgProblem::None, 0);
  };
  EXPECT_EQ(compare_descriptors({d(&one), d(&one)}), "");
  EXPECT_TRUE(contains(compare_descriptors({d(&one), d(&two)}), "exclusive init")) << "";
}

TEST(NcclDescriptor, ReportsEveryRanksArgumentProblem) {
  auto null_ptr = make_descriptor(DataType::Int32, ScanKind::Inclusive, Op::Sum, nullptr, 5,
                                  ArgProblem::NullPointer, 1);
  auto wrong = make_descriptor(DataType::Int32, ScanKind::Inclusive, Op::Sum, nullptr, 5,
                               ArgProblem::WrongDevice, 3);
  const std::string msg = compare_descriptors({sum_int32(), null_ptr, wrong});
  EXPECT_TRUE(contains(msg, "rank 1: null input or output pointer with n = 5")) << msg;
  EXPECT_TRUE(contains(msg, "rank 2: the scanner runs on another device")) << msg;
}

TEST(NcclDescriptor, ForeignBytesAreNotAScan) {
  Descriptor garbage;
  garbage.magic = 42;
  EXPECT_TRUE(contains(compare_descriptors({sum_int32(), garbage}), "protocol"));
}

} // namespace
} // namespace scantune::nccl::detail

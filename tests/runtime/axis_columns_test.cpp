// Axis scans over few columns as struct scans (axis_columns.hpp): which shapes take
// them, and that their generated operators compile for sm_80 and sm_90.
#include <gtest/gtest.h>

#include <vector>

#include "axis_columns.hpp"
#include "common/nvrtc_batch.hpp"
#include "struct_values.hpp"

namespace scantune::detail {
namespace {

TEST(AxisColumns, EightToSixteenBytesOfColumnsBecomeAStruct) {
  EXPECT_FALSE(columns_struct_op(DataType::Int32, Op::Sum, 1));   // a flat scan
  EXPECT_FALSE(columns_struct_op(DataType::Int32, Op::Sum, 5));   // 20 bytes
  EXPECT_FALSE(columns_struct_op(DataType::Float64, Op::Sum, 3)); // 24 bytes
  EXPECT_FALSE(columns_struct_op(DataType::Int16, Op::Sum, 4));   // a storage type
  for (auto [type, inner, bytes] :
       std::vector<std::tuple<DataType, std::size_t, int>>{{DataType::Int32, 2, 8},
                                                           {DataType::Float32, 3, 12},
                                                           {DataType::Float32, 4, 16},
                                                           {DataType::Float64, 2, 16}}) {
    const CustomOp* op = columns_struct_op(type, Op::Max, inner);
    ASSERT_TRUE(op) << to_string(type) << " x " << inner;
    EXPECT_EQ(op->value_bytes, bytes);
    EXPECT_TRUE(op->is_struct());
    EXPECT_EQ(op, columns_struct_op(type, Op::Max, inner)); // kept for the process
    EXPECT_NE(op, columns_struct_op(type, Op::Min, inner));
  }
}

TEST(AxisColumns, OperatorsByTheirNames) {
  const CustomOp* op = columns_struct_op(DataType::Float32, Op::Sum, 4);
  EXPECT_EQ(op->name, "columns_float32x4_sum");
  EXPECT_EQ(columns_struct_op_named("columns_float32x4_sum"), op);
  EXPECT_EQ(columns_struct_op_named("columns_uint64x2_bit_xor"),
            columns_struct_op(DataType::UInt64, Op::BitXor, 2));
  for (const char* bad :
       {"columns_float32x5_sum", "columns_float32x_sum", "columns_float32x4", "columns_int16x4_sum",
        "columns_float32x4_avg", "colums_float32x4_sum", "columns_float32x4x_sum", "columns_"})
    EXPECT_EQ(columns_struct_op_named(bad), nullptr) << bad;
}

class NvrtcAxisColumns : public ::testing::TestWithParam<int> {};

TEST_P(NvrtcAxisColumns, OperatorsCompileOnTheStructDefault) {
  std::vector<KernelSpec> specs;
  for (auto [type, op, inner] :
       std::vector<std::tuple<DataType, Op, std::size_t>>{{DataType::Float32, Op::Sum, 4},
                                                          {DataType::Int32, Op::Max, 3},
                                                          {DataType::UInt64, Op::BitXor, 2},
                                                          {DataType::Float64, Op::Min, 2}}) {
    const CustomOp* c = columns_struct_op(type, op, inner);
    ASSERT_TRUE(c);
    specs.push_back({default_struct_policy(static_cast<std::size_t>(c->value_bytes), 1u << 24),
                     kStructStandIn, OpSpec::from(*c), ScanKind::Inclusive});
  }
  test::compile_batch(specs, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Archs, NvrtcAxisColumns, ::testing::Values(80, 90));

} // namespace
} // namespace scantune::detail

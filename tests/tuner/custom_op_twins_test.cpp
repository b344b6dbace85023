// The sample custom operators with compiled CUB twins: lookup by name, matching by
// body, identity and type (tuner/custom_op_twins.hpp).
#include <gtest/gtest.h>

#include "tuner/gpu/custom_op_twins.hpp"

namespace scantune::tuner {
namespace {

TEST(CustomOpTwins, NamesGiveTheStringifiedBodies) {
  const auto absmax = custom_op_twin_named("absmax");
  ASSERT_TRUE(absmax);
  EXPECT_EQ(absmax->name, "absmax");
  EXPECT_EQ(absmax->body, "return fabs(a) > fabs(b) ? a : b;");
  EXPECT_EQ(absmax->identity, "0");
  const auto product = custom_op_twin_named("shifted_product");
  ASSERT_TRUE(product);
  EXPECT_EQ(product->body, "return a * b + a + b;");
  EXPECT_FALSE(custom_op_twin_named("absmin"));
}

TEST(CustomOpTwins, MatchBodyIdentityAndType) {
  const CustomOp absmax = *custom_op_twin_named("absmax");
  EXPECT_EQ(custom_op_twin(absmax, DataType::Float32), Twin::AbsMax);
  EXPECT_EQ(custom_op_twin(absmax, DataType::Float64), Twin::AbsMax);
  EXPECT_FALSE(custom_op_twin(absmax, DataType::Int32)); // not built for integers
  // The name does not matter; the body and identity do.
  EXPECT_EQ(custom_op_twin({"mine", absmax.body, "0"}, DataType::Float32), Twin::AbsMax);
  EXPECT_FALSE(
      custom_op_twin({"absmax", "return fabs(a) >= fabs(b) ? a : b;", "0"}, DataType::Float32));
  EXPECT_FALSE(custom_op_twin({"absmax", absmax.body, "0.0"}, DataType::Float32));
  const CustomOp product = *custom_op_twin_named("shifted_product");
  EXPECT_EQ(custom_op_twin(product, DataType::UInt64), Twin::ShiftedProduct);
  EXPECT_FALSE(custom_op_twin(product, DataType::Int64));
}

} // namespace
} // namespace scantune::tuner

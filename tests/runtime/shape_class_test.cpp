// Length classes: a request's shape to its class, the class to and from problem text.
#include <string>

#include <gtest/gtest.h>

#include "dispatch.hpp"
#include "scan_request.hpp"
#include "shape_class.hpp"

namespace scantune::detail {
namespace {

TEST(ShapeClass, LengthBoundaries) {
  // Each class's largest length and the next one up.
  const std::uint64_t bounds[] = {2, 4, 8, 16, 256, 4096};
  for (int c = 1; c <= 6; ++c) {
    EXPECT_EQ(length_class(bounds[c - 1]).len, c);
    EXPECT_EQ(length_class(bounds[c - 1] + 1).len, c + 1);
  }
  EXPECT_EQ(length_class(1).len, 1);
  EXPECT_EQ(length_class(std::uint64_t{1} << 40).len, 7);
  EXPECT_EQ(length_class(0).len, 1); // never a real row; still a class, never unclassed
  EXPECT_EQ(length_class(16).inner, 0);
}

TEST(ShapeClass, InnerBoundaries) {
  EXPECT_EQ(axis_class(4, 2).inner, 1);
  EXPECT_EQ(axis_class(4, 32).inner, 1);
  EXPECT_EQ(axis_class(4, 33).inner, 2);
  EXPECT_EQ(axis_class(4, 64).inner, 2);
  EXPECT_EQ(axis_class(4, 65).inner, 3);
  EXPECT_EQ(axis_class(4, 1u << 20).inner, 3);
  EXPECT_EQ(axis_class(5000, 8).len, 7);
}

// The default axis policy of a class is made for its largest shape (0: unbounded).
TEST(ShapeClass, AxisClassShapes) {
  EXPECT_EQ(axis_class_shape(axis_class(3, 20)).len, 4u);
  EXPECT_EQ(axis_class_shape(axis_class(3, 20)).inner, 32u);
  EXPECT_EQ(axis_class_shape(axis_class(7, 50)).len, 8u);
  EXPECT_EQ(axis_class_shape(axis_class(7, 50)).inner, 64u);
  EXPECT_EQ(axis_class_shape(axis_class(5000, 5000)).len, 0u);
  EXPECT_EQ(axis_class_shape(axis_class(5000, 5000)).inner, 0u);
  EXPECT_EQ(axis_class_shape({}).len, 0u);
}

TEST(ShapeClass, OfRequests) {
  ScanRequest axis;
  set_axis(axis, 4, 1u << 24, 2);
  EXPECT_EQ(shape_class_of(axis), (ShapeClass{7, 1}));
  ScanRequest wide;
  set_axis(wide, 1u << 12, 4, 4096);
  EXPECT_EQ(shape_class_of(wide), (ShapeClass{2, 3}));
  ScanRequest rows;
  set_axis(rows, 1u << 20, 100, 1); // inner 1: batched rows
  EXPECT_EQ(problem_of(rows), Heads::Periodic);
  EXPECT_EQ(shape_class_of(rows), (ShapeClass{5, 0}));
  ScanRequest csr;
  csr.n = 1u << 20;
  // Never read: the class takes the counts only, no pass over the offsets.
  const auto* offsets = reinterpret_cast<const std::uint32_t*>(&csr);
  csr.segments = Segments::offsets_of(offsets, 64); // average 16384
  EXPECT_EQ(problem_of(csr), Heads::Offsets32);
  EXPECT_EQ(shape_class_of(csr), (ShapeClass{7, 0}));
  csr.segments.num_segments = 1u << 16; // average 16
  EXPECT_EQ(shape_class_of(csr), (ShapeClass{4, 0}));
  ScanRequest flags;
  flags.n = 1u << 20;
  flags.segments = Segments::flags(reinterpret_cast<const std::uint8_t*>(&flags));
  EXPECT_FALSE(shape_class_of(flags).classed());
  EXPECT_FALSE(shape_class_of(ScanRequest{}).classed());
}

TEST(ShapeClass, TextRoundTrip) {
  for (Heads h : {Heads::Periodic, Heads::Offsets32, Heads::Offsets64})
    for (int len = 1; len <= kLenClasses; ++len) {
      const std::string text = classed_problem_text(h, {len, 0});
      const auto back = parse_classed_heads(text);
      ASSERT_TRUE(back) << text;
      EXPECT_EQ(back->heads, h);
      EXPECT_EQ(back->shape, (ShapeClass{len, 0})) << text;
    }
  for (int len = 1; len <= kLenClasses; ++len)
    for (int inner = 1; inner <= kInnerClasses; ++inner) {
      const std::string text = classed_problem_text(Heads::Axis, {len, inner});
      const auto back = parse_classed_heads(text);
      ASSERT_TRUE(back) << text;
      EXPECT_EQ(back->shape, (ShapeClass{len, inner})) << text;
    }
  EXPECT_EQ(classed_problem_text(Heads::Periodic, length_class(200)), "rows.len_le256");
  EXPECT_EQ(classed_problem_text(Heads::Axis, axis_class(12, 2)), "axis.len_le16.inner_le32");
  EXPECT_EQ(classed_problem_text(Heads::Offsets64, length_class(5000)), "offsets64.len_gt4096");
  // Unclassed kinds and unclassed entries keep the text they always had.
  EXPECT_EQ(classed_problem_text(Heads::Flags, length_class(8)), "flags");
  EXPECT_EQ(classed_problem_text(Heads::Periodic, {}), "rows");
  EXPECT_EQ(parse_classed_heads("")->heads, Heads::None);
  EXPECT_FALSE(parse_classed_heads("rows")->shape.classed());
}

TEST(ShapeClass, BadTextRefusedWithAReason) {
  auto why = [](const char* text) {
    std::string reason;
    EXPECT_FALSE(parse_classed_heads(text, &reason)) << text;
    return reason;
  };
  EXPECT_EQ(why("columns"), "unknown problem 'columns'");
  EXPECT_NE(why("rows.len_le17")
                .find("unknown length class 'len_le17' (expected len_le2, len_le4, len_le8, "
                      "len_le16, len_le256, len_le4096, len_gt4096)"),
            std::string::npos);
  EXPECT_NE(why("flags.len_le16").find("a flags problem has no length class"), std::string::npos);
  EXPECT_NE(why(".len_le16").find("a flat problem has no length class"), std::string::npos);
  EXPECT_NE(why("rows.len_le16.inner_le32").find("class is its length only"), std::string::npos);
  EXPECT_NE(why("axis.len_le16").find("names its length and its inner columns"), std::string::npos);
  EXPECT_NE(why("axis.len_le16.inner_lt64").find("unknown inner class 'inner_lt64'"),
            std::string::npos);
  EXPECT_NE(why("rows.").find("unknown length class ''"), std::string::npos);
  EXPECT_FALSE(parse_classed_heads("rows.len_le16x"));
}

TEST(ShapeClass, ProblemNameCarriesTheClass) {
  ProblemName p = ProblemName::of(DataType::Int32, Op::Sum, ScanKind::Inclusive, Heads::Axis,
                                  axis_class(12, 200));
  EXPECT_EQ(p.problem_text(), "axis.len_le16.inner_gt64");
  EXPECT_EQ(p.label(), "int32 sum inclusive axis.len_le16.inner_gt64");
  ProblemName q;
  ASSERT_TRUE(q.set_problem_text("offsets32.len_le4096"));
  EXPECT_EQ(q.heads, Heads::Offsets32);
  EXPECT_EQ(q.shape, (ShapeClass{6, 0}));
  EXPECT_FALSE(q.set_problem_text("keys32.len_le16")); // keys: lengths unknown at dispatch
  // A kind that takes no class drops one given to it.
  EXPECT_FALSE(
      ProblemName::of(DataType::Int32, Op::Sum, ScanKind::Inclusive, Heads::Flags, length_class(8))
          .shape.classed());
}

TEST(ShapeClass, SlotsAreDistinctAndDense) {
  std::vector<bool> seen(kProblemSlots, false);
  auto mark = [&](Heads h, ShapeClass c) {
    const std::size_t s = problem_slot(h, c);
    ASSERT_LT(s, kProblemSlots);
    EXPECT_FALSE(seen[s]) << s;
    seen[s] = true;
  };
  for (std::size_t h = 0; h < kHeadsCount; ++h)
    mark(static_cast<Heads>(h), {});
  for (Heads h : {Heads::Periodic, Heads::Offsets32, Heads::Offsets64})
    for (int len = 1; len <= kLenClasses; ++len)
      mark(h, {len, 0});
  for (int len = 1; len <= kLenClasses; ++len)
    for (int inner = 1; inner <= kInnerClasses; ++inner)
      mark(Heads::Axis, {len, inner});
  for (bool s : seen)
    EXPECT_TRUE(s);
}

} // namespace
} // namespace scantune::detail

// Operators the library ships as CustomOp source (a problem of their own, tuned and
// dispatched like any custom operator).
#include "scantune/types.hpp"

namespace scantune {

const CustomOp& logaddexp_op() {
  // Equal operands give a + log(2): no inf - inf for two infinities of one sign.
  static const CustomOp op{"logaddexp",
                           "typedef decltype(a) T;\n"
                           "const T hi = a < b ? b : a, lo = a < b ? a : b;\n"
                           "if (lo == hi) return hi + T(0.69314718055994530942);\n"
                           "return hi + log1p(exp(lo - hi));",
                           "-__int_as_float(0x7f800000)"};
  return op;
}

const CustomOp& linear_recurrence_op() {
  // a: the earlier map, b: the later one; fmaf keeps h's rounding to one step.
  static const CustomOp op{"linear_recurrence",
                           "return linear_recurrence_t{a.a * b.a, fmaf(b.a, a.b, b.b)};",
                           "linear_recurrence_t{1.0f, 0.0f}",
                           "struct linear_recurrence_t { float a, b; };",
                           "linear_recurrence_t",
                           static_cast<int>(sizeof(LinearRecurrence))};
  return op;
}

const CustomOp& argmax_op() {
  // A maximum under the total order (value, -index): associative and commutative.
  static const CustomOp op{"argmax",
                           "return b.value > a.value || (b.value == a.value && b.index < a.index)"
                           " ? b : a;",
                           "argmax_t{-__int_as_float(0x7f800000), 0x7fffffff}",
                           "struct argmax_t { float value; int index; };",
                           "argmax_t",
                           static_cast<int>(sizeof(ValueIndex))};
  return op;
}

} // namespace scantune

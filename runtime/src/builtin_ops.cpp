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

} // namespace scantune

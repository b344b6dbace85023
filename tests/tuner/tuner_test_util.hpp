// tests/tuner/tuner_test_util.hpp: helpers shared by the tuner's tests.
#pragma once

#include "tuner/search/problem.hpp"

namespace scantune::tuner {

/// The problem every recording and most tests use.
inline Problem int32_sum_inclusive() {
  return Problem{DataType::Int32, detail::OpSpec::from(Op::Sum), ScanKind::Inclusive, {}};
}

} // namespace scantune::tuner

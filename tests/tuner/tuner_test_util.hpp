// tests/tuner/tuner_test_util.hpp: helpers shared by the tuner's tests.
#pragma once

#include <cstdio>

#include "tuner/run/tune.hpp"
#include "tuner/search/problem.hpp"

namespace scantune::tuner {

/// The problem every recording and most tests use.
inline Problem int32_sum_inclusive() {
  return Problem{DataType::Int32, detail::OpSpec::from(Op::Sum), ScanKind::Inclusive, {}};
}

/// run_tune with its report discarded: its exit code.
inline int run_tune_quietly(const TuneOptions& o) {
  std::FILE* out = std::tmpfile();
  const int rc = run_tune(o, out);
  std::fclose(out);
  return rc;
}

} // namespace scantune::tuner

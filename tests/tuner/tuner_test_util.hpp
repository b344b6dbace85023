// tests/tuner/tuner_test_util.hpp: helpers shared by the tuner's tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tuner/run/tune.hpp"
#include "tuner/search/evaluator.hpp"
#include "tuner/search/problem.hpp"

namespace scantune::tuner {

/// The problem every recording and most tests use.
inline Problem int32_sum_inclusive() {
  return Problem{DataType::Int32, detail::OpSpec::from(Op::Sum), ScanKind::Inclusive, {}};
}

/// A size's winner as the search left it: `p` at n in `ns`.
inline Result won_by(const Policy& p, std::uint64_t n, double ns) {
  Result r;
  r.policy = p;
  r.size = n;
  r.median_ns = ns;
  return r;
}

/// What `write` prints into a temporary file; it returns an exit code, expected 0.
inline std::string printed_by(const std::function<int(std::FILE*)>& write) {
  std::FILE* f = std::tmpfile();
  EXPECT_EQ(write(f), 0);
  std::rewind(f);
  std::string text;
  for (int c; (c = std::fgetc(f)) != EOF;)
    text += static_cast<char>(c);
  std::fclose(f);
  return text;
}

/// run_tune with its report discarded: its exit code.
inline int run_tune_quietly(const TuneOptions& o) {
  std::FILE* out = std::tmpfile();
  const int rc = run_tune(o, out);
  std::fclose(out);
  return rc;
}

/// Stands in for the GPU's timing where a test checks what the tuner does with times:
/// fixed ns per (policy key, size), size 0 meaning any size; anything else fails as a
/// wrong result ("mismatch at 7"). Records every call.
class FixedTimes : public Evaluator {
public:
  std::map<std::pair<std::string, std::uint64_t>, double> ns;
  std::vector<std::pair<std::string, std::uint64_t>> calls;

  FixedTimes() = default;
  explicit FixedTimes(const std::map<std::string, double>& at_any_size) {
    for (const auto& [key, t] : at_any_size)
      ns[{key, 0}] = t;
  }
  int calls_of(const std::string& key) const {
    return static_cast<int>(
        std::count_if(calls.begin(), calls.end(), [&](const auto& c) { return c.first == key; }));
  }
  Result measure(const Policy& policy, std::uint64_t n, Effort, double) override {
    calls.emplace_back(policy.key(), n);
    Result r;
    r.policy = policy;
    r.size = n;
    auto it = ns.find({policy.key(), n});
    if (it == ns.end()) it = ns.find({policy.key(), 0});
    if (it == ns.end()) {
      r.status = db::MeasurementStatus::WrongResult;
      r.message = "mismatch at 7";
      return r;
    }
    r.median_ns = r.min_ns = r.max_ns = it->second;
    r.samples = 10;
    return r;
  }
};

} // namespace scantune::tuner

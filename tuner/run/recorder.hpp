// The recorder of a tuning run: it wraps the real evaluator, stops on Ctrl-C,
// replays a resumed run's measurements and stores every new one in the DB.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cache/tuning_db.hpp"
#include "tuner/report/progress.hpp"
#include "tuner/search/evaluator.hpp"
#include "tuner/search/problem.hpp"

namespace scantune::tuner {

/// GB/s of a scan of n elements of p's type in ns (read + write).
double gbs_of(const Problem& p, std::uint64_t n, double ns);

using MemoKey = std::pair<std::string, std::uint64_t>; // (policy key, size)
/// A resumed run's measurements per (policy, size), oldest first: replayed in the
/// order they were made, so the strategy walks the same path up to the interrupt.
using Memo = std::map<MemoKey, std::deque<Result>>;

/// Wraps the real evaluator: stops on Ctrl-C, replays the measurements of a resumed
/// run, stores every new measurement in the DB and reports progress.
class Recorder : public Evaluator {
public:
  Recorder(Evaluator& inner, db::TuningDb& db, std::int64_t run, std::int64_t device,
           const Problem& problem, Progress& progress, Memo memo);

  Result measure(const Policy& policy, std::uint64_t n, Effort effort, double limit_ns) override;
  void prefetch(const std::vector<Policy>& policies) override { inner_.prefetch(policies); }

  std::size_t measured() const { return measured_; }
  std::size_t replayed() const { return replayed_; }

private:
  Evaluator& inner_;
  db::TuningDb& db_;
  std::int64_t run_, device_;
  Problem problem_;
  Progress& progress_;
  Memo memo_;
  std::size_t measured_ = 0, replayed_ = 0;
  std::uint64_t interrupt_after_ = 0;
};

} // namespace scantune::tuner

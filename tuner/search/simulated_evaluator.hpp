// Simulation mode: an evaluator that replays the measurements of a recorded tuning
// database (a real GPU run) instead of timing, so that strategies run, and are
// tested, without a GPU.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "cache/tuning_db.hpp"
#include "tuner/search/evaluator.hpp"
#include "tuner/search/problem.hpp"

namespace scantune::tuner {

class SimulatedEvaluator : public Evaluator {
public:
  /// Loads the measurements of `problem` on device model `model` (empty: the only
  /// model the database holds; throws scantune::Error naming the models if several,
  /// or when there is none).
  SimulatedEvaluator(const db::TuningDb& recorded, const Problem& problem, std::string model = {});

  /// The recorded result of (policy, n): with several, the one with the most
  /// samples (then the latest). A pair never recorded comes back Rejected with the
  /// message "not recorded". An Ok result slower than limit_ns comes back Timeout,
  /// as the GPU evaluator would report it.
  Result measure(const Policy& policy, std::uint64_t n, Effort effort, double limit_ns) override;

  /// The fastest recorded Ok result at n (what an ideal search would find).
  std::optional<Result> best_recorded(std::uint64_t n) const;
  /// Sizes with at least one recorded result, ascending.
  std::vector<std::uint64_t> recorded_sizes() const;
  /// The recorded device.
  const db::DeviceInfo& device() const { return device_; }
  /// measure() calls so far, and the GPU time they would have taken (median x samples).
  std::size_t calls() const { return calls_; }
  double simulated_ns() const { return simulated_ns_; }

private:
  db::DeviceInfo device_;
  std::map<std::pair<std::string, std::uint64_t>, Result> recorded_; // (policy key, size)
  std::size_t calls_ = 0;
  double simulated_ns_ = 0;
};

} // namespace scantune::tuner

// Evaluators measure one candidate policy at one size. The GPU evaluator compiles,
// verifies and times on the device; the simulated one replays a recorded database;
// wrappers record results in the tuning DB and report progress.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cache/tuning_db.hpp"
#include "scantune/policy.hpp"

namespace scantune::tuner {

/// How hard to time: Screen takes few samples (ranking many candidates), Confirm
/// samples until the median is stable (the numbers that pick winners).
enum class Effort { Screen, Confirm };

/// The outcome of one candidate at one size.
struct Result {
  Policy policy;
  std::uint64_t size = 0;
  db::MeasurementStatus status = db::MeasurementStatus::Ok;
  double median_ns = 0, min_ns = 0, max_ns = 0; ///< per call (Ok and Timeout)
  int samples = 0;
  double noise = 0; ///< relative spread of the samples: (q75 - q25) / median
  std::optional<int> registers, spill_bytes;
  std::string message; ///< why it failed

  bool ok() const { return status == db::MeasurementStatus::Ok; }
};

/// Thrown out of Evaluator::measure when the user interrupts (Ctrl-C): what was
/// measured so far is kept, and the run is marked interrupted.
struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted") {}
};

class Evaluator {
public:
  virtual ~Evaluator() = default;
  /// Verifies, then times, `policy` at n. `limit_ns` > 0: give up early with status
  /// Timeout once the candidate is clearly slower than that per call.
  virtual Result measure(const Policy& policy, std::uint64_t n, Effort effort, double limit_ns) = 0;
  /// A hint: these policies will be measured soon, in this order (the GPU evaluator
  /// compiles them on background threads meanwhile).
  virtual void prefetch(const std::vector<Policy>& /*policies*/) {}
};

} // namespace scantune::tuner

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
#include "policy.hpp"

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
  /// What a duel over a size bucket ranks by: the sum of the medians at two of its
  /// sizes (winner.hpp, bucket_duel); 0 for a plain measurement.
  double rank_ns = 0;

  bool ok() const { return status == db::MeasurementStatus::Ok; }
  /// What choosing between results compares: rank_ns when set, else the median.
  double rank() const { return rank_ns > 0 ? rank_ns : median_ns; }
};

/// A stored measurement as a Result (resumed runs, simulation). The DB keeps no
/// quartiles, so `noise` stays 0.
inline Result from_measurement(const db::Measurement& m) {
  Result r;
  r.policy = Policy::parse(m.policy);
  r.size = m.size;
  r.status = m.status;
  r.median_ns = m.median_ns.value_or(0);
  r.min_ns = m.min_ns.value_or(r.median_ns);
  r.max_ns = m.max_ns.value_or(r.median_ns);
  r.samples = m.samples;
  r.registers = m.registers;
  r.spill_bytes = m.spill_bytes;
  r.message = m.message;
  return r;
}

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
  /// compiles them on background threads meanwhile). A later hint is needed sooner:
  /// its policies go ahead of those of earlier hints not compiled yet.
  virtual void prefetch(const std::vector<Policy>& /*policies*/) {}
};

} // namespace scantune::tuner

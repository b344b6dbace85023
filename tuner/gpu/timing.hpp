// Timing rules shared by every timed thing (candidates and baselines): how many
// calls make one sample, when the median is stable, and the summary statistics.
// The CUDA-event plumbing lives in the GPU evaluator; this part is plain host code.
#pragma once

#include <functional>
#include <vector>

#include "tuner/search/evaluator.hpp"

namespace scantune::tuner {

struct SamplingPlan {
  int min_samples = 3;
  int max_samples = 7;
  double stable_tolerance = 0.02; ///< relative change of the median that counts as stable
  double max_seconds = 0.5;       ///< wall-clock cap of one measurement's sampling
};

/// Screen: a quick rank (3-7 samples, 2%); Confirm: until the median moves by less
/// than 0.5% over the last 2 samples (7-41 samples, at most 2 s).
SamplingPlan plan_for(Effort effort);

struct SampleStats {
  double median_ns = 0, min_ns = 0, max_ns = 0;
  double noise = 0; ///< (q75 - q25) / median
  int samples = 0;
};
SampleStats summarize(std::vector<double> per_call_ns);

/// Back-to-back calls per sample so that one sample lasts about `target_ns` (event
/// resolution and launch jitter average out on tiny inputs), in [1, cap].
int calls_per_sample(double estimated_call_ns, double target_ns = 200e3, int cap = 4096);

struct SamplingOutcome {
  SampleStats stats;
  bool over_limit = false; ///< stopped because the fastest sample exceeded limit_ns
};
/// Takes samples (`sample()` returns the per-call ns of one sample) until the plan's
/// stability rule or caps stop it. limit_ns > 0: stops as soon as the fastest sample
/// so far is slower than limit_ns (a candidate that cannot win).
SamplingOutcome sample_until_stable(const std::function<double()>& sample, const SamplingPlan& plan,
                                    double limit_ns);

} // namespace scantune::tuner

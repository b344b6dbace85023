// Sampling rules and statistics of the tuner's timings.
#include "tuner/gpu/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace scantune::tuner {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

} // namespace

SamplingPlan plan_for(Effort effort) {
  if (effort == Effort::Screen) return SamplingPlan{3, 7, 0.02, 0.5};
  return SamplingPlan{7, 41, 0.005, 2.0};
}

SampleStats summarize(std::vector<double> v) {
  SampleStats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.samples = static_cast<int>(v.size());
  s.min_ns = v.front();
  s.max_ns = v.back();
  s.median_ns = quantile(v, 0.5);
  s.noise = s.median_ns > 0 ? (quantile(v, 0.75) - quantile(v, 0.25)) / s.median_ns : 0;
  return s;
}

int calls_per_sample(double estimated_call_ns, double target_ns, int cap) {
  if (!(estimated_call_ns > 0)) return 1;
  const double calls = std::ceil(target_ns / estimated_call_ns);
  return static_cast<int>(std::clamp(calls, 1.0, static_cast<double>(cap)));
}

SamplingOutcome sample_until_stable(const std::function<double()>& sample, const SamplingPlan& plan,
                                    double limit_ns) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  std::vector<double> samples;
  std::vector<double> medians; // median after each sample
  SamplingOutcome out;
  while (static_cast<int>(samples.size()) < plan.max_samples) {
    samples.push_back(sample());
    const SampleStats now = summarize(samples);
    medians.push_back(now.median_ns);
    if (limit_ns > 0 && now.min_ns > limit_ns) {
      out.over_limit = true;
      break;
    }
    const int n = static_cast<int>(samples.size());
    if (n >= plan.min_samples && n >= 3) {
      const double before = medians[medians.size() - 3];
      if (std::abs(now.median_ns - before) <= plan.stable_tolerance * now.median_ns) break;
    }
    if (std::chrono::duration<double>(clock::now() - start).count() > plan.max_seconds &&
        n >= std::min(plan.min_samples, 3))
      break;
  }
  out.stats = summarize(std::move(samples));
  return out;
}

} // namespace scantune::tuner

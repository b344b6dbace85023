// The GPU evaluator: compiles candidates (on background threads), rejects kernels
// that spill or cannot launch, verifies each candidate against the host reference
// at adversarial sizes and at the timed size, then times whole Scanner calls with
// CUDA events, rotating through input/output buffers so that inputs smaller than
// the L2 cache are not timed hot (unless asked to). It also times the baselines:
// device-to-device memcpy and CUB DeviceScan. With a segmentation, every scan it
// runs is segmented, and CUB's baseline is its scan by key.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "tuner/gpu/segmentation.hpp"
#include "tuner/gpu/timing.hpp"
#include "tuner/search/evaluator.hpp"
#include "tuner/search/problem.hpp"

namespace scantune {
class KernelCache;
}

namespace scantune::tuner {

struct GpuEvaluatorOptions {
  bool hot = false;             ///< time back-to-back on the same buffers (hot L2)
  std::uint64_t seed = 1;       ///< input data (input_values.hpp)
  unsigned compile_threads = 0; ///< background NVRTC threads; 0 = hardware threads - 2
  /// Time calls as the host enqueues them (short calls then measure the host's launch
  /// rate and its jitter) instead of queued behind a GPU wait, back to back.
  bool host_bound = false;
  /// An executable that runs `compile-worker` (the scantune CLI): each background
  /// compile thread then hands its compiles to a helper process of it
  /// (compile_worker.hpp). Empty, or a helper that fails: NVRTC in this process.
  std::string compile_worker;
};

/// A baseline's timing, or why there is none.
struct BaselineResult {
  bool ok = false;
  SampleStats stats;
  std::string error;
};

class GpuEvaluator : public Evaluator {
public:
  /// Prepares inputs, outputs and the reference for sizes up to max_n on the
  /// scanner's device (which must exist). `cache` (may be null) is the on-disk
  /// kernel cache the background compiles write to. Throws scantune::Error when
  /// the device memory does not suffice.
  GpuEvaluator(Scanner& scanner, KernelCache* cache, const Problem& problem, std::uint64_t max_n,
               GpuEvaluatorOptions options = {});
  ~GpuEvaluator() override;

  Result measure(const Policy& policy, std::uint64_t n, Effort effort, double limit_ns) override;
  void prefetch(const std::vector<Policy>& policies) override;

  BaselineResult time_memcpy(std::uint64_t n);
  /// CUB DeviceScan with the problem's operator, verified first; not ok (with a
  /// reason) for custom operators. Segmented: CUB's scan by key (sums only), keyed
  /// by each element's segment index.
  BaselineResult time_cub(std::uint64_t n);
  /// The scanner's own choice of policy (no policy given: what an application's
  /// call runs, from the tuning database or the built-in defaults), verified first.
  BaselineResult time_dispatch(std::uint64_t n);

  /// Seconds spent filling inputs and computing the reference.
  double setup_seconds() const;
  /// Buffer pairs the timing rotates through at size n.
  std::size_t rotation_slots(std::uint64_t n) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Device bytes a GpuEvaluator for max_n elements of `type` allocates, with
/// `extra_per_element` bytes per element more (Segmentation::device_bytes_per_element).
std::uint64_t gpu_evaluator_bytes(DataType type, std::uint64_t max_n, std::uint64_t l2_bytes,
                                  std::uint64_t extra_per_element = 0);

} // namespace scantune::tuner

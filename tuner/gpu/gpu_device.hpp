// Choosing the GPU a command runs on, and the sizes that fit its memory: shared by
// `scantune tune`, `scantune bench` and `scantune devices`.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "device_query.hpp" // what the chosen GPU is (db::query_device)
#include "policy.hpp"

namespace scantune::tuner {

/// The CUDA devices this process sees, or why there are none ("0 devices", or the
/// runtime's error when there is no driver). Never throws.
struct GpuCount {
  int count = 0;
  std::string why_none;
};
GpuCount count_gpus();

/// Makes device `requested` (or the current device when -1) current and returns
/// its ordinal; throws UsageError (tune.hpp) when it is past `count`.
int use_device(int requested, int count);

/// The sizes of `sizes` whose GpuEvaluator (inputs, outputs, reference, CUB's
/// temporary storage and the scanner's workspace, with a reserve) fits the free
/// memory of the current device for `type`; `note` hears about each one skipped.
/// `extra_per_element`: device bytes per element more (a segmentation's).
std::vector<std::uint64_t> fitting_sizes(const std::vector<std::uint64_t>& sizes, DataType type,
                                         const std::function<void(const std::string&)>& note,
                                         std::uint64_t extra_per_element = 0);

} // namespace scantune::tuner

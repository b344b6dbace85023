// One size of a compaction or sort tuning on the GPU: the problem's input and host
// reference uploaded once, then each candidate run, checked and timed.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "scantune/scantune.hpp"
#include "tuner/run/tune_primitives.hpp"

namespace scantune::tuner {

struct PrimitiveTiming {
  std::string policy;
  std::optional<double> ns; ///< none: it failed (`error` says why)
  std::string error;
};

/// One size's candidates, and the bytes a call moves at least there: a compaction
/// reads its items (and flags) and writes the selected ones, a sort reads and writes
/// its keys and values once.
struct PrimitiveSize {
  std::vector<PrimitiveTiming> timings;
  double bytes = 0;
};

/// Times every candidate key at n; `before_each` runs before each candidate (it may
/// throw Interrupted). A candidate that fails to compile, launch or verify is kept
/// with its error.
PrimitiveSize time_primitive(Scanner& scanner, const PrimitiveProblem& p, std::uint64_t n,
                             std::uint64_t seed, const std::vector<std::string>& candidates,
                             cudaStream_t stream, const std::function<void()>& before_each);

/// Device bytes one size needs (inputs, outputs, references, the sort's alternate
/// buffers), without the scanner's smaller workspace.
std::uint64_t primitive_device_bytes(const PrimitiveProblem& p, std::uint64_t n);

} // namespace scantune::tuner

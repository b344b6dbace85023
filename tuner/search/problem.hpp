// One tuning problem: an element type, an operator (built-in or custom) and a
// scan kind. The tuner searches policies for each problem separately.
#pragma once

#include <string>

#include "codegen.hpp"
#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "tuner/gpu/segmentation.hpp"

namespace scantune::tuner {

struct Problem {
  DataType type = DataType::Int32;
  detail::OpSpec op;
  ScanKind kind = ScanKind::Inclusive;
  /// Segmented problems (`--segments`): how the input splits; flat by default. The
  /// GPU evaluator's head flags and CUB's keys are one copy for its largest size that
  /// every rotated buffer pair shares (only the values rotate). Built-in operators only.
  Segmentation segments = {};

  /// "sum", or a custom operator's name (the DB's `op` column).
  std::string op_name() const;
  /// "" for built-in operators, else the 16-hex-digit hash of the custom operator's
  /// body and identity (the DB's `op_hash` column).
  std::string op_hash() const;
  /// "int32 sum inclusive", "int32 sum inclusive rows:1024" (logs, progress, memo keys).
  std::string label() const;
  /// The tuning DB's `problem` column: "" (flat), "flags" or "rows".
  std::string problem() const { return segments.problem(); }
  /// Bytes a scan of n elements reads and writes (values, and head flags).
  double bytes(std::uint64_t n) const;
  /// The kernel specialization of `policy` for this problem.
  detail::KernelSpec spec(const Policy& policy) const;
};

} // namespace scantune::tuner

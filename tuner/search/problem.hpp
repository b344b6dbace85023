// One tuning problem: an element type, an operator (built-in or custom) and a
// scan kind. The tuner searches policies for each problem separately.
#pragma once

#include <string>

#include "codegen.hpp"
#include "policy.hpp"
#include "scantune/scantune.hpp"

namespace scantune::tuner {

struct Problem {
  DataType type = DataType::Int32;
  detail::OpSpec op;
  ScanKind kind = ScanKind::Inclusive;

  /// "sum", or a custom operator's name (the DB's `op` column).
  std::string op_name() const;
  /// "" for built-in operators, else the 16-hex-digit hash of the custom operator's
  /// body and identity (the DB's `op_hash` column).
  std::string op_hash() const;
  /// "int32 sum inclusive" (logs, progress).
  std::string label() const;
  /// The kernel specialization of `policy` for this problem.
  detail::KernelSpec spec(const Policy& policy) const;
};

} // namespace scantune::tuner

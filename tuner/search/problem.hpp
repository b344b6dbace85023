// One tuning problem: an element type (or a converting scan's types), an operator
// (built-in or custom) and a scan kind. The tuner searches policies for each problem
// separately.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "codegen.hpp"
#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "tuner/gpu/segmentation.hpp"

namespace scantune::tuner {

/// The tuning DB's `problem` text of a converting scan, "@uint8:int32": the runtime's
/// (ProblemName::problem_text), so that its dispatch reads the winners.
std::string converting_problem(const ScanTypes& types);
/// Whether a DB `problem` text names a converting scan or struct values ("@struct8"):
/// it starts with '@'; either has no memcpy baseline of its `type` column's width.
inline bool is_converting_problem(std::string_view problem) {
  return !problem.empty() && problem[0] == '@';
}

struct Problem {
  DataType type = DataType::Int32; ///< the accumulator (the DB's `type` column)
  detail::OpSpec op;
  ScanKind kind = ScanKind::Inclusive;
  /// Segmented problems (`--segments`): how the input splits; flat by default. The
  /// GPU evaluator's head flags and CUB's keys are one copy for its largest size that
  /// every rotated buffer pair shares (only the values rotate). Built-in operators only.
  Segmentation segments = {};
  /// A converting flat scan's types (acc == type), stored as a problem of its own:
  /// the runtime's ProblemName text "@uint8:int32". Built-in operators, flat only.
  std::optional<ScanTypes> converts = std::nullopt;

  /// A problem of `types`: converting unless uniform.
  static Problem of(const ScanTypes& types, const detail::OpSpec& op, ScanKind kind);
  /// The scan's types: `converts`, else `type` throughout.
  ScanTypes types() const { return converts ? *converts : ScanTypes{type, type, type}; }

  /// A struct-valued custom operator's value size (CustomOp::value_bytes), else 0: its
  /// `type` is the runtime's stand-in (uint32), its problem "@struct8".
  std::size_t struct_bytes() const;
  /// Bytes of one input and of one output element (a struct's size for struct values).
  std::size_t in_bytes() const;
  std::size_t out_bytes() const;
  /// The types whose element sizes size the search space's vectors and the device
  /// memory estimate: types(), or for struct values uint32 (4 bytes) or uint64 (more),
  /// whose candidates struct_invalid_reason then filters.
  ScanTypes size_types() const;
  /// Device bytes per element the evaluator holds beyond size_types()'s estimate: a
  /// struct's extra width in its two buffer pools and the reference; else 0.
  std::uint64_t extra_struct_bytes() const;

  /// "sum", or a custom operator's name (the DB's `op` column).
  std::string op_name() const;
  /// "" for built-in operators, else the 16-hex-digit hash of the custom operator's
  /// body and identity (the DB's `op_hash` column).
  std::string op_hash() const;
  /// "int32 sum inclusive", "int32 sum inclusive rows:1024", "uint8:int32 sum inclusive",
  /// "struct8 linear_recurrence inclusive"
  /// (logs, progress, memo keys).
  std::string label() const;
  /// The tuning DB's `problem` column: "" (flat), "flags", "rows.len_le256" (rows of
  /// 17 to 256 elements), "@uint8:int32" or "@struct8".
  std::string problem() const;
  /// Bytes a scan of n elements reads and writes (values, and head flags).
  double bytes(std::uint64_t n) const;
  /// The kernel specialization of `policy` for this problem.
  detail::KernelSpec spec(const Policy& policy) const;
};

} // namespace scantune::tuner

// Code generation: the CUDA source and NVRTC name expressions of one or more
// kernel specializations (type, operator, kind, policy).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "segments.hpp"

namespace scantune {
struct ScanRequest;
} // namespace scantune

namespace scantune::detail {

/// An owned operator: a built-in Op or a copy of a CustomOp.
struct OpSpec {
  Op op = Op::Sum;
  bool is_custom = false;
  CustomOp custom;

  static OpSpec from(const OpRef& ref);
  /// A reference to this operator (valid while this OpSpec lives).
  OpRef ref() const { return is_custom ? OpRef(custom) : OpRef(op); }
  /// "sum", or "custom:<name>:<first 16 hex digits of sha256(body, identity)>".
  std::string id() const;
};

/// The first 16 hex digits of sha256(body, identity[, struct source, name, size]): a custom
/// operator's `op_hash` in the tuning database and the suffix of its OpSpec::id().
std::string custom_op_hash(const CustomOp& op);

/// Everything that selects one compiled kernel set.
struct KernelSpec {
  Policy policy;
  DataType type = DataType::Int32;
  OpSpec op;
  ScanKind kind = ScanKind::Inclusive;
  Heads heads = Heads::None; ///< segmented scans: the segmented entry point
  /// A converting flat scan's types (acc == type): its kernels name In and Out.
  std::optional<ScanTypes> converts = std::nullopt;

  /// The element types in memory and the accumulator: `converts`, or `type` throughout.
  ScanTypes types() const { return converts ? *converts : ScanTypes{type, type, type}; }
  /// Stable text naming the specialization (used in cache keys and logs).
  std::string id() const;
};

/// The kernels a Scanner loads to run `r` with `policy` (scanner.cpp): what the tuner
/// compiles ahead of its calls.
KernelSpec kernel_spec_of(const Policy& policy, const ScanRequest& r);

/// Throws InvalidArgument/Unsupported when (type, op) cannot be combined or a
/// custom operator is malformed; policy problems are checked separately.
/// Allocation-free (the scan hot path calls it).
void check_op(DataType type, const OpRef& op);
/// The largest struct value of a struct-valued custom operator: a status slot's 4
/// words of 4-byte chunks (templates/tile_status.cuh).
inline constexpr int kMaxStructBytes = 16;
/// Throws InvalidArgument for a struct-valued operator's malformed fields and
/// Unsupported for a struct of more than 16 bytes or not a multiple of 4.
void check_struct_op(const CustomOp& op);
/// "struct8": a struct-valued operator's values as problem texts and logs name them.
std::string struct_type_text(int value_bytes);
/// The bytes struct_type_text(bytes) == text names (4 to 16, a multiple of 4), else 0.
int struct_type_bytes(std::string_view text);

/// Throws InvalidArgument when a compaction's predicate (carried as a CustomOp, see
/// ScanRequest::compaction) is malformed: a name that is not an identifier, an empty body.
void check_predicate(const CustomOp& predicate);
inline void check_op(DataType type, const OpSpec& op) {
  check_op(type, op.ref());
}

/// The kernels an algorithm launches, in launch order.
struct GeneratedSource {
  std::string name;                                       // program name for NVRTC logs
  std::string source;                                     // the translation unit
  std::vector<std::vector<std::string>> name_expressions; // per spec, in launch order
};

/// One translation unit holding every spec (batching amortizes NVRTC start-up).
GeneratedSource generate(const std::vector<KernelSpec>& specs);

/// SHA-256 of every embedded template source. Every generated source restates
/// it, so a cubin (and its disk-cache key) identifies the template release.
const std::string& template_sources_hash();

/// CUDA spelling of an element type ("int", "unsigned long long", ...).
const char* device_type_name(DataType t);
/// The device functor of a built-in operator on `t`: "scantune::op_sum<int>".
std::string builtin_op_functor(Op op, DataType t);

} // namespace scantune::detail

// The built-in tuning table: winners of real tuning runs compiled into the
// library (generated at build time from runtime/builtin/*.json by
// scantune_builtin_gen), so a GPU of a tuned architecture gets tuned scans
// without a tuning database.
#pragma once

#include <cstddef>
#include <cstdint>

#include "policy.hpp"
#include "scantune/scantune.hpp"

namespace scantune::detail {

struct BuiltinEntry {
  int arch;          ///< compute capability, major * 10 + minor
  const char* model; ///< the GPU model it was tuned on (db::DeviceInfo::model())
  DataType type;
  Op op;
  ScanKind kind;
  /// The tuning database's `problem` text: "" (a flat scan), "rows", "select_flags",
  /// "@uint8:int32" (ProblemName::problem_text).
  const char* problem;
  std::uint64_t size; ///< the size it was tuned at
  const char* policy; ///< canonical policy key
  double ns;          ///< its median time there
  /// The bucket's second winner for sizes up to lower_upto ("" and 0: none).
  const char* lower_policy = "";
  std::uint64_t lower_upto = 0;
};

struct BuiltinTable {
  const BuiltinEntry* entries;
  std::size_t count;
  const BuiltinEntry* begin() const { return entries; }
  const BuiltinEntry* end() const { return entries + count; }
};

/// Every built-in entry, sorted by (arch, model, type, op, kind, problem, size).
const BuiltinTable& builtin_table();

} // namespace scantune::detail

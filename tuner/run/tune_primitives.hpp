// `scantune tune --select LIST` and `--sort LIST`: compaction and radix sort tuned per
// size bucket. Each candidate of the problem's search space (primitive_space.hpp)
// runs once against a host reference, then is timed (the median of back-to-back
// calls); the fastest of each size is stored as its bucket's winner under the
// problem's own kind ("select_flags", "sort_pairs4"), where dispatch finds it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scantune/scantune.hpp"
#include "segments.hpp"
#include "tuner/search/primitive_space.hpp"

namespace scantune::tuner {

struct PrimitiveProblem {
  DataType type = DataType::Int32; ///< the element type of a compaction, a sort's key type
  detail::Heads compaction = detail::Heads::None; ///< select_flags, unique, partition_flags
  std::optional<std::size_t> sort_values;         ///< a sort's value size (0: keys only)

  /// The tuning database's `problem` text: "select_flags", "sort_pairs4".
  std::string problem() const;
  /// "int32 select_flags", "uint32 sort_pairs4".
  std::string label() const;
};

struct PrimitiveTuneOptions {
  std::vector<PrimitiveProblem> problems;
  std::vector<std::uint64_t> sizes; ///< empty: 2^10..2^28, bounded by free device memory
  SpaceOptions select_space = tuner::select_space();
  SortSpace sort_space = default_sort_space();
  std::string db_path; ///< empty: db::default_db_path()
  bool dry_run = false;
  int device = -1;
  std::uint64_t seed = 1;
  std::string command_line;
  /// The compile helper (GpuEvaluatorOptions::compile_worker): the CLI names itself.
  std::string compile_worker;
};

/// "select_flags,unique,partition_flags" or "all"; throws UsageError (tune.hpp) for
/// another name (the _if compactions take a caller's predicate: not tuned).
std::vector<detail::Heads> parse_compactions(std::string_view list);
/// "keys,pairs,pairs8" or "all" (pairs: 4-byte values); throws UsageError.
std::vector<std::size_t> parse_sort_values(std::string_view list);
/// Every type x compaction, then every type x sort; throws UsageError for a type other
/// than the six 4- and 8-byte ones.
std::vector<PrimitiveProblem> primitive_problems(const std::vector<DataType>& types,
                                                 const std::vector<detail::Heads>& compactions,
                                                 const std::vector<std::size_t>& sort_values);

/// The keys of a problem's candidates: its search space, and today's default policy
/// (so a winner is never slower than the untuned call).
std::vector<std::string> primitive_candidates(const PrimitiveProblem& p,
                                              const PrimitiveTuneOptions& o);

/// Runs the tuning (or with dry_run prints the problems, sizes and candidates) and
/// returns the exit code: 0 ok, 1 failure, 77 no GPU, 130 interrupted.
int run_primitive_tune(const PrimitiveTuneOptions& o, std::FILE* out = stdout);

} // namespace scantune::tuner

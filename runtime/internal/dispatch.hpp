// The dispatcher's knowledge: the tuned winners that apply to one GPU (its
// tuning-database entries of the same compute capability, and the built-in
// table), and the fallback chain that turns them into a Plan for a call.
// Immutable once built; a reload builds a new one.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "builtin_table.hpp"
#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "segments.hpp"
#include "shape_class.hpp"
#include "sort_policy.hpp"

namespace scantune::detail {

/// A problem as the tuning database names it.
struct ProblemName {
  DataType type = DataType::Int32;
  std::string op;      ///< "sum", ... or a custom operator's name
  std::string op_hash; ///< custom operators: hash of body and identity; else ""
  ScanKind kind = ScanKind::Inclusive;
  bool custom = false;
  /// A custom operator whose body calls transcendental functions (exp, log, pow, sin,
  /// ...): a costly combine, which the built-in fallback keeps off lookback_bulk.
  bool costly = false;
  Heads heads = Heads::None; ///< segmented scans: a problem kind of its own
  /// Rows, offsets and axis scans: their length class, part of the problem text
  /// ("rows.len_le256"); unclassed entries serve every class the classed ones miss.
  ShapeClass shape;
  /// A converting flat scan's types (acc == type): a problem of its own. The database
  /// stores its accumulator as `type` and problem_text() as `problem`.
  std::optional<ScanTypes> converts = std::nullopt;
  /// A struct-valued custom operator's value size (CustomOp::value_bytes): a problem of
  /// its own, stored with the stand-in `type` uint32 and the problem text "@struct8".
  int struct_bytes = 0;
  /// A radix sort of `type` keys moving values of this many bytes (0: keys only): a
  /// problem of its own, without operator or kind (stored as sum inclusive).
  std::optional<std::size_t> sorts = std::nullopt;

  static ProblemName of(DataType type, const OpRef& op, ScanKind kind, Heads heads = Heads::None,
                        ShapeClass shape = {});
  static ProblemName of(const ScanTypes& types, const OpRef& op, ScanKind kind);
  static ProblemName sort(DataType key, std::size_t value_bytes);
  /// "int32 sum inclusive", "int32 sum inclusive rows.len_le256", "uint8:int32 sum inclusive",
  /// "struct8 linear_recurrence inclusive", "uint32 sort_pairs4"
  std::string label() const;
  /// The database's `problem` text: "" (flat), "rows", "rows.len_le256",
  /// "axis.len_le16.inner_le32", ..., "@uint8:int32" (converting),
  /// "@struct8" (struct values), "sort_keys", "sort_pairs4", "sort_pairs8".
  std::string problem_text() const;
  /// Sets heads, shape and converts from a database `problem` text; false for an unknown
  /// one.
  bool set_problem_text(std::string_view text);
};

/// One tuned winner.
struct TunedEntry {
  int arch = 0;      ///< compute capability of the GPU it was tuned on, major * 10 + minor
  std::string model; ///< db::DeviceInfo::model()
  ProblemName problem;
  std::uint64_t size = 0;
  int bucket = 0;
  Policy policy;          ///< scans and compactions
  SortPolicy sort_policy; ///< sorts (problem.sorts)
  /// A second winner for the bucket's sizes n <= lower_upto (scans only).
  std::optional<Policy> lower;
  std::uint64_t lower_upto = 0;
  std::string policy_key() const { return problem.sorts ? sort_policy.key() : policy.key(); }
};

/// A Plan with its configuration parsed: what routes and launches use.
struct Choice {
  Policy policy;
  Match match = Match::BuiltIn;
  std::uint64_t tuned_size = 0;
  std::string source;
  /// Nonzero where the chosen winner's bucket holds two winners: sizes up to it run the
  /// lower one (routes keep one Choice of each).
  std::uint64_t split_upto = 0;
  Plan plan() const { return {policy.key(), match, tuned_size, source}; }
};

/// The same for a radix sort.
struct SortChoice {
  SortPolicy policy;
  Match match = Match::BuiltIn;
  std::uint64_t tuned_size = 0;
  std::string source;
  Plan plan() const { return {policy.key(), match, tuned_size, source}; }
};

class DispatchTable {
public:
  /// `db_entries` may hold entries of any GPU; those of another compute capability
  /// than `arch` are dropped. `db_path` names the database in Plan::source. `builtin`
  /// is the library's table (tests give their own).
  DispatchTable(int arch, std::string model, const std::vector<TunedEntry>& db_entries,
                std::string db_path, const BuiltinTable& builtin = builtin_table());

  /// The fallback chain (Exact, NearestSize, SameArch, BuiltIn) for n elements. A classed
  /// problem takes its class's entries first (this model's, then its arch's, then built-in
  /// rows of its class), else the unclassed problem's chain. Untuned axis scans take
  /// default_axis_policy for `axis`, else for their class's shape.
  Choice resolve(const ProblemName& problem, std::uint64_t n, AxisShape axis = {}) const;
  /// The same chain for a radix sort of `key` keys with values of `value_bytes` (0, 4,
  /// 8), ending at default_sort_policy.
  SortChoice resolve_sort(DataType key, std::size_t value_bytes, std::uint64_t n) const;

  int arch() const { return arch_; }
  const std::string& model() const { return model_; }
  const std::string& db_path() const { return db_path_; }
  /// Entries from the database for this model / other models of this arch.
  std::size_t own_entries() const;
  std::size_t same_arch_entries() const;
  std::size_t builtin_entries() const;

private:
  using Entries = std::vector<TunedEntry>;
  enum class Models { Own, Others, Any };
  const TunedEntry* nearest(const Entries& entries, std::uint64_t n, Models which) const;
  // The built-in rows of the problem closest to `problem` among those with a row of
  // `which` models (Own: this GPU model's; Any: every table of its architecture).
  const Entries* most_similar_builtin(const ProblemName& problem, Models which) const;
  // The nearest built-in row to n of `problem` with another type of the same size.
  const TunedEntry* nearest_type_twin(const ProblemName& problem, std::uint64_t n,
                                      Models which) const;
  /// The entry the chain picks (null: none, the heuristic), its match and source.
  struct Pick {
    const TunedEntry* entry = nullptr;
    Match match = Match::BuiltIn;
    std::string source;
  };
  Pick pick(const ProblemName& problem, std::uint64_t n) const;

  int arch_;
  std::string model_, db_path_;
  std::map<std::string, Entries> db_;      // problem key -> entries of this arch
  std::map<std::string, Entries> builtin_; // problem key -> built-in entries of this arch
};

/// Every winner in the tuning database at `path`, read-only; nothing (nullopt)
/// when there is no database there. Winners whose policy key no longer parses are
/// skipped with a warning. Throws scantune::Error for a file that cannot be read.
std::optional<std::vector<TunedEntry>> read_tuned_entries(const std::filesystem::path& path);

/// Whether a winner tuned at `tuned_size` may serve n elements: one-block and
/// one-thread algorithms serve their own bucket and smaller ones only (their time
/// grows linearly with n: measured on the H100, a 2^12 single-block winner ran
/// 2^13 1.43x slower than the best there).
bool applies_to(const Policy& p, std::uint64_t tuned_size, std::uint64_t n);

} // namespace scantune::detail

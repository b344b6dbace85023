// The library's built-in tuning table (runtime/src/builtin_table.hpp) and its
// committed format, runtime/builtin/*.json: one file per GPU model holding only
// the rows dispatch uses, each with the numbers behind it, and a provenance header
// (docs/dispatch.md, "The built-in table").
//
// scantune_builtin_gen --table writes such a file from `scantune export` documents
// (and earlier tables, later inputs winning per bucket); at build time
// scantune_builtin_gen --out turns the tables into C++. The tests call both directly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scantune/scantune.hpp"

namespace scantune::builtin {

/// One input document and the name it is cited by (its file name).
struct Source {
  std::string name;
  nlohmann::json doc;
  std::string sha256 = {}; ///< of the file's bytes, where read from a file
};

/// One dispatch entry and where its numbers come from.
struct Row {
  DataType type;
  Op op;
  ScanKind kind;
  /// The tuning database's `problem` text: "" (a flat scan), "rows", "select_flags",
  /// "@uint8:int32"; written only where not empty, so flat rows read as before.
  std::string problem;
  std::uint64_t size; ///< the size it was tuned at, in the bucket it serves
  std::string policy; ///< canonical key, valid for `type` and `problem`
  /// The bucket's second winner, for sizes up to lower_upto ("" and 0: none); written
  /// only where there is one.
  std::string lower_policy;
  std::uint64_t lower_upto = 0;
  double ns;                                   ///< its median time at `size`, to 0.1 ns
  std::optional<double> gbs, x_cub, of_memcpy; ///< CUB's and memcpy's time over `ns`
  std::string measured_at;                     ///< when it last won its bucket
  std::string run; ///< the tuning run that measured it: its uid's first 8 digits
};

/// A row with the fields that name it (type, op, kind, problem, size, policy) read from `e`, a
/// table row or an export's best entry (both spell them alike); the rest left to the caller.
Row row_named_by(const nlohmann::json& e);

/// A built-in table: one GPU model's entries, at most one per (type, op, kind, problem,
/// bucket).
struct Table {
  std::string model; ///< db::DeviceInfo::model(): the name dispatch matches
  std::string name;  ///< the CUDA device name
  int arch = 0;      ///< compute capability, major * 10 + minor
  int sm_count = 0;
  std::vector<nlohmann::ordered_json> sources; ///< the exports merged in, oldest first
  std::vector<nlohmann::ordered_json> runs;    ///< the tuning runs of the rows
  std::vector<Row> rows;
};

/// Throws scantune::Error unless the row's policy is canonical and valid for its
/// type and problem and its size and time are positive.
void check_row(const Row& row);

/// "int32 sum inclusive", "int32 sum inclusive rows": errors and generated comments.
std::string row_label(const Row& row);

/// The order of rows in a table, (type, op, kind, problem, size); rows of one bucket are
/// equal.
bool row_before(const Row& a, const Row& b);

/// The table of an export's best entries of built-in operators (custom operators'
/// sources are not known to the library), with CUB's and memcpy's times from its
/// baselines. Throws scantune::Error naming the document and `best[i]` for anything
/// malformed, and for entries of more than one GPU model.
Table table_of_export(const Source& export_doc);

/// A committed table (the text table_json writes). Throws naming `entries[i]`.
Table parse_table(const Source& table_doc);

/// Either of the two above, by the document's "format".
Table read_input(const Source& doc);

/// One table of one GPU model: a later table's row replaces an earlier one's of the
/// same bucket (a re-search's winner dueled the table's entry in its own run).
Table merge(const std::vector<Table>& tables);

/// The committed text: a header, then one line per source, run and row, rows sorted
/// by (type, op, kind, problem, size). `command` is recorded as the command that wrote it.
std::string table_json(const Table& table, const std::string& command);

/// The C++ source defining detail::builtin_table(): every row of the committed
/// tables in `sources`, sorted by (arch, model, type, op, kind, problem, size). Throws
/// scantune::Error for a document that is not a table and for two rows of a bucket.
std::string generate_table_source(const std::vector<Source>& sources);

} // namespace scantune::builtin

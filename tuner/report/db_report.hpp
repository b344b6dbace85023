// What `scantune show`, `compare` and `plot` read from a tuning database: the
// winners with their baselines and sample counts, matched across two sides.
// Plain data in, plain data out (no printing), so the tests check it directly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cache/tuning_db.hpp"

namespace scantune::tuner {

/// Empty fields match everything. `device` is a case-insensitive substring of the
/// device model; type, op and kind are exact.
struct ReportFilter {
  std::string device, type, op, kind;
};

/// One best entry, with the baselines of its device at its size.
struct WinnerRow {
  db::BestEntry best;
  std::optional<double> memcpy_ns, memcpy_gbs, cub_ns, cub_gbs;
  std::optional<std::int64_t> samples;    ///< of the winning measurement, when stored
  std::optional<double> x_memcpy() const; ///< memcpy_ns / best ns
  std::optional<double> x_cub() const;    ///< cub_ns / best ns
};

/// The best entries matching `f`, ordered by model, type, op, op_hash, kind, bucket.
std::vector<db::BestEntry> best_entries(const db::TuningDb& db, const ReportFilter& f);
/// The same entries with their baselines and sample counts.
std::vector<WinnerRow> winner_rows(const db::TuningDb& db, const ReportFilter& f);

/// The names of `models` that contain `device`, case-insensitively (all when it is
/// empty; an exact match alone when there is one), sorted and unique.
std::vector<std::string> match_models(const std::vector<std::string>& models,
                                      const std::string& device);
/// The device models that have best entries.
std::vector<std::string> tuned_models(const db::TuningDb& db);

/// The ok measurements (with a median) of `e`'s type, operator and kind on every card
/// of `e`'s device model, in the database's order.
std::vector<db::Measurement> model_measurements(const db::TuningDb& db, const db::BestEntry& e);

/// One problem: "int32 sum inclusive", or "myop[hash] ..." for custom operators.
std::string problem_label(const db::BestEntry& e);

/// One (type, op, kind, bucket) of a comparison; a side without an entry is empty.
struct CompareRow {
  std::optional<db::BestEntry> a, b;
  const db::BestEntry& any() const { return a ? *a : *b; }
  /// Different winners: another policy, or another lower winner where a bucket is split
  /// (the split's size, placed by timing, may move between tunes of the same winners).
  bool differs() const {
    return a && b && (a->policy != b->policy || a->lower_policy != b->lower_policy);
  }
  std::optional<double> ratio() const; ///< GB/s of A over GB/s of B
};
/// Matches two sides' entries (each of one model) by problem and bucket, in order.
std::vector<CompareRow> compare_rows(const std::vector<db::BestEntry>& a,
                                     const std::vector<db::BestEntry>& b);

} // namespace scantune::tuner

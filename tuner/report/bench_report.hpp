// The results of `scantune bench` (tuned dispatch, CUB, memcpy and optional
// representative policies per size): the JSON document --json writes and
// `scantune plot --from-bench` reads, and the markdown table. Host code only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace scantune::tuner {

struct BenchPoint {
  std::optional<double> ns; ///< per call; nothing when skipped or failed
  std::string policy;       ///< what ran (the tuned dispatch's choice at this size)
  std::string note;         ///< why there is no time
};

struct BenchSeries {
  std::string name;               ///< "tuned", "cub", "memcpy", or an algorithm ("lookback_warp")
  std::string policy;             ///< the fixed policy of an algorithm series; empty otherwise
  std::vector<BenchPoint> points; ///< one per size
};

struct BenchReport {
  std::string device; ///< device model
  std::string type, op, kind;
  std::vector<std::uint64_t> sizes;
  std::vector<BenchSeries> series; ///< "tuned", "cub", "memcpy" first

  const BenchSeries* find(const std::string& name) const;
  /// GB/s (read + write) of a time at sizes[i]; nothing without a time.
  std::optional<double> gbs(std::size_t i, const std::optional<double>& ns) const;
};

/// {"format": "scantune-bench", "version": 1, "device", "type", "op", "kind",
///  "sizes": [...], "series": [{"name", "policy", "points": [{"size", "ns", "gbs",
///  "policy", "note"}]}]} (ns and gbs null when there is no time).
nlohmann::json bench_to_json(const BenchReport& r);
/// The inverse; throws scantune::Error naming what is wrong with the document. Also
/// takes an array of one such document (what --json writes for one type).
BenchReport bench_from_json(const nlohmann::json& doc);
/// One document per report; an array of them when there are several (one per type).
nlohmann::json bench_to_json(const std::vector<BenchReport>& reports);

/// CSV, one row per report, size and series: device, type, op, kind, n, series,
/// policy, ns, gbs, note (ns and gbs empty when there is no time).
std::string bench_csv(const std::vector<BenchReport>& reports);

/// A markdown table: one row per size with the tuned policy, its GB/s, % of
/// memcpy, x CUB, CUB and memcpy GB/s, then the GB/s of each algorithm series;
/// below it, the algorithm series' policies and every note.
std::string bench_markdown(const BenchReport& r);

} // namespace scantune::tuner

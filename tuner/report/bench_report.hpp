// The results of `scantune bench` (tuned dispatch, CUB, memcpy and optional
// representative policies per size): the JSON document --json writes and
// `scantune plot --from-bench` reads, and the markdown table. Host code only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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
  std::string device;         ///< device model
  std::string type, op, kind; ///< type: "int32", or a converting scan's "uint8:int32"
  std::string segments;       ///< the --segments SPEC ("flags:32"); "" = flat
  std::uint64_t extra_bytes_per_element = 0; ///< useful bytes read besides values (a flag)
  std::vector<std::uint64_t> sizes;
  std::vector<BenchSeries> series; ///< "tuned", "cub", "memcpy" first

  const BenchSeries* find(const std::string& name) const;
  /// Bytes per element a time of `series` counts: values read and written plus
  /// the extra bytes (CUB counts the same, not its keys, so that the columns
  /// compare the same useful work); memcpy's: its values read and written.
  std::uint64_t bytes_per_element(std::string_view series) const;
  /// GB/s of a time of `series` at sizes[i]; nothing without a time.
  std::optional<double> gbs(std::size_t i, const std::optional<double>& ns,
                            std::string_view series) const;
  /// "int32 sum inclusive" plus ", segments flags:32" when segmented.
  std::string problem() const;
};

/// {"format": "scantune-bench", "version": 1, "device", "type", "op", "kind",
///  "segments", "extra_bytes_per_element", "sizes": [...], "series": [{"name",
///  "policy", "points": [{"size", "ns", "gbs", "policy", "note"}]}]} (ns and gbs null
///  when there is no time; reading, the segments fields may be missing: flat).
nlohmann::json bench_to_json(const BenchReport& r);
/// The inverse; throws scantune::Error naming what is wrong with the document. Also
/// takes an array of one such document (what --json writes for one type).
BenchReport bench_from_json(const nlohmann::json& doc);
/// One document per report; an array of them when there are several (one per type).
nlohmann::json bench_to_json(const std::vector<BenchReport>& reports);

/// CSV, one row per report, size and series: device, type, op, kind, segments, n,
/// series, policy, ns, gbs, note (segments empty when flat; ns and gbs empty when
/// there is no time).
std::string bench_csv(const std::vector<BenchReport>& reports);

/// A markdown table: one row per size with the tuned policy, its GB/s, % of
/// memcpy, x CUB, CUB and memcpy GB/s, then the GB/s of each algorithm series;
/// below it, the algorithm series' policies and every note.
std::string bench_markdown(const BenchReport& r);

} // namespace scantune::tuner

// `scantune bench` results: JSON and markdown (see bench_report.hpp).
#include "tuner/report/bench_report.hpp"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "codegen.hpp"
#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "tuner/report/text_table.hpp"
#include "tuner/search/search_space.hpp"

namespace scantune::tuner {
namespace {

std::optional<double> ratio(const std::optional<double>& num, const std::optional<double>& den) {
  if (!num || !den || *den <= 0) return std::nullopt;
  return *num / *den;
}

template <class T>
T field(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key))
    throw Error(fmt::format("bench JSON: {} has no \"{}\"", where, key));
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(fmt::format("bench JSON: {}.{} has the wrong type", where, key));
  }
}

std::string optional_string(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

/// Bytes read and written per element: "int32", a converting "uint8:int32", or the
/// struct of a struct-valued operator ("struct16").
std::uint64_t value_bytes_per_element(const std::string& type) {
  if (const int bytes = detail::struct_type_bytes(type))
    return 2 * static_cast<std::uint64_t>(bytes);
  const ScanTypes t = parse_scan_types(type);
  return size_of(t.in) + size_of(t.out);
}

} // namespace

const BenchSeries* BenchReport::find(const std::string& name) const {
  for (const BenchSeries& s : series)
    if (s.name == name) return &s;
  return nullptr;
}

std::uint64_t BenchReport::bytes_per_element(std::string_view series) const {
  const std::uint64_t values = value_bytes_per_element(type);
  return series == "memcpy" ? values : values + extra_bytes_per_element;
}

std::optional<double> BenchReport::gbs(std::size_t i, const std::optional<double>& ns,
                                       std::string_view series) const {
  if (!ns || *ns <= 0 || i >= sizes.size()) return std::nullopt;
  return static_cast<double>(sizes[i] * bytes_per_element(series)) / *ns;
}

std::string BenchReport::problem() const {
  const std::string flat = fmt::format("{} {} {}", type, op, kind);
  return segments.empty() ? flat : flat + ", segments " + segments;
}

nlohmann::json bench_to_json(const BenchReport& r) {
  nlohmann::json series = nlohmann::json::array();
  for (const BenchSeries& s : r.series) {
    nlohmann::json points = nlohmann::json::array();
    for (std::size_t i = 0; i < s.points.size() && i < r.sizes.size(); ++i) {
      const BenchPoint& p = s.points[i];
      const auto g = r.gbs(i, p.ns, s.name);
      points.push_back({{"size", r.sizes[i]},
                        {"ns", p.ns ? nlohmann::json(*p.ns) : nlohmann::json()},
                        {"gbs", g ? nlohmann::json(*g) : nlohmann::json()},
                        {"policy", p.policy},
                        {"note", p.note}});
    }
    series.push_back({{"name", s.name}, {"policy", s.policy}, {"points", points}});
  }
  return {{"format", "scantune-bench"},
          {"version", 1},
          {"device", r.device},
          {"type", r.type},
          {"op", r.op},
          {"kind", r.kind},
          {"segments", r.segments},
          {"extra_bytes_per_element", r.extra_bytes_per_element},
          {"sizes", r.sizes},
          {"series", series}};
}

nlohmann::json bench_to_json(const std::vector<BenchReport>& reports) {
  if (reports.size() == 1) return bench_to_json(reports.front());
  nlohmann::json docs = nlohmann::json::array();
  for (const BenchReport& r : reports)
    docs.push_back(bench_to_json(r));
  return docs;
}

std::string bench_csv(const std::vector<BenchReport>& reports) {
  TextTable t;
  for (const char* title :
       {"device", "type", "op", "kind", "segments", "n", "series", "policy", "ns", "gbs", "note"})
    t.columns.push_back({title, false});
  for (const BenchReport& r : reports)
    for (const BenchSeries& s : r.series)
      for (std::size_t i = 0; i < s.points.size() && i < r.sizes.size(); ++i) {
        const BenchPoint& p = s.points[i];
        const auto g = r.gbs(i, p.ns, s.name);
        t.add({r.device, r.type, r.op, r.kind, r.segments, std::to_string(r.sizes[i]), s.name,
               p.policy.empty() ? s.policy : p.policy, p.ns ? fmt::format("{:.1f}", *p.ns) : "",
               g ? fmt::format("{:.2f}", *g) : "", p.note});
      }
  return t.csv();
}

BenchReport bench_from_json(const nlohmann::json& doc) {
  if (doc.is_array()) {
    if (doc.size() != 1)
      throw Error(fmt::format("bench JSON: {} reports (one per type); chart one of them at a time",
                              doc.size()));
    return bench_from_json(doc.front());
  }
  if (field<std::string>(doc, "format", "the document") != "scantune-bench")
    throw Error("bench JSON: \"format\" is not \"scantune-bench\"");
  BenchReport r;
  r.device = field<std::string>(doc, "device", "the document");
  r.type = field<std::string>(doc, "type", "the document");
  r.op = field<std::string>(doc, "op", "the document");
  r.kind = field<std::string>(doc, "kind", "the document");
  value_bytes_per_element(r.type); // throws on an unknown type
  r.segments = optional_string(doc, "segments");
  if (doc.contains("extra_bytes_per_element"))
    r.extra_bytes_per_element =
        field<std::uint64_t>(doc, "extra_bytes_per_element", "the document");
  r.sizes = field<std::vector<std::uint64_t>>(doc, "sizes", "the document");
  const auto series = field<nlohmann::json>(doc, "series", "the document");
  if (!series.is_array()) throw Error("bench JSON: \"series\" is not an array");
  for (std::size_t k = 0; k < series.size(); ++k) {
    const std::string where = fmt::format("series[{}]", k);
    BenchSeries s;
    s.name = field<std::string>(series[k], "name", where);
    s.policy = optional_string(series[k], "policy");
    const auto points = field<nlohmann::json>(series[k], "points", where);
    if (!points.is_array() || points.size() != r.sizes.size())
      throw Error(fmt::format("bench JSON: {}.points does not have one point per size", where));
    for (const nlohmann::json& pj : points) {
      BenchPoint p;
      if (pj.contains("ns") && pj["ns"].is_number()) p.ns = pj["ns"].get<double>();
      p.policy = optional_string(pj, "policy");
      p.note = optional_string(pj, "note");
      s.points.push_back(std::move(p));
    }
    r.series.push_back(std::move(s));
  }
  return r;
}

std::string bench_markdown(const BenchReport& r) {
  static const BenchSeries kNone;
  const auto series = [&](const char* name) {
    const BenchSeries* s = r.find(name);
    return s ? s : &kNone;
  };
  const BenchSeries *tuned = series("tuned"), *cub = series("cub"), *memcpy = series("memcpy");
  std::vector<const BenchSeries*> algorithms;
  for (const BenchSeries& s : r.series)
    if (!s.policy.empty()) algorithms.push_back(&s);

  TextTable t;
  t.columns = {{"n", false},    {"tuned policy", false}, {"tuned GB/s", true}, {"% memcpy", true},
               {"x CUB", true}, {"CUB GB/s", true},      {"memcpy GB/s", true}};
  for (const BenchSeries* a : algorithms)
    t.columns.push_back({a->name, true});
  const auto ns_at = [](const BenchSeries* s, std::size_t i) {
    return i < s->points.size() ? s->points[i].ns : std::nullopt;
  };
  std::string notes;
  for (std::size_t i = 0; i < r.sizes.size(); ++i) {
    const auto tuned_ns = ns_at(tuned, i);
    const auto pct = ratio(r.gbs(i, tuned_ns, "tuned"), r.gbs(i, ns_at(memcpy, i), "memcpy"));
    std::vector<std::string> row = {size_label(r.sizes[i]),
                                    i < tuned->points.size() && !tuned->points[i].policy.empty()
                                        ? tuned->points[i].policy
                                        : "-",
                                    gbs_or_dash(r.gbs(i, tuned_ns, "tuned")),
                                    pct ? fmt::format("{:.0f}%", *pct * 100) : "-",
                                    fixed_or_dash(ratio(ns_at(cub, i), tuned_ns), 2),
                                    gbs_or_dash(r.gbs(i, ns_at(cub, i), "cub")),
                                    gbs_or_dash(r.gbs(i, ns_at(memcpy, i), "memcpy"))};
    for (const BenchSeries* a : algorithms)
      row.push_back(gbs_or_dash(r.gbs(i, ns_at(a, i), a->name)));
    t.add(std::move(row));
    for (const BenchSeries& s : r.series)
      if (i < s.points.size() && !s.points[i].note.empty())
        notes += fmt::format("- {} at {}: {}\n", s.name, size_label(r.sizes[i]), s.points[i].note);
  }
  const std::string bytes =
      r.extra_bytes_per_element == 0
          ? "GB/s = bytes read + written per second"
          : fmt::format("GB/s = bytes read + written per second, with {} byte(s) of head flags "
                        "or keys per element for the scans and CUB (CUB reads the same keys; for "
                        "flags, int32 keys of the same segments)",
                        r.extra_bytes_per_element);
  std::string out = fmt::format("{} on {} ({})\n\n", r.problem(), r.device, bytes);
  out += t.markdown();
  if (!algorithms.empty()) {
    out += "\nalgorithm policies:\n";
    for (const BenchSeries* a : algorithms)
      out += fmt::format("- {}: {}\n", a->name, a->policy);
  }
  if (!notes.empty()) out += "\nnotes:\n" + notes;
  return out;
}

} // namespace scantune::tuner

// A built-in table from a `scantune export` document (cache/db_json.cpp has its
// format): the best entries of built-in operators, and from its baselines the CUB
// and memcpy times that show what each entry is worth.
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "errors.hpp"
#include "table_gen.hpp"

namespace scantune::builtin {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// (baseline, type, op, op_hash, kind, problem, size): the baselines' key less the device.
using BaselineKey = std::tuple<std::string, std::string, std::string, std::string, std::string,
                               std::string, std::uint64_t>;

double rounded(double v, int digits) {
  return std::stod(fmt::format("{:.{}f}", v, digits));
}

struct Export {
  std::map<std::int64_t, json> devices, runs; // by id
  std::multimap<BaselineKey, json> baselines;

  explicit Export(const json& doc) {
    for (const json& d : doc.at("devices"))
      devices[d.at("id").get<std::int64_t>()] = d;
    for (const json& r : doc.value("runs", json::array()))
      runs[r.at("id").get<std::int64_t>()] = r;
    for (const json& b : doc.value("baselines", json::array()))
      baselines.emplace(BaselineKey{b.at("baseline"), b.at("type"), b.at("op"), b.at("op_hash"),
                                    b.at("kind"), b.value("problem", ""), b.at("size")},
                        b);
  }

  // The baseline's time measured on the entry's device, else the latest on its model.
  std::optional<double> baseline_ns(const BaselineKey& key, const json& entry) const {
    std::optional<double> ns;
    std::tuple<bool, std::string> best;
    auto [lo, hi] = baselines.equal_range(key);
    for (auto it = lo; it != hi; ++it) {
      const json& b = it->second;
      auto dev = devices.find(b.at("device").get<std::int64_t>());
      if (dev == devices.end() || dev->second.at("model") != entry.at("model")) continue;
      std::tuple<bool, std::string> rank{b.at("device") == entry.at("device"),
                                         b.at("measured_at").get<std::string>()};
      if (!ns || rank > best) ns = b.at("ns").get<double>(), best = rank;
    }
    return ns;
  }

  Row row_of(const json& e) const {
    Row r = row_named_by(e);
    const double ns = e.at("ns").get<double>();
    r.ns = rounded(ns, 1); // the table's resolution: a re-tune moves more than that
    if (auto gbs = e.find("gbs"); gbs != e.end() && !gbs->is_null())
      r.gbs = rounded(gbs->get<double>(), 2);
    const std::string type = e.at("type"), op = e.at("op"), kind = e.at("kind");
    if (auto cub = baseline_ns({"cub", type, op, "", kind, r.problem, r.size}, e))
      r.x_cub = rounded(*cub / ns, 3);
    if (auto mem = baseline_ns({"memcpy", type, "", "", "", "", r.size}, e))
      r.of_memcpy = rounded(*mem / ns, 3);
    r.measured_at = e.value("updated_at", "");
    if (auto run = runs.find(e.value("run", std::int64_t{-1})); run != runs.end())
      r.run = run->second.value("uid", "").substr(0, 8);
    check_row(r);
    return r;
  }

  ordered_json run_line(const json& run) const {
    ordered_json o = {{"uid", run.value("uid", "")}, {"started_at", run.value("started_at", "")}};
    if (auto dev = devices.find(run.value("device", std::int64_t{-1})); dev != devices.end()) {
      o["driver_version"] = dev->second.value("driver_version", 0);
      o["runtime_version"] = dev->second.value("runtime_version", 0);
    }
    o["nvrtc_version"] = run.value("nvrtc_version", "");
    o["library_version"] = run.value("library_version", "");
    o["command_line"] = run.value("command_line", "");
    return o;
  }
};

ordered_json source_line(const Source& src) {
  ordered_json o = {{"file", src.name},
                    {"format", src.doc.value("format", "")},
                    {"schema_version", src.doc.value("schema_version", 0)},
                    {"runs", src.doc.value("runs", json::array()).size()},
                    {"best", src.doc.at("best").size()}};
  if (!src.sha256.empty()) o["sha256"] = src.sha256;
  return o;
}

void take_gpu(Table& t, const json& device, const std::string& model) {
  const int arch = device.at("cc_major").get<int>() * 10 + device.at("cc_minor").get<int>();
  if (!t.model.empty() && (t.model != model || t.arch != arch))
    throw Error(fmt::format("entries of two GPU models ({}, {}): export one model per table",
                            t.model, model));
  t.model = model;
  t.arch = arch;
  t.name = device.value("name", "");
  t.sm_count = device.value("sm_count", 0);
}

} // namespace

Table table_of_export(const Source& src) {
  const json& doc = src.doc;
  if (!doc.is_object() || !doc.contains("best") || !doc.contains("devices"))
    throw Error(fmt::format("{}: not a scantune export (no \"devices\" and \"best\")", src.name));
  std::string where = src.name;
  try {
    const Export ex(doc);
    Table t;
    std::map<std::int64_t, ordered_json> runs;
    std::size_t i = 0;
    for (const json& e : doc.at("best")) {
      where = fmt::format("{}: best[{}]", src.name, i++);
      if (!e.at("op_hash").get<std::string>().empty()) continue; // custom operator
      auto dev = ex.devices.find(e.at("device").get<std::int64_t>());
      if (dev == ex.devices.end()) throw Error("refers to a device the document lacks");
      take_gpu(t, dev->second, e.at("model").get<std::string>());
      t.rows.push_back(ex.row_of(e));
      if (auto run = ex.runs.find(e.value("run", std::int64_t{-1})); run != ex.runs.end())
        runs.emplace(run->first, ex.run_line(run->second));
    }
    where = src.name;
    for (auto& [id, line] : runs)
      t.runs.push_back(line);
    t.sources.push_back(source_line(src));
    return merge({t}); // sorts, and rejects two entries of one bucket
  } catch (const std::exception& x) {
    throw Error(fmt::format("{}: {}", where, x.what()));
  }
}

} // namespace scantune::builtin

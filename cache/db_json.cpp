// cache/db_json.cpp: JSON export, import and merge of the tuning database.
//
// Format (docs/database.md has the full description):
//   { "format": "scantune-tuning-db", "schema_version": 2,
//     "devices": [...], "runs": [...], "measurements": [...],
//     "baselines": [...], "best": [...] }
// Rows refer to devices and runs by the "id" of the device/run objects of the same
// document. Ids are renumbered 1..n on export (in database order), so an export
// does not depend on the ids of the database it came from.
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "cache/db_impl.hpp"
#include "cache/tuning_db.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace scantune::db {

namespace {

constexpr const char* kFormat = "scantune-tuning-db";

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

template <class T>
std::optional<T> get_opt(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

} // namespace

json TuningDb::export_json(const ExportFilter& f) const {
  Impl& im = *impl_;
  json doc = json::object();
  doc["format"] = kFormat;
  doc["schema_version"] = kSchemaVersion;

  // Devices.
  std::map<std::int64_t, std::int64_t> dev; // database id -> document id
  json devices = json::array();
  {
    StmtUse s(im.stmt(fmt::format("SELECT {} FROM devices WHERE (?1 IS NULL OR model = ?1) AND "
                                  "(?2 IS NULL OR id = ?2) ORDER BY id",
                                  kDeviceColumns)));
    s->bind(1, f.model).bind(2, f.device_id);
    while (s->step()) {
      DeviceInfo d = read_device(*s);
      std::int64_t doc_id = static_cast<std::int64_t>(dev.size()) + 1;
      dev[d.id] = doc_id;
      devices.push_back({{"id", doc_id},
                         {"name", d.name},
                         {"model", d.model()},
                         {"cc_major", d.cc_major},
                         {"cc_minor", d.cc_minor},
                         {"sm_count", d.sm_count},
                         {"memory_bus_bits", d.memory_bus_bits},
                         {"memory_clock_khz", d.memory_clock_khz},
                         {"bandwidth_gbs", d.bandwidth_gbs},
                         {"l2_bytes", d.l2_bytes},
                         {"driver_version", d.driver_version},
                         {"runtime_version", d.runtime_version},
                         {"uuid", d.uuid}});
    }
  }
  const bool filtered = f.model || f.device_id;
  auto dev_ref = [&](std::optional<std::int64_t> id) -> json {
    if (!id) return nullptr;
    auto it = dev.find(*id);
    return it == dev.end() ? json(nullptr) : json(it->second);
  };

  // Rows of the selected devices; remember which runs they refer to.
  std::vector<Measurement> ms;
  std::vector<Baseline> bs;
  std::vector<BestEntry> best;
  std::set<std::int64_t> used_runs;
  if (f.measurements) {
    StmtUse s(im.stmt(fmt::format("SELECT {} FROM measurements ORDER BY id", kMeasurementColumns)));
    while (s->step()) {
      Measurement m = read_measurement(*s);
      if (!dev.count(m.device_id)) continue;
      used_runs.insert(m.run_id);
      ms.push_back(std::move(m));
    }
  }
  {
    StmtUse s(im.stmt(fmt::format("SELECT {} FROM baselines ORDER BY id", kBaselineColumns)));
    while (s->step()) {
      Baseline b = read_baseline(*s);
      if (!dev.count(b.device_id)) continue;
      if (b.run_id) used_runs.insert(*b.run_id);
      bs.push_back(std::move(b));
    }
  }
  {
    StmtUse s(im.stmt(fmt::format("SELECT {} FROM best ORDER BY id", kBestColumns)));
    while (s->step()) {
      BestEntry e = read_best(*s);
      if (!dev.count(e.device_id)) continue;
      if (e.run_id) used_runs.insert(*e.run_id);
      best.push_back(std::move(e));
    }
  }

  // Runs.
  std::map<std::int64_t, std::int64_t> run; // database id -> document id
  json runs = json::array();
  {
    StmtUse s(im.stmt(fmt::format("SELECT {} FROM tuning_runs ORDER BY id", kRunColumns)));
    while (s->step()) {
      RunInfo r = read_run(*s);
      bool keep = !filtered || used_runs.count(r.id) || (r.device_id && dev.count(*r.device_id));
      if (!keep) continue;
      std::int64_t doc_id = static_cast<std::int64_t>(run.size()) + 1;
      run[r.id] = doc_id;
      runs.push_back({{"id", doc_id},
                      {"uid", r.uid},
                      {"device", dev_ref(r.device_id)},
                      {"started_at", r.started_at},
                      {"ended_at", opt(r.ended_at)},
                      {"library_version", r.library_version},
                      {"template_hash", r.template_hash},
                      {"nvrtc_version", r.nvrtc_version},
                      {"command_line", r.command_line},
                      {"host", r.host},
                      {"status", std::string(to_string(r.status))}});
    }
  }
  auto run_ref = [&](std::optional<std::int64_t> id) -> json {
    if (!id) return nullptr;
    return run.at(*id);
  };

  // "problem" appears only where it is not a flat scan, so flat exports read as before.
  auto with_problem = [](json row, const std::string& problem) {
    if (!problem.empty()) row["problem"] = problem;
    return row;
  };
  json jm = json::array();
  for (const Measurement& m : ms)
    jm.push_back(with_problem({{"run", run_ref(m.run_id)},
                               {"device", dev.at(m.device_id)},
                               {"type", m.type},
                               {"op", m.op},
                               {"op_hash", m.op_hash},
                               {"kind", m.kind},
                               {"size", m.size},
                               {"policy", m.policy},
                               {"status", std::string(to_string(m.status))},
                               {"median_ns", opt(m.median_ns)},
                               {"min_ns", opt(m.min_ns)},
                               {"max_ns", opt(m.max_ns)},
                               {"samples", m.samples},
                               {"gbs", opt(m.gbs)},
                               {"registers", opt(m.registers)},
                               {"spill_bytes", opt(m.spill_bytes)},
                               {"message", m.message}},
                              m.problem));
  json jb = json::array();
  for (const Baseline& b : bs)
    jb.push_back(with_problem({{"device", dev.at(b.device_id)},
                               {"run", run_ref(b.run_id)},
                               {"baseline", std::string(to_string(b.baseline))},
                               {"type", b.type},
                               {"op", b.op},
                               {"op_hash", b.op_hash},
                               {"kind", b.kind},
                               {"size", b.size},
                               {"ns", b.ns},
                               {"gbs", b.gbs},
                               {"measured_at", b.measured_at}},
                              b.problem));
  json je = json::array();
  // A bucket's second winner likewise appears only where there is one.
  auto with_lower = [](json row, const BestEntry& e) {
    if (!e.lower_policy.empty()) {
      row["lower_policy"] = e.lower_policy;
      row["lower_upto"] = e.lower_upto;
    }
    return row;
  };
  for (const BestEntry& e : best)
    je.push_back(with_lower(with_problem({{"model", e.model},
                                          {"device", dev.at(e.device_id)},
                                          {"run", run_ref(e.run_id)},
                                          {"type", e.type},
                                          {"op", e.op},
                                          {"op_hash", e.op_hash},
                                          {"kind", e.kind},
                                          {"size", e.size},
                                          {"policy", e.policy},
                                          {"ns", e.ns},
                                          {"gbs", e.gbs},
                                          {"updated_at", e.updated_at}},
                                         e.problem),
                            e));

  doc["devices"] = std::move(devices);
  doc["runs"] = std::move(runs);
  doc["measurements"] = std::move(jm);
  doc["baselines"] = std::move(jb);
  doc["best"] = std::move(je);
  return doc;
}

void TuningDb::export_file(const fs::path& file, const ExportFilter& filter) const {
  std::string text = export_json(filter).dump(2) + "\n";
  // Write a sibling temporary file and rename it over the target: a reader never
  // sees half a file, and a failed export leaves an old file intact.
  fs::path tmp = file;
  tmp += fmt::format(".tmp{}", static_cast<long>(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw scantune::CacheError(
          fmt::format("tuning database export {}: cannot write the file", file.string()));
    }
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw scantune::CacheError(
        fmt::format("tuning database export {}: cannot rename into place", file.string()));
  }
}

namespace {

// Import: the document's rows are read into the row types and written through the
// row writers of tuning_db.cpp (db_impl.hpp), which hold the matching and merge
// rules; this part only maps the document's ids to the database's.
struct Importer {
  TuningDb::Impl& im;
  const json& doc;
  std::string& where;
  ImportStats st;
  std::map<std::int64_t, std::int64_t> dev; // document id -> database id
  std::map<std::int64_t, std::int64_t> run; // document id -> database id
  std::set<std::int64_t> new_runs;          // database ids inserted by this import

  const json& array(const char* key) const {
    static const json empty = json::array();
    auto it = doc.find(key);
    if (it == doc.end()) return empty;
    if (!it->is_array()) throw scantune::CacheError(fmt::format("\"{}\" is not an array", key));
    return *it;
  }
  /// Calls `row` on every element of the array `key`, naming it in `where`.
  template <class Row>
  void each(const char* key, Row row) {
    std::size_t i = 0;
    for (const json& r : array(key)) {
      where = fmt::format("{}[{}]", key, i++);
      row(r);
    }
  }
  std::int64_t dev_id(const json& ref) const {
    auto it = dev.find(ref.get<std::int64_t>());
    if (it == dev.end())
      throw scantune::CacheError(
          fmt::format("refers to device {}, which the document lacks", ref.dump()));
    return it->second;
  }
  std::optional<std::int64_t> run_id(const json& ref) const {
    if (ref.is_null()) return std::nullopt;
    auto it = run.find(ref.get<std::int64_t>());
    if (it == run.end())
      throw scantune::CacheError(
          fmt::format("refers to run {}, which the document lacks", ref.dump()));
    return it->second;
  }
};

void check_header(const json& doc) {
  if (!doc.is_object()) throw scantune::CacheError("the document is not a JSON object");
  if (doc.value("format", std::string()) != kFormat)
    throw scantune::CacheError(fmt::format("\"format\" is not \"{}\"", kFormat));
  const int version = doc.at("schema_version").get<int>();
  if (version > kSchemaVersion)
    throw scantune::CacheError(fmt::format("schema_version {} is newer than version {} that this "
                                           "scantune knows",
                                           version, kSchemaVersion));
  if (version < 2)
    throw scantune::CacheError(fmt::format("unsupported schema_version {}", version));
}

// Devices: a known device (find_device) is kept as it is, others are added.
void import_device(Importer& x, const json& d) {
  DeviceInfo info;
  info.name = d.at("name").get<std::string>();
  info.cc_major = d.at("cc_major").get<int>();
  info.cc_minor = d.at("cc_minor").get<int>();
  info.sm_count = d.at("sm_count").get<int>();
  info.memory_bus_bits = d.value("memory_bus_bits", 0);
  info.memory_clock_khz = d.value("memory_clock_khz", std::int64_t{0});
  info.bandwidth_gbs = d.value("bandwidth_gbs", 0.0);
  info.l2_bytes = d.value("l2_bytes", std::int64_t{0});
  info.driver_version = d.value("driver_version", 0);
  info.runtime_version = d.value("runtime_version", 0);
  info.uuid = d.value("uuid", std::string());
  const std::int64_t doc_id = d.at("id").get<std::int64_t>();
  if (x.dev.count(doc_id))
    throw scantune::CacheError(fmt::format("duplicate device id {}", doc_id));
  if (const auto found = find_device(x.im, info)) {
    x.dev[doc_id] = *found;
    ++x.st.devices_matched;
    return;
  }
  x.dev[doc_id] = write_device(x.im, info, std::nullopt);
  ++x.st.devices_added;
}

// Runs: matched by uid; a run still running here takes the other copy's end.
void import_run(Importer& x, const json& r) {
  const std::int64_t doc_id = r.at("id").get<std::int64_t>();
  if (x.run.count(doc_id)) throw scantune::CacheError(fmt::format("duplicate run id {}", doc_id));
  RunInfo info;
  info.uid = r.at("uid").get<std::string>();
  info.status = parse_run_status(r.at("status").get<std::string>());
  info.ended_at = get_opt<std::string>(r, "ended_at");
  if (const auto found = find_run(x.im, info.uid)) {
    if (found->status == RunStatus::Running && info.status != RunStatus::Running)
      finish_run(x.im, found->id, info.status, info.ended_at);
    x.run[doc_id] = found->id;
    ++x.st.runs_matched;
    return;
  }
  if (auto it = r.find("device"); it != r.end() && !it->is_null()) info.device_id = x.dev_id(*it);
  info.started_at = r.at("started_at").get<std::string>();
  info.library_version = r.value("library_version", std::string());
  info.template_hash = r.value("template_hash", std::string());
  info.nvrtc_version = r.value("nvrtc_version", std::string());
  info.command_line = r.value("command_line", std::string());
  info.host = r.value("host", std::string());
  const std::int64_t id = insert_run(x.im, info);
  x.run[doc_id] = id;
  x.new_runs.insert(id);
  ++x.st.runs_added;
}

// Measurements: appended; for runs that were already here, exact duplicates skipped.
void import_measurement(Importer& x, const json& j) {
  Measurement m;
  const auto r = x.run_id(j.at("run"));
  if (!r) throw scantune::CacheError("a measurement needs a run");
  m.run_id = *r;
  m.device_id = x.dev_id(j.at("device"));
  m.type = j.at("type").get<std::string>();
  m.op = j.at("op").get<std::string>();
  m.op_hash = j.value("op_hash", std::string());
  m.kind = j.at("kind").get<std::string>();
  m.size = j.at("size").get<std::uint64_t>();
  m.policy = j.at("policy").get<std::string>();
  m.status = parse_measurement_status(j.at("status").get<std::string>());
  m.median_ns = get_opt<double>(j, "median_ns");
  m.min_ns = get_opt<double>(j, "min_ns");
  m.max_ns = get_opt<double>(j, "max_ns");
  m.samples = j.value("samples", 0);
  m.gbs = get_opt<double>(j, "gbs");
  m.registers = get_opt<int>(j, "registers");
  m.spill_bytes = get_opt<int>(j, "spill_bytes");
  m.message = j.value("message", std::string());
  m.problem = j.value("problem", std::string());
  if (!x.new_runs.count(m.run_id) && has_measurement(x.im, m)) {
    ++x.st.measurements_skipped;
    return;
  }
  insert_measurement(x.im, m);
  ++x.st.measurements_added;
}

void count(Stored s, std::int64_t& added, std::int64_t& replaced, std::int64_t& kept) {
  ++(s == Stored::Added ? added : s == Stored::Replaced ? replaced : kept);
}

// Baselines: one per key; the lower ns wins.
void import_baseline(Importer& x, const json& j) {
  Baseline b;
  b.device_id = x.dev_id(j.at("device"));
  b.run_id = x.run_id(j.value("run", json(nullptr)));
  b.baseline = parse_baseline_kind(j.at("baseline").get<std::string>());
  b.type = j.at("type").get<std::string>();
  b.op = j.value("op", std::string());
  b.op_hash = j.value("op_hash", std::string());
  b.kind = j.value("kind", std::string());
  b.size = j.at("size").get<std::uint64_t>();
  b.ns = j.at("ns").get<double>();
  b.gbs = j.at("gbs").get<double>();
  b.measured_at = j.at("measured_at").get<std::string>();
  b.problem = j.value("problem", std::string());
  count(store_baseline(x.im, b, true), x.st.baselines_added, x.st.baselines_replaced,
        x.st.baselines_kept);
}

// Best: one per (model, type, op, op_hash, kind, problem, size bucket); the lower ns wins.
void import_best(Importer& x, const json& j) {
  BestEntry e;
  e.model = j.at("model").get<std::string>();
  e.device_id = x.dev_id(j.at("device"));
  e.run_id = x.run_id(j.value("run", json(nullptr)));
  e.type = j.at("type").get<std::string>();
  e.op = j.at("op").get<std::string>();
  e.op_hash = j.value("op_hash", std::string());
  e.kind = j.at("kind").get<std::string>();
  e.size = j.at("size").get<std::uint64_t>();
  e.policy = j.at("policy").get<std::string>();
  e.ns = j.at("ns").get<double>();
  e.gbs = j.at("gbs").get<double>();
  e.updated_at = j.at("updated_at").get<std::string>();
  e.problem = j.value("problem", std::string());
  e.lower_policy = j.value("lower_policy", std::string());
  e.lower_upto = j.value("lower_upto", std::uint64_t{0});
  count(store_best(x.im, e, BestMode::IfFaster), x.st.best_added, x.st.best_replaced,
        x.st.best_kept);
}

// Imports one document; runs inside the caller's transaction and savepoint.
ImportStats import_rows(TuningDb::Impl& im, const json& doc, std::string& where) {
  where = "document";
  check_header(doc);
  Importer x{im, doc, where, {}, {}, {}, {}};
  x.each("devices", [&](const json& r) { import_device(x, r); });
  x.each("runs", [&](const json& r) { import_run(x, r); });
  x.each("measurements", [&](const json& r) { import_measurement(x, r); });
  x.each("baselines", [&](const json& r) { import_baseline(x, r); });
  x.each("best", [&](const json& r) { import_best(x, r); });
  where.clear();
  return x.st;
}

} // namespace

ImportStats TuningDb::import_json(const json& doc) {
  Impl& im = *impl_;
  im.require_writable("import");
  // BEGIN IMMEDIATE (unless the caller has a transaction open) plus a savepoint, so
  // that a failure undoes exactly this import and nothing else.
  WriteScope tx(im);
  im.conn.exec("SAVEPOINT scantune_import");
  std::string where;
  try {
    ImportStats st = import_rows(im, doc, where);
    im.conn.exec("RELEASE scantune_import");
    tx.commit();
    return st;
  } catch (const std::exception& e) {
    std::string msg = e.what();
    try {
      im.conn.exec("ROLLBACK TO scantune_import");
      im.conn.exec("RELEASE scantune_import");
    } catch (...) {
      // The outer WriteScope rolls back anyway.
    }
    throw scantune::CacheError(fmt::format("tuning database {}: import failed{}{}, nothing was "
                                           "imported: {}",
                                           im.display, where.empty() ? "" : " at ", where, msg));
  }
}

ImportStats TuningDb::import_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw scantune::CacheError(
        fmt::format("tuning database import {}: cannot open the file", file.string()));
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::exception& e) {
    throw scantune::CacheError(
        fmt::format("tuning database import {}: not valid JSON: {}", file.string(), e.what()));
  }
  return import_json(doc);
}

ImportStats TuningDb::merge_from(const fs::path& other) {
  impl_->require_writable("merge");
  json doc;
  {
    OpenOptions o;
    o.mode = OpenMode::ReadOnly;
    TuningDb src = TuningDb::open(other, o);
    doc = src.export_json();
  }
  return import_json(doc);
}

} // namespace scantune::db

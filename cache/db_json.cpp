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

  json jm = json::array();
  for (const Measurement& m : ms)
    jm.push_back({{"run", run_ref(m.run_id)},
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
                  {"message", m.message}});
  json jb = json::array();
  for (const Baseline& b : bs)
    jb.push_back({{"device", dev.at(b.device_id)},
                  {"run", run_ref(b.run_id)},
                  {"baseline", std::string(to_string(b.baseline))},
                  {"type", b.type},
                  {"op", b.op},
                  {"op_hash", b.op_hash},
                  {"kind", b.kind},
                  {"size", b.size},
                  {"ns", b.ns},
                  {"gbs", b.gbs},
                  {"measured_at", b.measured_at}});
  json je = json::array();
  for (const BestEntry& e : best)
    je.push_back({{"model", e.model},
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
                  {"updated_at", e.updated_at}});

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
      throw scantune::Error(
          fmt::format("tuning database export {}: cannot write the file", file.string()));
    }
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw scantune::Error(
        fmt::format("tuning database export {}: cannot rename into place", file.string()));
  }
}

namespace {

// Imports one document; runs inside the caller's transaction and savepoint.
ImportStats import_rows(TuningDb::Impl& im, const json& doc, std::string& where) {
  ImportStats st;
  where = "document";
  if (!doc.is_object()) throw scantune::Error("the document is not a JSON object");
  if (doc.value("format", std::string()) != kFormat)
    throw scantune::Error(fmt::format("\"format\" is not \"{}\"", kFormat));
  const int version = doc.at("schema_version").get<int>();
  if (version > kSchemaVersion)
    throw scantune::Error(fmt::format("schema_version {} is newer than version {} that this "
                                      "scantune knows",
                                      version, kSchemaVersion));
  if (version < 2) throw scantune::Error(fmt::format("unsupported schema_version {}", version));
  auto array = [&](const char* key) -> const json& {
    static const json empty = json::array();
    auto it = doc.find(key);
    if (it == doc.end()) return empty;
    if (!it->is_array()) throw scantune::Error(fmt::format("\"{}\" is not an array", key));
    return *it;
  };

  // Devices: matched by UUID, or (no UUID) by model among devices without UUID.
  std::map<std::int64_t, std::int64_t> dev; // document id -> database id
  std::size_t i = 0;
  for (const json& d : array("devices")) {
    where = fmt::format("devices[{}]", i++);
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
    if (dev.count(doc_id)) throw scantune::Error(fmt::format("duplicate device id {}", doc_id));
    std::optional<std::int64_t> found;
    {
      StmtUse q(info.uuid.empty()
                    ? im.stmt("SELECT id FROM devices WHERE uuid = '' AND model = ?1 ORDER BY id "
                              "LIMIT 1")
                    : im.stmt("SELECT id FROM devices WHERE uuid = ?1"));
      q->bind(1, info.uuid.empty() ? info.model() : info.uuid);
      if (q->step()) found = q->int64(0);
    }
    if (found) {
      dev[doc_id] = *found;
      ++st.devices_matched;
      continue;
    }
    StmtUse s(im.stmt("INSERT INTO devices (name, model, cc_major, cc_minor, sm_count, "
                      "memory_bus_bits, memory_clock_khz, bandwidth_gbs, l2_bytes, "
                      "driver_version, runtime_version, uuid) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                      "?7, ?8, ?9, ?10, ?11, ?12)"));
    s->bind(1, info.name).bind(2, info.model()).bind(3, info.cc_major).bind(4, info.cc_minor);
    s->bind(5, info.sm_count).bind(6, info.memory_bus_bits).bind(7, info.memory_clock_khz);
    s->bind(8, info.bandwidth_gbs).bind(9, info.l2_bytes).bind(10, info.driver_version);
    s->bind(11, info.runtime_version).bind(12, info.uuid);
    s->run();
    dev[doc_id] = im.conn.last_insert_rowid();
    ++st.devices_added;
  }
  auto dev_id = [&](const json& ref) -> std::int64_t {
    auto it = dev.find(ref.get<std::int64_t>());
    if (it == dev.end())
      throw scantune::Error(
          fmt::format("refers to device {}, which the document lacks", ref.dump()));
    return it->second;
  };

  // Runs: matched by uid.
  std::map<std::int64_t, std::int64_t> run; // document id -> database id
  std::set<std::int64_t> new_runs;          // database ids inserted by this import
  i = 0;
  for (const json& r : array("runs")) {
    where = fmt::format("runs[{}]", i++);
    const std::int64_t doc_id = r.at("id").get<std::int64_t>();
    if (run.count(doc_id)) throw scantune::Error(fmt::format("duplicate run id {}", doc_id));
    const std::string uid = r.at("uid").get<std::string>();
    const std::string status = r.at("status").get<std::string>();
    parse_run_status(status); // validates
    const auto ended = get_opt<std::string>(r, "ended_at");
    std::optional<std::int64_t> found;
    {
      StmtUse q(im.stmt("SELECT id, status FROM tuning_runs WHERE uid = ?1"));
      q->bind(1, uid);
      if (q->step()) {
        found = q->int64(0);
        if (q->text(1) == "running" && status != "running") {
          // The other copy saw the run finish: take its end.
          std::int64_t id = *found;
          q->reset();
          StmtUse u(im.stmt("UPDATE tuning_runs SET status = ?1, ended_at = ?2 WHERE id = ?3"));
          u->bind(1, status).bind(2, ended).bind(3, id);
          u->run();
        }
      }
    }
    if (found) {
      run[doc_id] = *found;
      ++st.runs_matched;
      continue;
    }
    std::optional<std::int64_t> device;
    if (auto it = r.find("device"); it != r.end() && !it->is_null()) device = dev_id(*it);
    StmtUse s(im.stmt("INSERT INTO tuning_runs (uid, device_id, started_at, ended_at, "
                      "library_version, template_hash, nvrtc_version, command_line, host, "
                      "status) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"));
    s->bind(1, uid).bind(2, device).bind(3, r.at("started_at").get<std::string>()).bind(4, ended);
    s->bind(5, r.value("library_version", std::string()));
    s->bind(6, r.value("template_hash", std::string()));
    s->bind(7, r.value("nvrtc_version", std::string()));
    s->bind(8, r.value("command_line", std::string()));
    s->bind(9, r.value("host", std::string())).bind(10, status);
    s->run();
    std::int64_t id = im.conn.last_insert_rowid();
    run[doc_id] = id;
    new_runs.insert(id);
    ++st.runs_added;
  }
  auto run_id = [&](const json& ref) -> std::optional<std::int64_t> {
    if (ref.is_null()) return std::nullopt;
    auto it = run.find(ref.get<std::int64_t>());
    if (it == run.end())
      throw scantune::Error(fmt::format("refers to run {}, which the document lacks", ref.dump()));
    return it->second;
  };

  // Measurements: appended; for runs that were already here, exact duplicates skipped.
  i = 0;
  for (const json& m : array("measurements")) {
    where = fmt::format("measurements[{}]", i++);
    auto r = run_id(m.at("run"));
    if (!r) throw scantune::Error("a measurement needs a run");
    const std::int64_t d = dev_id(m.at("device"));
    const auto type = m.at("type").get<std::string>();
    const auto op = m.at("op").get<std::string>();
    const auto op_hash = m.value("op_hash", std::string());
    const auto kind = m.at("kind").get<std::string>();
    const auto size = m.at("size").get<std::uint64_t>();
    const auto policy = m.at("policy").get<std::string>();
    const auto status = m.at("status").get<std::string>();
    parse_measurement_status(status);
    const auto median = get_opt<double>(m, "median_ns");
    const auto lo = get_opt<double>(m, "min_ns");
    const auto hi = get_opt<double>(m, "max_ns");
    const int samples = m.value("samples", 0);
    const auto gbs = get_opt<double>(m, "gbs");
    const auto regs = get_opt<int>(m, "registers");
    const auto spills = get_opt<int>(m, "spill_bytes");
    const auto message = m.value("message", std::string());
    if (!new_runs.count(*r)) {
      StmtUse q(im.stmt("SELECT 1 FROM measurements WHERE run_id = ?1 AND device_id = ?2 AND "
                        "type = ?3 AND op = ?4 AND op_hash = ?5 AND kind = ?6 AND size = ?7 AND "
                        "policy = ?8 AND status = ?9 AND median_ns IS ?10 AND min_ns IS ?11 AND "
                        "max_ns IS ?12 AND samples = ?13 AND message = ?14 LIMIT 1"));
      q->bind(1, *r).bind(2, d).bind(3, type).bind(4, op).bind(5, op_hash).bind(6, kind);
      q->bind(7, size).bind(8, policy).bind(9, status).bind(10, median).bind(11, lo);
      q->bind(12, hi).bind(13, samples).bind(14, message);
      if (q->step()) {
        ++st.measurements_skipped;
        continue;
      }
    }
    StmtUse s(im.stmt("INSERT INTO measurements (run_id, device_id, type, op, op_hash, kind, "
                      "size, policy, status, median_ns, min_ns, max_ns, samples, gbs, registers, "
                      "spill_bytes, message) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
                      "?11, ?12, ?13, ?14, ?15, ?16, ?17)"));
    s->bind(1, *r).bind(2, d).bind(3, type).bind(4, op).bind(5, op_hash).bind(6, kind);
    s->bind(7, size).bind(8, policy).bind(9, status).bind(10, median).bind(11, lo).bind(12, hi);
    s->bind(13, samples).bind(14, gbs).bind(15, regs).bind(16, spills).bind(17, message);
    s->run();
    ++st.measurements_added;
  }

  // Baselines: one per key; the lower ns wins.
  i = 0;
  for (const json& b : array("baselines")) {
    where = fmt::format("baselines[{}]", i++);
    const std::int64_t d = dev_id(b.at("device"));
    const auto r = run_id(b.value("run", json(nullptr)));
    const auto kind_name = b.at("baseline").get<std::string>();
    parse_baseline_kind(kind_name);
    const auto type = b.at("type").get<std::string>();
    const auto op = b.value("op", std::string());
    const auto op_hash = b.value("op_hash", std::string());
    const auto kind = b.value("kind", std::string());
    const auto size = b.at("size").get<std::uint64_t>();
    const double ns = b.at("ns").get<double>();
    const double gbs = b.at("gbs").get<double>();
    const auto measured_at = b.at("measured_at").get<std::string>();
    std::optional<std::int64_t> existing;
    std::optional<double> existing_ns;
    {
      StmtUse q(im.stmt("SELECT id, ns FROM baselines WHERE device_id = ?1 AND baseline = ?2 "
                        "AND type = ?3 AND op = ?4 AND op_hash = ?5 AND kind = ?6 AND size = ?7"));
      q->bind(1, d).bind(2, kind_name).bind(3, type).bind(4, op).bind(5, op_hash).bind(6, kind);
      q->bind(7, size);
      if (q->step()) {
        existing = q->int64(0);
        existing_ns = q->real(1);
      }
    }
    if (existing && !(ns < *existing_ns)) {
      ++st.baselines_kept;
      continue;
    }
    if (existing) {
      StmtUse u(im.stmt("UPDATE baselines SET run_id = ?1, ns = ?2, gbs = ?3, measured_at = ?4 "
                        "WHERE id = ?5"));
      u->bind(1, r).bind(2, ns).bind(3, gbs).bind(4, measured_at).bind(5, *existing);
      u->run();
      ++st.baselines_replaced;
      continue;
    }
    StmtUse s(im.stmt("INSERT INTO baselines (device_id, run_id, baseline, type, op, op_hash, "
                      "kind, size, ns, gbs, measured_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
                      "?8, ?9, ?10, ?11)"));
    s->bind(1, d).bind(2, r).bind(3, kind_name).bind(4, type).bind(5, op).bind(6, op_hash);
    s->bind(7, kind).bind(8, size).bind(9, ns).bind(10, gbs).bind(11, measured_at);
    s->run();
    ++st.baselines_added;
  }

  // Best: one per (model, type, op, op_hash, kind, size bucket); the lower ns wins.
  i = 0;
  for (const json& e : array("best")) {
    where = fmt::format("best[{}]", i++);
    const auto model = e.at("model").get<std::string>();
    const std::int64_t d = dev_id(e.at("device"));
    const auto r = run_id(e.value("run", json(nullptr)));
    const auto type = e.at("type").get<std::string>();
    const auto op = e.at("op").get<std::string>();
    const auto op_hash = e.value("op_hash", std::string());
    const auto kind = e.at("kind").get<std::string>();
    const auto size = e.at("size").get<std::uint64_t>();
    const auto policy = e.at("policy").get<std::string>();
    const double ns = e.at("ns").get<double>();
    const double gbs = e.at("gbs").get<double>();
    const auto updated_at = e.at("updated_at").get<std::string>();
    const int bucket = size_bucket(size);
    std::optional<std::int64_t> existing;
    std::optional<double> existing_ns;
    {
      StmtUse q(im.stmt("SELECT id, ns FROM best WHERE model = ?1 AND type = ?2 AND op = ?3 AND "
                        "op_hash = ?4 AND kind = ?5 AND size_bucket = ?6"));
      q->bind(1, model).bind(2, type).bind(3, op).bind(4, op_hash).bind(5, kind).bind(6, bucket);
      if (q->step()) {
        existing = q->int64(0);
        existing_ns = q->real(1);
      }
    }
    if (existing && !(ns < *existing_ns)) {
      ++st.best_kept;
      continue;
    }
    if (existing) {
      StmtUse u(im.stmt("UPDATE best SET device_id = ?1, run_id = ?2, size = ?3, policy = ?4, "
                        "ns = ?5, gbs = ?6, updated_at = ?7 WHERE id = ?8"));
      u->bind(1, d).bind(2, r).bind(3, size).bind(4, policy).bind(5, ns).bind(6, gbs);
      u->bind(7, updated_at).bind(8, *existing);
      u->run();
      ++st.best_replaced;
      continue;
    }
    StmtUse s(im.stmt("INSERT INTO best (model, device_id, run_id, type, op, op_hash, kind, "
                      "size_bucket, size, policy, ns, gbs, updated_at) VALUES (?1, ?2, ?3, ?4, "
                      "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"));
    s->bind(1, model).bind(2, d).bind(3, r).bind(4, type).bind(5, op).bind(6, op_hash);
    s->bind(7, kind).bind(8, bucket).bind(9, size).bind(10, policy).bind(11, ns).bind(12, gbs);
    s->bind(13, updated_at);
    s->run();
    ++st.best_added;
  }
  where.clear();
  return st;
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
    throw scantune::Error(fmt::format("tuning database {}: import failed{}{}, nothing was "
                                      "imported: {}",
                                      im.display, where.empty() ? "" : " at ", where, msg));
  }
}

ImportStats TuningDb::import_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw scantune::Error(
        fmt::format("tuning database import {}: cannot open the file", file.string()));
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::exception& e) {
    throw scantune::Error(
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

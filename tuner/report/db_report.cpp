// Reading winners, baselines and sample counts for the inspection commands.
#include "tuner/report/db_report.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "segments.hpp"
#include "sort_policy.hpp"
#include "tuner/search/problem.hpp"

namespace scantune::tuner {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

auto problem_key(const db::BestEntry& e) {
  return std::tie(e.type, e.op, e.op_hash, e.kind, e.problem, e.size_bucket);
}
auto order_key(const db::BestEntry& e) {
  return std::tuple_cat(std::tie(e.model), problem_key(e));
}

/// The samples of the measurement that made `e` the winner: of its run (when
/// known), its policy and size, status ok, the median closest to the entry's ns.
std::optional<std::int64_t> winning_samples(const std::vector<db::Measurement>& ms,
                                            const db::BestEntry& e) {
  const db::Measurement* found = nullptr;
  for (const db::Measurement& m : ms) {
    if (m.policy != e.policy || m.size != e.size || m.op_hash != e.op_hash ||
        m.problem != e.problem || !m.median_ns || (e.run_id && m.run_id != *e.run_id))
      continue;
    const double d = std::abs(*m.median_ns - e.ns);
    if (!found || d < std::abs(*found->median_ns - e.ns) ||
        (d == std::abs(*found->median_ns - e.ns) && m.samples > found->samples))
      found = &m;
  }
  if (!found) return std::nullopt;
  return found->samples;
}

} // namespace

std::optional<double> WinnerRow::x_memcpy() const {
  if (!memcpy_ns || best.ns <= 0) return std::nullopt;
  return *memcpy_ns / best.ns;
}
std::optional<double> WinnerRow::x_cub() const {
  if (!cub_ns || best.ns <= 0) return std::nullopt;
  return *cub_ns / best.ns;
}

std::vector<std::string> match_models(const std::vector<std::string>& models,
                                      const std::string& device) {
  const std::set<std::string> all(models.begin(), models.end());
  if (all.count(device)) return {device};
  std::vector<std::string> hits;
  for (const std::string& m : all)
    if (lower(m).find(lower(device)) != std::string::npos) hits.push_back(m);
  return hits;
}

std::vector<std::string> tuned_models(const db::TuningDb& db) {
  std::set<std::string> models;
  for (const db::BestEntry& e : db.list_best())
    models.insert(e.model);
  return {models.begin(), models.end()};
}

std::vector<db::BestEntry> best_entries(const db::TuningDb& db, const ReportFilter& f) {
  std::vector<db::BestEntry> entries;
  for (const std::string& model : match_models(tuned_models(db), f.device)) {
    db::BestFilter bf;
    bf.model = model;
    if (!f.type.empty()) bf.type = f.type;
    if (!f.op.empty()) bf.op = f.op;
    if (!f.kind.empty()) bf.kind = f.kind;
    // A converting --type (uint8:int32) is its accumulator and its problem text; a
    // uniform one leaves out the converting problems of that accumulator.
    const std::optional<ScanTypes> types =
        f.type.empty() ? std::nullopt : std::optional<ScanTypes>(parse_scan_types(f.type));
    if (types) bf.type = std::string(to_string(types->acc));
    for (db::BestEntry& e : db.list_best(bf)) {
      const bool converting = is_converting_problem(e.problem);
      if (types && (types->uniform() ? converting : e.problem != converting_problem(*types)))
        continue;
      entries.push_back(std::move(e));
    }
  }
  std::sort(entries.begin(), entries.end(), [](const db::BestEntry& x, const db::BestEntry& y) {
    return order_key(x) < order_key(y);
  });
  return entries;
}

std::vector<WinnerRow> winner_rows(const db::TuningDb& db, const ReportFilter& f) {
  // The ok measurements of each (device, type, op, kind), read once.
  std::map<std::tuple<std::int64_t, std::string, std::string, std::string>,
           std::vector<db::Measurement>>
      measured;
  std::vector<WinnerRow> rows;
  for (const db::BestEntry& e : best_entries(db, f)) {
    WinnerRow r;
    r.best = e;
    // The stored memcpy copies the accumulator type's bytes, not a converting problem's.
    if (auto m = is_converting_problem(e.problem)
                     ? std::nullopt
                     : db.baseline_for(e.device_id, db::BaselineKind::Memcpy, e.type, "", "", "",
                                       e.size)) {
      r.memcpy_ns = m->ns;
      r.memcpy_gbs = m->gbs;
    }
    if (auto c = db.baseline_for(e.device_id, db::BaselineKind::Cub, e.type, e.op, e.op_hash,
                                 e.kind, e.size, e.problem)) {
      r.cub_ns = c->ns;
      r.cub_gbs = c->gbs;
    }
    const auto key = std::make_tuple(e.device_id, e.type, e.op, e.kind);
    auto it = measured.find(key);
    if (it == measured.end()) {
      db::MeasurementFilter mf;
      mf.device_id = e.device_id;
      mf.type = e.type;
      mf.op = e.op;
      mf.kind = e.kind;
      mf.status = db::MeasurementStatus::Ok;
      it = measured.emplace(key, db.list_measurements(mf)).first;
    }
    r.samples = winning_samples(it->second, e);
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<db::Measurement> model_measurements(const db::TuningDb& db, const db::BestEntry& e) {
  std::set<std::int64_t> cards;
  for (const db::DeviceInfo& d : db.list_devices())
    if (d.model() == e.model) cards.insert(d.id);
  db::MeasurementFilter f;
  f.type = e.type;
  f.op = e.op;
  f.kind = e.kind;
  f.status = db::MeasurementStatus::Ok;
  std::vector<db::Measurement> ms;
  for (db::Measurement& m : db.list_measurements(f))
    if (cards.count(m.device_id) && m.median_ns) ms.push_back(std::move(m));
  return ms;
}

std::string problem_label(const db::BestEntry& e) {
  const std::string op = e.op_hash.empty() ? e.op : fmt::format("{}[{}]", e.op, e.op_hash);
  if (is_converting_problem(e.problem)) // "uint8:int32 sum inclusive"
    return fmt::format("{} {} {}", e.problem.substr(1), op, e.kind);
  // Compactions and sorts have no operator or kind: "int32 select_flags", "uint32
  // sort_keys"; a predicate's name and hash follow its compaction.
  const auto heads = detail::parse_heads(e.problem);
  if (detail::parse_sort_problem(e.problem) || (heads && detail::is_compaction(*heads)))
    return fmt::format("{} {}{}", e.type, e.problem, e.op_hash.empty() ? "" : " " + op);
  const std::string flat = fmt::format("{} {} {}", e.type, op, e.kind);
  return e.problem.empty() ? flat : fmt::format("{} {}", flat, e.problem); // "... rows"
}

std::optional<double> CompareRow::ratio() const {
  if (!a || !b || b->gbs <= 0) return std::nullopt;
  return a->gbs / b->gbs;
}

std::vector<CompareRow> compare_rows(const std::vector<db::BestEntry>& a,
                                     const std::vector<db::BestEntry>& b) {
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string, int>;
  std::map<Key, CompareRow> rows;
  for (const db::BestEntry& e : a)
    rows[Key(problem_key(e))].a = e;
  for (const db::BestEntry& e : b)
    rows[Key(problem_key(e))].b = e;
  std::vector<CompareRow> out;
  for (auto& [key, row] : rows)
    out.push_back(std::move(row));
  return out;
}

} // namespace scantune::tuner

// The dispatcher-regret run (regret_run.hpp).
#include "tuner/run/regret_run.hpp"

#include "dispatch.hpp"
#include "scan_request.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "base/size_bucket.hpp"
#include "cache/kernel_cache.hpp"
#include "tuner/gpu/gpu_device.hpp"
#include "tuner/gpu/gpu_evaluator.hpp"
#include "tuner/report/db_report.hpp"
#include "tuner/run/tune.hpp"
#include "tuner/run/winner.hpp"
#include "tuner/search/strategy.hpp"

namespace scantune::tuner {
namespace {

/// The tuned entries nearest n: the last at or below it and the first at or above it.
std::vector<const db::BestEntry*> neighbours(const std::vector<db::BestEntry>& tuned,
                                             std::uint64_t n) {
  std::vector<const db::BestEntry*> out;
  const auto above =
      std::lower_bound(tuned.begin(), tuned.end(), n,
                       [](const db::BestEntry& e, std::uint64_t v) { return e.size < v; });
  if (above != tuned.end() && above->size == n) return {&*above};
  if (above != tuned.begin()) out.push_back(&*std::prev(above));
  if (above != tuned.end()) out.push_back(&*above);
  return out;
}

/// The `top` fastest distinct Ok policies measured for `e`'s problem at its size on
/// its device model.
std::vector<std::string> top_measured(const db::TuningDb& db, const db::BestEntry& e, int top) {
  if (top <= 0) return {};
  std::vector<db::Measurement> ms;
  for (db::Measurement& m : model_measurements(db, e))
    if (m.size == e.size && m.op_hash == e.op_hash && m.problem.empty()) ms.push_back(std::move(m));
  std::sort(ms.begin(), ms.end(), [](const db::Measurement& a, const db::Measurement& b) {
    return *a.median_ns < *b.median_ns;
  });
  std::vector<std::string> keys;
  for (const db::Measurement& m : ms) {
    if (static_cast<int>(keys.size()) == top) break;
    if (std::find(keys.begin(), keys.end(), m.policy) == keys.end()) keys.push_back(m.policy);
  }
  return keys;
}

} // namespace

std::vector<db::BestEntry> tuned_entries(const db::TuningDb& db, const std::string& model,
                                         const Problem& problem) {
  db::BestFilter f;
  f.model = model;
  f.type = std::string(to_string(problem.type));
  f.op = problem.op_name();
  f.kind = std::string(to_string(problem.kind));
  f.problem = "";
  std::vector<db::BestEntry> out;
  for (db::BestEntry& e : db.list_best(f))
    if (e.op_hash == problem.op_hash()) out.push_back(std::move(e));
  std::sort(out.begin(), out.end(),
            [](const db::BestEntry& a, const db::BestEntry& b) { return a.size < b.size; });
  return out;
}

std::vector<std::uint64_t> regret_sizes(const std::vector<std::uint64_t>& tuned) {
  const std::set<std::uint64_t> unique(tuned.begin(), tuned.end());
  const std::vector<std::uint64_t> t(unique.begin(), unique.end());
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < t.size(); ++i) {
    out.push_back(t[i]);
    const std::uint64_t gap = i + 1 < t.size() ? t[i + 1] - t[i] : 0;
    if (gap < 4) continue;
    out.push_back(t[i] + gap / 4);
    out.push_back(t[i] + gap * 3 / 4);
  }
  return out;
}

std::vector<Policy> regret_candidates(const db::TuningDb& db,
                                      const std::vector<db::BestEntry>& tuned, std::uint64_t n,
                                      int top) {
  std::vector<Policy> out;
  const auto add = [&](const std::string& key, std::uint64_t tuned_size) {
    const Policy p = Policy::parse(key);
    if (!detail::applies_to(p, tuned_size, n)) return;
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  };
  const std::vector<const db::BestEntry*> near = neighbours(tuned, n);
  for (const db::BestEntry* e : near)
    add(e->policy, e->size);
  for (const db::BestEntry* e : near)
    for (const std::string& key : top_measured(db, *e, top))
      add(key, e->size);
  return out;
}

RegretPoint regret_at(Evaluator& eval, std::uint64_t n, const Policy& dispatched,
                      const std::vector<Policy>& candidates, int rounds) {
  std::vector<Policy> all{dispatched};
  for (const Policy& c : candidates)
    if (std::find(all.begin(), all.end(), c) == all.end()) all.push_back(c);
  const std::vector<Result> times = duel(eval, all, n, rounds);
  RegretPoint p;
  p.n = n;
  p.dispatched = dispatched.key();
  p.candidates = static_cast<int>(all.size());
  if (times[0].ok())
    p.dispatched_ns = times[0].median_ns;
  else
    p.note = fmt::format("dispatched: {}: {}", db::to_string(times[0].status), times[0].message);
  const Result* best = fastest(times); // a plain duel: by median
  if (!best) return p;
  p.best_ns = best->median_ns;
  p.best = best->policy.key();
  if (!p.dispatched_ns || best == &times[0]) return p;
  // The fastest of several noisy medians reads low (it is the one whose noise ran
  // lowest): a second duel of the two alone gives both fresh times.
  const std::vector<Result> again = duel(eval, {dispatched, best->policy}, n, rounds);
  if (!again[0].ok() || !again[1].ok()) return p;
  p.dispatched_ns = again[0].median_ns;
  p.best_ns = std::min(again[0].median_ns, again[1].median_ns);
  if (again[0].median_ns <= again[1].median_ns) p.best = p.dispatched;
  return p;
}

RegretReport run_regret(const RegretOptions& o,
                        const std::function<void(const std::string&)>& log) {
  Scanner scanner(ScannerOptions{o.device, o.db_path, {}});
  const std::string model = db::query_device(scanner.device()).model();
  const std::filesystem::path db_path = db::default_db_path(o.db_path);
  const std::optional<db::TuningDb> db = db::TuningDb::open_existing_read_only(db_path);
  if (!db) throw UsageError(fmt::format("no tuning database at {}", db_path.string()));
  const std::vector<db::BestEntry> tuned = tuned_entries(*db, model, o.problem);
  if (tuned.empty())
    throw UsageError(fmt::format("{} has no tuned entries for {} on {}: run `scantune tune` first",
                                 db_path.string(), o.problem.label(), model));
  std::vector<std::uint64_t> tuned_sizes;
  for (const db::BestEntry& e : tuned)
    tuned_sizes.push_back(e.size);
  const std::vector<std::uint64_t> sizes =
      fitting_sizes(o.sizes.empty() ? regret_sizes(tuned_sizes) : o.sizes, o.problem.type, log);

  RegretReport r{model, o.problem.label(), o.top, {}};
  if (sizes.empty()) return r;
  std::optional<KernelCache> cache = KernelCache::open_default("");
  GpuEvaluatorOptions go;
  go.hot = o.hot;
  go.seed = o.seed;
  GpuEvaluator eval(scanner, cache ? &*cache : nullptr, o.problem, sizes.back(), go);
  log(fmt::format("{}: inputs and reference for up to {} ready in {:.1f} s", r.problem,
                  db::size_label(sizes.back()), eval.setup_seconds()));
  for (std::uint64_t n : sizes) {
    const Policy dispatched = detail::ScannerAccess::choose(scanner, o.problem.type,
                                                            o.problem.op.ref(), o.problem.kind, n);
    std::vector<Policy> candidates = regret_candidates(*db, tuned, n, o.top);
    eval.prefetch(candidates);
    RegretPoint p = regret_at(eval, n, dispatched, candidates, o.rounds);
    p.tuned_size = std::binary_search(tuned_sizes.begin(), tuned_sizes.end(), n);
    const auto regret = p.regret_percent();
    log(fmt::format("{}: regret {} ({} candidates)", db::size_label(n),
                    regret ? fmt::format("{:.1f}%", *regret) : "-", p.candidates));
    r.points.push_back(std::move(p));
  }
  return r;
}

} // namespace scantune::tuner

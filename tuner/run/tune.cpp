// `scantune tune`: problems, the device and the DB run; per problem a strategy over
// an evaluator (GPU or replay) wrapped by the recorder, then baselines and winners.
#include "tuner/run/tune.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "cache/kernel_cache.hpp"
#include "cache/tuning_db.hpp"
#include "default_policies.hpp"
#include "errors.hpp"
#include "nvrtc_compiler.hpp"
#include "tuner/gpu/custom_op_twins.hpp"
#include "tuner/gpu/gpu_device.hpp"
#include "tuner/gpu/gpu_evaluator.hpp"
#include "tuner/gpu/type_dispatch.hpp"
#include "tuner/search/simulated_evaluator.hpp"
#include "tuner/search/strategy.hpp"

namespace scantune::tuner {
namespace {

using clock_type = std::chrono::steady_clock;
std::atomic<bool> g_interrupt{false};
std::uint64_t g_new_measurements = 0; // across problems: the unit of the test hook

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

std::uint64_t pow2(int k) {
  return std::uint64_t{1} << k;
}

/// Every valid (type, op, kind) of the options; invalid pairs (bitwise operators on
/// floating point) are skipped with a note, and none at all is a usage error.
std::vector<Problem> build_problems(const TuneOptions& o, Progress& progress) {
  std::vector<Problem> out;
  for (DataType t : o.types) {
    for (Op op : o.ops) {
      if (!op_applies(t, op)) {
        progress.note(fmt::format("skipping {} on {}: bitwise operators take integers",
                                  to_string(op), to_string(t)));
        continue;
      }
      for (ScanKind k : o.kinds)
        out.push_back(Problem{t, detail::OpSpec::from(op), k});
    }
    for (const CustomOp& c : o.custom_ops) {
      const detail::OpSpec spec = detail::OpSpec::from(c);
      detail::check_op(t, spec); // malformed names throw here, before any GPU work
      for (ScanKind k : o.kinds)
        out.push_back(Problem{t, spec, k});
    }
  }
  if (out.empty()) throw UsageError("nothing to tune: no valid (type, operator) combination");
  return out;
}

std::vector<std::uint64_t> default_sizes() {
  std::vector<std::uint64_t> s;
  for (int k = 10; k <= 30; ++k)
    s.push_back(pow2(k));
  return s;
}

double gbs_of(const Problem& p, std::uint64_t n, double ns) {
  return ns > 0 ? 2.0 * static_cast<double>(n * size_of(p.type)) / ns : 0; // read + write
}

db::Measurement to_measurement(const Result& r, const Problem& p, std::int64_t run,
                               std::int64_t device) {
  db::Measurement m;
  m.run_id = run;
  m.device_id = device;
  m.type = std::string(to_string(p.type));
  m.op = p.op_name();
  m.op_hash = p.op_hash();
  m.kind = std::string(to_string(p.kind));
  m.size = r.size;
  m.policy = r.policy.key();
  m.status = r.status;
  if (r.samples > 0) {
    m.median_ns = r.median_ns;
    m.min_ns = r.min_ns;
    m.max_ns = r.max_ns;
    m.gbs = gbs_of(p, r.size, r.median_ns);
  }
  m.samples = r.samples;
  m.registers = r.registers;
  m.spill_bytes = r.spill_bytes;
  m.message = r.message;
  return m;
}

using MemoKey = std::pair<std::string, std::uint64_t>; // (policy key, size)
/// A resumed run's measurements per (policy, size), oldest first: replayed in the
/// order they were made, so the strategy walks the same path up to the interrupt.
using Memo = std::map<MemoKey, std::deque<Result>>;

/// Wraps the real evaluator: stops on Ctrl-C, replays the measurements of a resumed
/// run, stores every new measurement in the DB and reports progress.
class Recorder : public Evaluator {
public:
  Recorder(Evaluator& inner, db::TuningDb& db, std::int64_t run, std::int64_t device,
           const Problem& problem, Progress& progress, Memo memo)
      : inner_(inner), db_(db), run_(run), device_(device), problem_(problem), progress_(progress),
        memo_(std::move(memo)) {
    // Test hook: behave as if Ctrl-C came after this many new measurements.
    if (const char* s = std::getenv("SCANTUNE_TEST_INTERRUPT_AFTER"))
      interrupt_after_ = std::strtoull(s, nullptr, 10);
  }

  Result measure(const Policy& policy, std::uint64_t n, Effort effort, double limit_ns) override {
    if (interrupt_requested()) throw Interrupted();
    if (auto it = memo_.find({policy.key(), n}); it != memo_.end() && !it->second.empty()) {
      Result r = std::move(it->second.front());
      it->second.pop_front();
      ++replayed_;
      progress_.step(r);
      return r;
    }
    Result r = inner_.measure(policy, n, effort, limit_ns);
    db_.add_measurement(to_measurement(r, problem_, run_, device_));
    ++measured_;
    progress_.step(r);
    if (interrupt_after_ && ++g_new_measurements >= interrupt_after_) request_interrupt();
    return r;
  }
  void prefetch(const std::vector<Policy>& policies) override { inner_.prefetch(policies); }

  std::size_t measured() const { return measured_; }
  std::size_t replayed() const { return replayed_; }

private:
  Evaluator& inner_;
  db::TuningDb& db_;
  std::int64_t run_, device_;
  Problem problem_;
  Progress& progress_;
  Memo memo_;
  std::size_t measured_ = 0, replayed_ = 0;
  std::uint64_t interrupt_after_ = 0;
};

/// Re-times `policies` at n in alternation, `rounds` times each, so that slow drifts
/// (clocks, background compiles, other host load) hit them all alike. Each result is
/// the median of its rounds' medians; its noise is the rounds' spread over that.
std::vector<Result> duel(Evaluator& eval, const std::vector<Policy>& policies, std::uint64_t n,
                         int rounds = 3) {
  std::vector<std::vector<Result>> runs(policies.size());
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < policies.size(); ++i)
      if (r == 0 || runs[i].back().ok())
        runs[i].push_back(eval.measure(policies[i], n, Effort::Confirm, 0));
  std::vector<Result> out;
  for (auto& rs : runs) {
    Result r = rs.back();
    std::vector<double> medians;
    for (const Result& x : rs)
      if (x.ok()) medians.push_back(x.median_ns);
    if (!r.ok() || medians.empty()) {
      out.push_back(r);
      continue;
    }
    std::sort(medians.begin(), medians.end());
    r.median_ns = medians[medians.size() / 2];
    // The rounds' median absolute deviation: one outlier round does not inflate it.
    std::vector<double> dev;
    for (double m : medians)
      dev.push_back(std::abs(m - r.median_ns));
    std::sort(dev.begin(), dev.end());
    r.noise = std::max(r.noise, dev[dev.size() / 2] / r.median_ns);
    out.push_back(r);
  }
  return out;
}

/// The strategy's leading finalists (by median) and the incumbent, dueled.
constexpr std::size_t kDuelists = 3;
std::vector<Result> final_duel(Evaluator& eval, const std::vector<Result>& finalists,
                               const Policy& incumbent, std::uint64_t n) {
  std::vector<const Result*> ok;
  for (const Result& r : finalists)
    if (r.ok()) ok.push_back(&r);
  std::sort(ok.begin(), ok.end(),
            [](const Result* a, const Result* b) { return a->median_ns < b->median_ns; });
  std::vector<Policy> policies;
  for (std::size_t i = 0; i < ok.size() && i < kDuelists; ++i)
    policies.push_back(ok[i]->policy);
  if (std::find(policies.begin(), policies.end(), incumbent) == policies.end())
    policies.push_back(incumbent);
  return duel(eval, policies, n);
}

/// The winner of one size: the fastest finalist, unless the incumbent (the previous
/// winner or the built-in default) is within the measured noise of it.
struct Winner {
  Result result;
  bool kept_incumbent = false;
};
std::optional<Winner> pick_winner(const std::vector<Result>& finalists,
                                  const std::optional<Result>& incumbent) {
  const Result* best = fastest(finalists);
  const bool inc_ok = incumbent && incumbent->ok();
  if (!best) {
    if (inc_ok) return Winner{*incumbent, true};
    return std::nullopt;
  }
  if (!inc_ok || incumbent->policy == best->policy) return Winner{*best, false};
  // The noise margin is capped: a larger spread means outliers, not a tie, and a
  // challenger 3% faster by the robust (median of rounds) measure should win.
  const double noise = std::clamp(std::max(best->noise, incumbent->noise), 0.005, 0.02);
  if (best->median_ns >= incumbent->median_ns * (1.0 - noise)) return Winner{*incumbent, true};
  return Winner{*best, false};
}

std::string us(double ns) {
  return ns > 0 ? fmt::format("{:.2f}", ns / 1000.0) : "-";
}
std::string ratio(double num, double den) {
  return num > 0 && den > 0 ? fmt::format("{:.2f}", num / den) : "-";
}

struct RunState {
  db::TuningDb* db = nullptr;
  std::int64_t run_id = 0, device_id = 0;
  std::string model;
  std::map<std::string, Memo> memo; // problem label -> the resumed run's measurements
  std::set<std::pair<std::string, std::uint64_t>> memcpy_done; // (type, size)
};

/// Loads the resumed run's measurements; returns how many.
std::size_t load_memo(RunState& st, const std::vector<Problem>& problems) {
  db::MeasurementFilter f;
  f.run_id = st.run_id;
  std::size_t count = 0;
  for (const db::Measurement& m : st.db->list_measurements(f))
    for (const Problem& p : problems)
      if (m.type == to_string(p.type) && m.op == p.op_name() && m.op_hash == p.op_hash() &&
          m.kind == to_string(p.kind)) {
        st.memo[p.label()][{m.policy, m.size}].push_back(from_measurement(m));
        ++count;
      }
  return count;
}

/// --against: each winner re-timed in alternation with the other database's winner
/// of the same bucket (same GPU model and problem), and their ratio.
void compare_against(const db::TuningDb& other, const std::string& model, const Problem& p,
                     const std::vector<Result>& winners, Evaluator& eval, std::FILE* out) {
  fmt::print(out, "\nagainst {} (re-timed here, in alternation):\n\n", other.path().string());
  fmt::print(out,
             "| n | this run | us | other | us | this / other |\n|---|---|---:|---|---:|---:|\n");
  double worst = 0;
  for (const Result& w : winners) {
    const auto theirs = other.best_for(model, std::string(to_string(p.type)), p.op_name(),
                                       p.op_hash(), std::string(to_string(p.kind)), w.size);
    if (!theirs || theirs->size_bucket != db::size_bucket(w.size)) {
      fmt::print(out, "| {} | {} | | (no entry) | | |\n", size_label(w.size), w.policy.key());
      continue;
    }
    const Policy tp = Policy::parse(theirs->policy);
    std::vector<Result> d =
        tp == w.policy ? std::vector<Result>{w, w} : duel(eval, {w.policy, tp}, w.size);
    if (!d[0].ok() || !d[1].ok()) {
      fmt::print(out, "| {} | {} | | {} | | failed |\n", size_label(w.size), w.policy.key(),
                 tp.key());
      continue;
    }
    const double r = d[0].median_ns / d[1].median_ns;
    worst = std::max(worst, r);
    fmt::print(out, "| {} | {} | {} | {} | {} | {:.3f} |\n", size_label(w.size), w.policy.key(),
               us(d[0].median_ns), tp == w.policy ? "(same)" : tp.key(), us(d[1].median_ns), r);
  }
  fmt::print(out, "\nworst ratio: {:.3f}\n", worst);
}

void print_dry_run(const TuneOptions& o, const std::vector<Problem>& problems,
                   const std::vector<std::uint64_t>& sizes, std::FILE* out) {
  const auto strategy = make_strategy(o.strategy);
  const auto exhaustive = make_strategy("exhaustive");
  fmt::print(out, "search space, {} sizes ({} .. {}), strategy {}:\n", sizes.size(),
             size_label(sizes.front()), size_label(sizes.back()), strategy->name());
  std::size_t total = 0;
  for (const Problem& p : problems) {
    SearchContext ctx;
    ctx.problem = p;
    ctx.space = o.space;
    ctx.candidates = enumerate(p.type, o.space);
    ctx.sizes = sizes;
    std::map<Algorithm, std::size_t> per_alg;
    for (const Policy& c : ctx.candidates)
      ++per_alg[c.algorithm];
    std::string algs;
    for (const auto& [a, count] : per_alg)
      algs += fmt::format("{}{} {}", algs.empty() ? "" : ", ", count, to_string(a));
    const std::size_t planned = strategy->planned_measurements(ctx);
    total += planned;
    fmt::print(out,
               "  {}: {} candidates ({}); {} candidate-sizes in all; {} plans {} "
               "measurements\n",
               p.label(), ctx.candidates.size(), algs, exhaustive->planned_measurements(ctx),
               strategy->name(), planned);
  }
  fmt::print(out, "total: {} problems, {} planned measurements\n", problems.size(), total);
}

} // namespace

void request_interrupt() noexcept {
  g_interrupt.store(true);
}
bool interrupt_requested() noexcept {
  return g_interrupt.load();
}
void clear_interrupt() noexcept {
  g_interrupt.store(false);
  g_new_measurements = 0;
}

int run_tune(const TuneOptions& o, std::FILE* out) {
  const auto start = clock_type::now();
  Progress progress(out, o.progress);
  make_strategy(o.strategy); // unknown names fail before anything else
  if (!(o.time_limit_factor > 1.0))
    throw UsageError(fmt::format("time limit factor {} must be above 1", o.time_limit_factor));
  const std::vector<Problem> problems = build_problems(o, progress);
  const std::vector<std::uint64_t> requested = o.sizes.empty() ? default_sizes() : o.sizes;
  if (o.dry_run) {
    print_dry_run(o, problems, requested, out);
    return 0;
  }

  // The device: a real one, or the recorded one of a simulation.
  std::optional<db::TuningDb> recorded;
  db::DeviceInfo device;
  if (!o.simulate_db.empty()) {
    db::OpenOptions ro;
    ro.mode = db::OpenMode::ReadOnly;
    recorded = db::TuningDb::open(o.simulate_db, ro);
    const auto devices = recorded->list_devices();
    if (devices.empty())
      throw UsageError("recorded database " + o.simulate_db + " holds no device");
    device = devices.front();
  } else {
    const GpuCount gpus = count_gpus();
    if (gpus.count == 0) {
      fmt::print(stderr,
                 "scantune tune: no CUDA device found ({}). Tuning times kernels on a GPU; use "
                 "--dry-run to see the search space, or --simulate RECORDED.db to replay a "
                 "recorded run.\n",
                 gpus.why_none);
      return 77;
    }
    const int ordinal = use_device(o.device, gpus.count);
    device = db::query_device(ordinal);
  }

  db::TuningDb db = db::TuningDb::open(db::default_db_path(o.db_path));
  RunState st;
  st.db = &db;
  st.device_id = db.add_device(device);
  st.model = device.model();
  std::optional<db::RunInfo> resumed;
  if (o.resume) {
    for (const db::RunInfo& r : db.list_runs())
      if (r.status == db::RunStatus::Interrupted && r.device_id == st.device_id) resumed = r;
    if (resumed) {
      db.reopen_run(resumed->id);
      st.run_id = resumed->id;
      const std::size_t stored = load_memo(st, problems);
      progress.note(fmt::format("resuming run {} of {} ({} measurements stored)", resumed->uid,
                                resumed->started_at, stored));
    } else {
      progress.note("no interrupted run on this device to resume; starting a new run");
    }
  }
  if (!resumed) {
    db::RunInfo run;
    run.device_id = st.device_id;
    run.library_version = SCANTUNE_TUNER_VERSION;
    run.template_hash = detail::template_sources_hash();
    run.nvrtc_version = detail::nvrtc_version();
    run.command_line = o.command_line;
    st.run_id = db.begin_run(run);
  }

  std::optional<db::TuningDb> against;
  if (!o.against_db.empty()) {
    db::OpenOptions ro;
    ro.mode = db::OpenMode::ReadOnly;
    against = db::TuningDb::open(o.against_db, ro);
  }

  std::optional<Scanner> scanner;
  std::optional<KernelCache> kernel_cache;
  if (!recorded) {
    scanner.emplace(ScannerOptions{o.device, o.db_path, {}});
    kernel_cache = KernelCache::open_default("");
  }

  const auto deadline = [&](std::size_t problems_left) {
    if (o.budget_s <= 0) return clock_type::time_point::max();
    const double left = o.budget_s - seconds_since(start);
    return clock_type::now() +
           std::chrono::duration_cast<clock_type::duration>(
               std::chrono::duration<double>(std::max(0.0, left) / problems_left));
  };

  try {
    for (std::size_t pi = 0; pi < problems.size(); ++pi) {
      const Problem& p = problems[pi];
      const auto problem_start = clock_type::now();
      const auto problem_deadline = deadline(problems.size() - pi);
      std::vector<std::uint64_t> sizes =
          recorded
              ? requested
              : fitting_sizes(requested, p.type, [&](const std::string& m) { progress.note(m); });
      if (sizes.empty()) {
        progress.note(fmt::format("{}: no size fits the device; skipped", p.label()));
        continue;
      }

      std::unique_ptr<SimulatedEvaluator> sim;
      std::unique_ptr<GpuEvaluator> gpu;
      Evaluator* inner = nullptr;
      if (recorded) {
        sim = std::make_unique<SimulatedEvaluator>(*recorded, p, device.model());
        inner = sim.get();
      } else {
        GpuEvaluatorOptions go;
        go.hot = o.hot;
        go.seed = o.seed;
        gpu = std::make_unique<GpuEvaluator>(*scanner, kernel_cache ? &*kernel_cache : nullptr, p,
                                             sizes.back(), go);
        inner = gpu.get();
        progress.note(fmt::format("{}: inputs and reference for up to {} ready in {:.1f} s",
                                  p.label(), size_label(sizes.back()), gpu->setup_seconds()));
      }
      Recorder recorder(*inner, db, st.run_id, st.device_id, p, progress, st.memo[p.label()]);

      SearchContext ctx;
      ctx.problem = p;
      ctx.space = o.space;
      ctx.candidates = enumerate(p.type, o.space);
      ctx.sizes = sizes;
      ctx.evaluator = &recorder;
      ctx.time_limit_factor = o.time_limit_factor;
      ctx.out_of_time = [problem_deadline] { return clock_type::now() >= problem_deadline; };
      const auto strategy = make_strategy(o.strategy);
      progress.begin(p.label(), strategy->planned_measurements(ctx) + sizes.size());
      const std::vector<SizeOutcome> outcomes = strategy->run(ctx);

      fmt::print(out, "\n{} on {} ({} strategy, run {}):\n\n", p.label(), st.model,
                 strategy->name(), st.run_id);
      std::vector<Result> winners;
      fmt::print(out, "| n | winner | us | GB/s | x memcpy | x CUB | note |\n");
      fmt::print(out, "|---|---|---:|---:|---:|---:|---|\n");
      for (const SizeOutcome& oc : outcomes) {
        const std::uint64_t n = oc.size;
        // The incumbent: what the dispatcher runs today (the stored winner of this
        // bucket, else its fallback: nearest bucket, same arch, built-in table).
        // Simulations have no scanner: the stored winner, else the heuristic.
        Plan inc_plan;
        if (scanner) {
          inc_plan = scanner->plan(p.type, p.op.ref(), p.kind, n);
        } else {
          inc_plan.policy = detail::default_policy(p.type, n);
          if (auto prev = db.best_for(st.model, std::string(to_string(p.type)), p.op_name(),
                                      p.op_hash(), std::string(to_string(p.kind)), n);
              prev && prev->size_bucket == db::size_bucket(n)) {
            inc_plan.policy = Policy::parse(prev->policy);
            inc_plan.match = Match::Exact;
          }
        }
        const Policy& inc_policy = inc_plan.policy;
        std::vector<Result> duelled = final_duel(recorder, oc.finalists, inc_policy, n);
        std::optional<Result> incumbent;
        for (const Result& r : duelled)
          if (r.policy == inc_policy) incumbent = r;

        // Baselines of this size, measured in this run (copied from the recording
        // when simulating).
        double memcpy_ns = 0, cub_ns = 0;
        const std::string type_s(to_string(p.type)), kind_s(to_string(p.kind));
        const auto store = [&](db::BaselineKind k, double ns, const std::string& op,
                               const std::string& kind) {
          db::Baseline b;
          b.device_id = st.device_id;
          b.run_id = st.run_id;
          b.baseline = k;
          b.type = type_s;
          b.op = op;
          b.op_hash = op.empty() ? "" : p.op_hash(); // a custom operator's CUB twin
          b.kind = kind;
          b.size = n;
          b.ns = ns;
          b.gbs = gbs_of(p, n, ns);
          db.add_baseline(b);
        };
        if (gpu) {
          if (st.memcpy_done.insert({type_s, n}).second) {
            const BaselineResult m = gpu->time_memcpy(n);
            if (m.ok) store(db::BaselineKind::Memcpy, m.stats.median_ns, "", "");
          }
          // Custom operators: only the samples with a compiled twin have a CUB baseline.
          if (!p.op.is_custom || custom_op_twin(p.op.custom, p.type)) {
            const BaselineResult c = gpu->time_cub(n);
            if (c.ok)
              store(db::BaselineKind::Cub, c.stats.median_ns, p.op_name(), kind_s);
            else
              progress.note(fmt::format("{} n = {}: {}", p.label(), size_label(n), c.error));
          }
        } else if (recorded) {
          const std::int64_t rd = sim->device().id;
          if (auto b = recorded->baseline_for(rd, db::BaselineKind::Memcpy, type_s, "", "", "", n))
            store(db::BaselineKind::Memcpy, b->ns, "", "");
          if (auto b = recorded->baseline_for(rd, db::BaselineKind::Cub, type_s, p.op_name(),
                                              p.op_hash(), kind_s, n))
            store(db::BaselineKind::Cub, b->ns, p.op_name(), kind_s);
        }
        if (auto b = db.baseline_for(st.device_id, db::BaselineKind::Memcpy, type_s, "", "", "", n))
          memcpy_ns = b->ns;
        if (auto b = db.baseline_for(st.device_id, db::BaselineKind::Cub, type_s, p.op_name(),
                                     p.op_hash(), kind_s, n))
          cub_ns = b->ns;

        const std::optional<Winner> w = pick_winner(duelled, incumbent);
        if (!w) {
          fmt::print(out, "| {} | (none: no candidate passed) | - | - | - | - | |\n",
                     size_label(n));
          continue;
        }
        db::BestEntry e;
        e.device_id = st.device_id;
        e.run_id = st.run_id;
        e.type = type_s;
        e.op = p.op_name();
        e.op_hash = p.op_hash();
        e.kind = kind_s;
        e.size = n;
        e.policy = w->result.policy.key();
        e.ns = w->result.median_ns;
        e.gbs = gbs_of(p, n, e.ns);
        db.set_best(e, db::BestMode::Replace);
        std::string note =
            w->kept_incumbent && !(fastest(duelled) && fastest(duelled)->policy == w->result.policy)
                ? "kept incumbent"
                : "";
        const auto add_note = [&](const std::string& text) {
          note += note.empty() ? text : "; " + text;
        };
        // How much the search gained over the dispatcher's own choice (same duel).
        if (incumbent && incumbent->ok() && incumbent->policy != w->result.policy)
          add_note(fmt::format("dispatch ({}) {:.3f}x", to_string(inc_plan.match),
                               incumbent->median_ns / w->result.median_ns));
        if (cub_ns > 0 && w->result.median_ns > cub_ns) add_note("slower than CUB");
        fmt::print(out, "| {} | {} | {} | {:.0f} | {} | {} | {} |\n", size_label(n), e.policy,
                   us(e.ns), e.gbs, ratio(memcpy_ns, e.ns), ratio(cub_ns, e.ns), note);
        winners.push_back(w->result);
      }
      progress.end();
      fmt::print(out, "\n{}: {} measurements ({} replayed) in {}\n", p.label(), recorder.measured(),
                 recorder.replayed(), format_duration(seconds_since(problem_start)));
      if (against) compare_against(*against, st.model, p, winners, recorder, out);
      std::fflush(out);
    }
  } catch (const Interrupted&) {
    progress.end();
    db.end_run(st.run_id, db::RunStatus::Interrupted);
    fmt::print(stderr,
               "scantune tune: interrupted; the measurements so far are stored in run {} of {}. "
               "Run the same command with --resume to continue.\n",
               st.run_id, db.path().string());
    return 130;
  }
  db.end_run(st.run_id, db::RunStatus::Complete);
  fmt::print(out, "\ntuned {} problem(s) in {}; database {}\n", problems.size(),
             format_duration(seconds_since(start)), db.path().string());
  return 0;
}

} // namespace scantune::tuner

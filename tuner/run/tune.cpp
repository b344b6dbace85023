// `scantune tune`: problems, the device and the DB run; per problem a strategy over
// an evaluator (GPU or replay) wrapped by the recorder, then baselines and winners.
#include "tuner/run/tune.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "algorithms.hpp"
#include "cache/kernel_cache.hpp"
#include "cache/tuning_db.hpp"
#include "default_policies.hpp"
#include "device_query.hpp"
#include "dispatch.hpp"
#include "errors.hpp"
#include "nvrtc_compiler.hpp"
#include "scan_request.hpp"
#include "struct_values.hpp"
#include "tuner/gpu/custom_op_twins.hpp"
#include "tuner/gpu/gpu_device.hpp"
#include "tuner/gpu/gpu_evaluator.hpp"
#include "tuner/gpu/type_dispatch.hpp"
#include "tuner/run/between_sizes.hpp"
#include "tuner/run/recorder.hpp"
#include "tuner/run/refine_winners.hpp"
#include "tuner/run/tune_matrix.hpp"
#include "tuner/run/winner.hpp"
#include "tuner/search/residency.hpp"
#include "tuner/search/search_space.hpp"
#include "tuner/search/simulated_evaluator.hpp"
#include "tuner/search/strategy.hpp"

namespace scantune::tuner {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

std::uint64_t pow2(int k) {
  return std::uint64_t{1} << k;
}

/// The segmentations each problem is tuned with: flat when none is given.
std::vector<Segmentation> segmentations(const TuneOptions& o) {
  return o.segments.empty() ? std::vector<Segmentation>{Segmentation{}} : o.segments;
}

/// Converting types take built-in operators and flat scans (the library's converting
/// scans are flat; custom operators have no host reference at a narrow output).
void check_tunable(const ScanTypes& types, const TuneOptions& o) {
  check_scan_types(types);
  if (types.uniform()) return;
  for (const Segmentation& s : o.segments)
    if (!s.flat())
      throw UsageError(fmt::format("--segments {} with converting types {}: segmented scans "
                                   "take the six accumulator types only",
                                   s.spec(), to_string(types)));
  if (!o.custom_ops.empty())
    throw UsageError(fmt::format("--custom-op with converting types {}: the tuner verifies "
                                 "converting scans of built-in operators only",
                                 to_string(types)));
}

/// Every valid (type, op, kind) of the options; invalid pairs (bitwise operators on
/// floating point) are skipped with a note, and none at all is a usage error.
std::vector<Problem> build_problems(const TuneOptions& o, Progress& progress) {
  std::vector<Problem> out;
  for (const ScanTypes& types : o.types) {
    const DataType t = types.acc;
    check_tunable(types, o);
    for (Op op : o.ops) {
      if (!op_applies(t, op)) {
        progress.note(fmt::format("skipping {} on {}: bitwise operators take integers",
                                  to_string(op), to_string(t)));
        continue;
      }
      for (const Segmentation& s : segmentations(o))
        for (ScanKind k : o.kinds) {
          out.push_back(Problem::of(types, detail::OpSpec::from(op), k));
          out.back().segments = s;
        }
    }
    for (const CustomOp& c : o.custom_ops) {
      if (c.is_struct()) continue; // its own type: once, below
      const detail::OpSpec spec = detail::OpSpec::from(c);
      detail::check_op(t, spec); // malformed names throw here, before any GPU work
      for (const Segmentation& s : segmentations(o))
        for (ScanKind k : o.kinds)
          out.push_back(Problem{t, spec, k, s});
    }
  }
  for (const CustomOp& c : o.custom_ops) { // struct-valued: flat scans of the struct
    if (!c.is_struct()) continue;
    if (!o.segments.empty())
      throw UsageError(fmt::format("--custom-op {}: struct values are tuned flat", c.name));
    const detail::OpSpec spec = detail::OpSpec::from(c);
    detail::check_op(detail::kStructStandIn, spec);
    for (ScanKind k : o.kinds)
      out.push_back(Problem{detail::kStructStandIn, spec, k});
  }
  if (out.empty()) throw UsageError("nothing to tune: no valid (type, operator) combination");
  return out;
}

/// An axis scan's candidates: the axis kernel reads block_threads, items_per_thread
/// (rows per thread), vector_width and tile_loop (whole chains a block) only, so each
/// distinct combination of the segmented candidates once, on the default axis policy of
/// the problem's shape, which is among them: a tune never picks worse than dispatch's
/// default.
std::vector<Policy> axis_candidates(const Problem& p, const std::vector<Policy>& segmented) {
  const Segmentation& s = p.segments;
  const Policy def = detail::default_axis_policy(p.type, {s.length, s.inner});
  std::vector<Policy> out{def};
  std::set<std::string> seen{def.key()};
  for (const Policy& q : segmented) {
    Policy a = def;
    a.block_threads = q.block_threads;
    a.items_per_thread = q.items_per_thread;
    a.vector_width = q.vector_width;
    a.tile_loop = q.tile_loop &&
                  detail::axis_loop_chains(q, {s.length, s.inner}, size_of(p.size_types().acc));
    if (!seen.insert(a.key()).second) continue;
    if (!detail::problem_invalid_reason(a, detail::Heads::Axis, p.types().acc) &&
        !a.invalid_reason(p.types()))
      out.push_back(a);
  }
  return out;
}

} // namespace

std::vector<Policy> candidates_for(const Problem& p, const SpaceOptions& space) {
  std::vector<Policy> all = enumerate(p.size_types(), space);
  if (p.struct_bytes()) { // the shapes a struct of its size runs
    all.erase(
        std::remove_if(all.begin(), all.end(),
                       [&](const Policy& q) {
                         return detail::struct_invalid_reason(q, p.struct_bytes()).has_value();
                       }),
        all.end());
    if (all.empty())
      throw UsageError(fmt::format("{}: no policy of the search space runs {}-byte structs",
                                   p.label(), p.struct_bytes()));
  }
  if (p.segments.flat()) return all;
  std::vector<Policy> out;
  for (const Policy& q : all)
    if (!detail::segmented_invalid_reason(q, p.segments.heads())) out.push_back(q);
  if (out.empty())
    throw UsageError(fmt::format("--segments {}: no policy of the search space runs this segmented "
                                 "scan (it takes lookback_warp with warp_scans, or lookback_bulk "
                                 "over flags, keys and offsets)",
                                 p.segments.spec()));
  return p.segments.axis() ? axis_candidates(p, out) : out;
}

namespace {

std::vector<std::uint64_t> default_sizes() {
  std::vector<std::uint64_t> s;
  for (int k = 10; k <= 30; ++k)
    s.push_back(pow2(k));
  return s;
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
  // Converting and struct problems: their memcpy (of their input and output bytes) by (problem,
  // size), for this run's table only: the database keeps one memcpy per type and size.
  std::map<std::pair<std::string, std::uint64_t>, double> converting_memcpy;
};

/// Loads the resumed run's measurements; returns how many.
std::size_t load_memo(RunState& st, const std::vector<Problem>& problems) {
  db::MeasurementFilter f;
  f.run_id = st.run_id;
  std::size_t count = 0;
  for (const db::Measurement& m : st.db->list_measurements(f))
    for (const Problem& p : problems)
      if (m.type == to_string(p.type) && m.op == p.op_name() && m.op_hash == p.op_hash() &&
          m.kind == to_string(p.kind) && m.problem == p.problem()) {
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
    const auto theirs =
        other.best_for(model, std::string(to_string(p.type)), p.op_name(), p.op_hash(),
                       std::string(to_string(p.kind)), w.size, p.problem());
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

/// The search of problem `p` over `sizes`, without an evaluator or deadline yet.
SearchContext search_context(const TuneOptions& o, const Problem& p,
                             const std::vector<std::uint64_t>& sizes) {
  SearchContext ctx;
  ctx.problem = p;
  ctx.space = o.space;
  ctx.candidates = candidates_for(p, o.space);
  ctx.sizes = sizes;
  ctx.time_limit_factor = o.time_limit_factor;
  return ctx;
}

/// The sizes of `requested` at which the problem is itself as dispatch keys it
/// (Segmentation::runs_at); the others are left out with a note.
std::vector<std::uint64_t> problem_sizes(const Problem& p,
                                         const std::vector<std::uint64_t>& requested,
                                         std::uint64_t seed, Progress& progress) {
  std::vector<std::uint64_t> out, left_out;
  for (std::uint64_t n : requested)
    (p.segments.runs_at(n, seed) ? out : left_out).push_back(n);
  if (!left_out.empty())
    progress.note(fmt::format("{}: {} {} left out ({})", p.label(),
                              left_out.size() == 1 ? "size" : "sizes", fmt::join(left_out, ", "),
                              p.segments.axis() ? "below one outer slice"
                                                : fmt::format("dispatch classes such calls apart "
                                                              "from {}",
                                                              p.problem())));
  return out;
}

void print_dry_run(const TuneOptions& o, const std::vector<Problem>& problems,
                   const std::vector<std::uint64_t>& sizes, std::FILE* out) {
  const auto strategy = make_strategy(o.strategy);
  const auto exhaustive = make_strategy("exhaustive");
  fmt::print(out, "search space, {} sizes ({} .. {}), strategy {}:\n", sizes.size(),
             size_label(sizes.front()), size_label(sizes.back()), strategy->name());
  std::size_t total = 0;
  Progress notes(out, Progress::Mode::Lines);
  for (const Problem& p : problems) {
    const std::vector<std::uint64_t> runs = problem_sizes(p, sizes, o.seed, notes);
    if (runs.empty()) {
      fmt::print(out, "  {} (problem {}): no size of its class\n", p.label(), p.problem());
      continue;
    }
    const SearchContext ctx = search_context(o, p, runs);
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
               p.segments.flat() ? p.label()
               : p.segments.axis()
                   ? fmt::format("{} (problem {}; n rounded down to whole {}x{} slices)", p.label(),
                                 p.problem(), p.segments.length, p.segments.inner)
                   : fmt::format("{} (problem {})", p.label(), p.problem()),
               ctx.candidates.size(), algs, exhaustive->planned_measurements(ctx), strategy->name(),
               planned);
  }
  fmt::print(out, "total: {} problems, {} planned measurements\n", problems.size(), total);
}

/// An open tuning run: the options, where it measures (a GPU, or a recording it
/// replays) and where it stores (the DB run in `st`), and what every problem shares.
struct Tuning {
  const TuneOptions& o;
  std::FILE* out;
  Progress& progress;
  clock_type::time_point start;
  std::optional<db::TuningDb> recorded; // simulations: the replayed recording
  db::DeviceInfo device;
  RunState st;
  std::optional<db::TuningDb> against;
  std::optional<Scanner> scanner; // GPU runs: the dispatcher whose choice is the incumbent
  std::optional<KernelCache> kernel_cache;
};

db::TuningDb open_read_only(const std::string& path) {
  db::OpenOptions ro;
  ro.mode = db::OpenMode::ReadOnly;
  return db::TuningDb::open(path, ro);
}

/// The device: the recorded one of a simulation, else the GPU of the options. False
/// (after a message) when there is no GPU.
bool open_device(Tuning& t) {
  if (!t.o.simulate_db.empty()) {
    t.recorded = open_read_only(t.o.simulate_db);
    const auto devices = t.recorded->list_devices();
    if (devices.empty())
      throw UsageError("recorded database " + t.o.simulate_db + " holds no device");
    t.device = devices.front();
    return true;
  }
  const GpuCount gpus = count_gpus();
  if (gpus.count == 0) {
    fmt::print(stderr,
               "scantune tune: no CUDA device found ({}). Tuning times kernels on a GPU; use "
               "--dry-run to see the search space, or --simulate RECORDED.db to replay a "
               "recorded run.\n",
               gpus.why_none);
    return false;
  }
  t.device = db::query_device(use_device(t.o.device, gpus.count));
  return true;
}

bool same_model(const db::TuningDb& db, std::int64_t device_id, const std::string& model) {
  const std::optional<db::DeviceInfo> d = db.device(device_id);
  return d && d->model() == model;
}

/// The DB run: the last interrupted run on this GPU model (--resume, with its
/// measurements to replay), else a new one. By model, not by card: winners are
/// stored per model, and a run stopped on one card of a cloud machine is resumed
/// on whichever card of that model the next machine has.
void open_run(Tuning& t, db::TuningDb& db, const std::vector<Problem>& problems) {
  RunState& st = t.st;
  st.db = &db;
  st.device_id = db.add_device(t.device);
  st.model = t.device.model();
  std::optional<db::RunInfo> resumed;
  if (t.o.resume) {
    for (const db::RunInfo& r : db.list_runs())
      if (r.status == db::RunStatus::Interrupted && r.device_id &&
          same_model(db, *r.device_id, st.model))
        resumed = r;
    if (resumed) {
      db.reopen_run(resumed->id);
      st.run_id = resumed->id;
      const std::size_t stored = load_memo(st, problems);
      t.progress.note(fmt::format("resuming run {} of {} ({} measurements stored)", resumed->uid,
                                  resumed->started_at, stored));
      return;
    }
    t.progress.note("no interrupted run on this GPU model to resume; starting a new run");
  }
  db::RunInfo run;
  run.device_id = st.device_id;
  run.library_version = SCANTUNE_TUNER_VERSION;
  run.template_hash = detail::template_sources_hash();
  run.nvrtc_version = detail::nvrtc_version();
  run.command_line = t.o.command_line;
  st.run_id = db.begin_run(run);
}

/// The --against database, and on a GPU the scanner and kernel cache.
void open_shared(Tuning& t) {
  if (!t.o.against_db.empty()) t.against = open_read_only(t.o.against_db);
  if (!t.recorded) {
    t.scanner.emplace(ScannerOptions{t.o.device, t.o.db_path, {}});
    t.kernel_cache = KernelCache::open_default("");
  }
}

/// The end of one problem's share of the --budget: what is left of it, split evenly
/// over the problems left.
clock_type::time_point problem_deadline(const Tuning& t, std::size_t problems_left) {
  if (t.o.budget_s <= 0) return clock_type::time_point::max();
  const double left = t.o.budget_s - seconds_since(t.start);
  return clock_type::now() +
         std::chrono::duration_cast<clock_type::duration>(
             std::chrono::duration<double>(std::max(0.0, left) / problems_left));
}

/// One problem's evaluator: the GPU's, or the recording's replay.
struct ProblemEvaluator {
  std::unique_ptr<SimulatedEvaluator> sim;
  std::unique_ptr<GpuEvaluator> gpu;
  Evaluator& get() { return sim ? static_cast<Evaluator&>(*sim) : *gpu; }
};

ProblemEvaluator make_evaluator(Tuning& t, const Problem& p, std::uint64_t max_n) {
  ProblemEvaluator ev;
  if (t.recorded) {
    ev.sim = std::make_unique<SimulatedEvaluator>(*t.recorded, p, t.device.model());
    return ev;
  }
  GpuEvaluatorOptions go;
  go.hot = t.o.hot;
  go.seed = t.o.seed;
  go.compile_worker = t.o.compile_worker;
  KernelCache* kc = t.kernel_cache ? &*t.kernel_cache : nullptr;
  ev.gpu = std::make_unique<GpuEvaluator>(*t.scanner, kc, p, max_n, go);
  t.progress.note(fmt::format("{}: inputs and reference for up to {} ready in {:.1f} s", p.label(),
                              size_label(max_n), ev.gpu->setup_seconds()));
  return ev;
}

/// The incumbent: what the dispatcher runs today (the stored winner of this bucket,
/// else its fallback: nearest bucket, same arch, built-in table). Simulations have
/// no scanner: the stored winner, else the heuristic.
detail::Choice incumbent_plan(const Tuning& t, const Problem& p, std::uint64_t n) {
  if (t.scanner && p.converts)
    return detail::ScannerAccess::choice(*t.scanner, *p.converts, p.op.ref(), p.kind, n);
  if (t.scanner)
    return detail::ScannerAccess::choice(*t.scanner, p.type, p.op.ref(), p.kind, n,
                                         p.segments.heads(), p.segments.shape());
  detail::Choice plan;
  plan.policy = p.struct_bytes() ? detail::default_struct_policy(p.struct_bytes(), n)
                                 : detail::default_policy(p.type, n);
  if (p.converts) plan.policy = detail::converted_policy(plan.policy, *p.converts, n);
  if (auto prev = t.st.db->best_for(t.st.model, std::string(to_string(p.type)), p.op_name(),
                                    p.op_hash(), std::string(to_string(p.kind)), n, p.problem());
      prev && prev->size_bucket == db::size_bucket(n)) {
    plan.policy = Policy::parse(prev->policy);
    plan.match = Match::Exact;
  }
  return plan;
}

/// A baseline of size n in this run: memcpy (no operator or kind) or CUB.
void store_baseline(Tuning& t, const Problem& p, std::uint64_t n, db::BaselineKind k, double ns,
                    const std::string& op, const std::string& kind) {
  db::Baseline b;
  b.device_id = t.st.device_id;
  b.run_id = t.st.run_id;
  b.baseline = k;
  b.type = std::string(to_string(p.type));
  b.op = op;
  b.op_hash = op.empty() ? "" : p.op_hash(); // a custom operator's CUB twin
  b.kind = kind;
  b.problem = op.empty() ? "" : p.problem(); // memcpy is one per type and size
  b.size = n;
  b.ns = ns;
  b.gbs = op.empty() ? 2.0 * static_cast<double>(n * size_of(p.type)) / ns : gbs_of(p, n, ns);
  t.st.db->add_baseline(b);
}

/// Measures the baselines of size n on the GPU (memcpy once per type and size), or
/// copies them from the recording when simulating.
void measure_baselines(Tuning& t, const Problem& p, std::uint64_t n, ProblemEvaluator& ev) {
  const std::string type_s(to_string(p.type)), kind_s(to_string(p.kind));
  if (ev.gpu) {
    if (p.converts || p.struct_bytes()) {
      const auto key = std::make_pair(p.problem(), n);
      if (!t.st.converting_memcpy.count(key))
        if (const BaselineResult m = ev.gpu->time_memcpy(n); m.ok)
          t.st.converting_memcpy[key] = m.stats.median_ns;
    } else if (t.st.memcpy_done.insert({type_s, n}).second) {
      const BaselineResult m = ev.gpu->time_memcpy(n);
      if (m.ok) store_baseline(t, p, n, db::BaselineKind::Memcpy, m.stats.median_ns, "", "");
    }
    // Custom operators: only the samples with a compiled twin have a CUB baseline.
    if (!p.op.is_custom || custom_op_twin(p.op.custom, p.type)) {
      const BaselineResult c = ev.gpu->time_cub(n);
      if (c.ok)
        store_baseline(t, p, n, db::BaselineKind::Cub, c.stats.median_ns, p.op_name(), kind_s);
      else
        t.progress.note(fmt::format("{} n = {}: {}", p.label(), size_label(n), c.error));
    }
    return;
  }
  const std::int64_t rd = ev.sim->device().id;
  if (auto b = t.recorded->baseline_for(rd, db::BaselineKind::Memcpy, type_s, "", "", "", n);
      b && !p.converts && !p.struct_bytes())
    store_baseline(t, p, n, db::BaselineKind::Memcpy, b->ns, "", "");
  if (auto b = t.recorded->baseline_for(rd, db::BaselineKind::Cub, type_s, p.op_name(), p.op_hash(),
                                        kind_s, n, p.problem()))
    store_baseline(t, p, n, db::BaselineKind::Cub, b->ns, p.op_name(), kind_s);
}

/// The baselines of size n this run holds (0: none).
struct BaselineNs {
  double memcpy = 0, cub = 0;
};
BaselineNs stored_baselines(const Tuning& t, const Problem& p, std::uint64_t n) {
  const std::string type_s(to_string(p.type)), kind_s(to_string(p.kind));
  const db::TuningDb& db = *t.st.db;
  BaselineNs out;
  if (p.converts || p.struct_bytes()) {
    const auto it = t.st.converting_memcpy.find({p.problem(), n});
    if (it != t.st.converting_memcpy.end()) out.memcpy = it->second;
  } else if (auto b =
                 db.baseline_for(t.st.device_id, db::BaselineKind::Memcpy, type_s, "", "", "", n)) {
    out.memcpy = b->ns;
  }
  if (auto b = db.baseline_for(t.st.device_id, db::BaselineKind::Cub, type_s, p.op_name(),
                               p.op_hash(), kind_s, n, p.problem()))
    out.cub = b->ns;
  return out;
}

/// "n <= N: LOWER (worst 1.074x -> 1.000x)": a stored split.
std::string split_note(const BucketSplit& s) {
  return fmt::format("n <= {}: {} (worst {:.3f}x -> {:.3f}x)", s.lower_upto, s.lower.key(), s.one,
                     s.two);
}

/// Stores the winner of size n's bucket, replacing the previous one (and its split).
/// With `split`, its upper winner and its lower one instead of `w`.
db::BestEntry store_winner(Tuning& t, const Problem& p, std::uint64_t n, const Result& w,
                           const std::optional<BucketSplit>& split = std::nullopt) {
  const Result& stored = split ? split->upper : w;
  db::BestEntry e;
  e.device_id = t.st.device_id;
  e.run_id = t.st.run_id;
  e.type = std::string(to_string(p.type));
  e.op = p.op_name();
  e.op_hash = p.op_hash();
  e.kind = std::string(to_string(p.kind));
  e.problem = p.problem();
  e.size = n;
  e.policy = stored.policy.key();
  e.ns = stored.median_ns;
  e.gbs = gbs_of(p, n, e.ns);
  if (split) {
    e.lower_policy = split->lower.key();
    e.lower_upto = split->lower_upto;
  }
  t.st.db->set_best(e, db::BestMode::Replace);
  return e;
}

/// The winner's gain over the dispatcher's own choice in the same duel; nothing when
/// that choice won or did not run.
std::optional<double> gain_over_dispatch(const Winner& w, const std::optional<Result>& incumbent) {
  if (!incumbent || !incumbent->ok() || incumbent->policy == w.result.policy) return std::nullopt;
  return incumbent->rank() / w.result.rank();
}

/// The note of a winner's row: kept incumbent, the gain over the dispatcher's own
/// choice (same duel), slower than CUB.
std::string winner_note(const Winner& w, const std::vector<Result>& duelled,
                        const std::optional<Result>& incumbent, const detail::Choice& inc_plan,
                        double cub_ns) {
  const Result* best = fastest(duelled);
  std::string note =
      w.kept_incumbent && !(best && best->policy == w.result.policy) ? "kept incumbent" : "";
  const auto add_note = [&](const std::string& text) { note += note.empty() ? text : "; " + text; };
  if (const std::optional<double> gain = gain_over_dispatch(w, incumbent))
    add_note(fmt::format("dispatch ({}) {:.3f}x", to_string(inc_plan.match), *gain));
  if (cub_ns > 0 && w.result.median_ns > cub_ns) add_note("slower than CUB");
  return note;
}

/// The sizes whose winner replaced the dispatcher's choice, and by how much.
struct DispatchGains {
  std::size_t sizes = 0;
  std::size_t splits = 0; // buckets stored with two winners
  std::vector<double> gains;
  void add(std::optional<double> gain) {
    ++sizes;
    if (gain) gains.push_back(*gain);
  }
  std::string summary() const {
    const std::string two =
        splits ? fmt::format("; {} buckets split between two winners", splits) : "";
    if (gains.empty()) return fmt::format("kept what dispatch ran at all {} sizes{}", sizes, two);
    const auto [lo, hi] = std::minmax_element(gains.begin(), gains.end());
    return fmt::format("replaced what dispatch ran at {} of {} sizes, by {:.3f}-{:.3f}x{}",
                       gains.size(), sizes, *lo, *hi, two);
  }
};

/// One size of a problem after the search: the finalists and the incumbent dueled,
/// the baselines, the winner stored and printed as one table row. `runners_up`: the
/// duel's other policies that ran, fastest first.
std::optional<Result> settle_size(Tuning& t, const Problem& p, const SizeOutcome& oc,
                                  ProblemEvaluator& ev, Evaluator& recorder,
                                  std::vector<Policy>& runners_up, DispatchGains& gains) {
  const std::uint64_t n = oc.size;
  const detail::Choice inc_plan = incumbent_plan(t, p, n);
  DuelGrid grid;
  const std::vector<Result> duelled = final_duel(recorder, oc.finalists, inc_plan.policy, n, &grid);
  for (const Result* r : ranked_ok(duelled))
    runners_up.push_back(r->policy);
  std::optional<Result> incumbent;
  for (const Result& r : duelled)
    if (r.policy == inc_plan.policy) incumbent = r;
  measure_baselines(t, p, n, ev);
  const BaselineNs base = stored_baselines(t, p, n);
  const std::optional<Winner> w = pick_winner(duelled, incumbent);
  if (!w) {
    fmt::print(t.out, "| {} | (none: no candidate passed) | - | - | - | - | |\n", size_label(n));
    return std::nullopt;
  }
  runners_up.erase(std::remove(runners_up.begin(), runners_up.end(), w->result.policy),
                   runners_up.end());
  const std::optional<BucketSplit> split = split_of(recorder, duelled, grid, w->result);
  const db::BestEntry e = store_winner(t, p, n, w->result, split);
  gains.add(gain_over_dispatch(*w, incumbent));
  std::string note = winner_note(*w, duelled, incumbent, inc_plan, base.cub);
  if (split) note += (note.empty() ? "" : "; ") + split_note(*split);
  fmt::print(t.out, "| {} | {} | {} | {:.0f} | {} | {} | {} |\n", size_label(n), e.policy, us(e.ns),
             e.gbs, ratio(base.memcpy, e.ns), ratio(base.cub, e.ns), note);
  return w->result;
}

/// Whether `after` is the policy `before` names with another min_blocks bound only.
bool only_residency(const std::string& before, const Policy& after) {
  Policy a = Policy::parse(before), b = after;
  if (a.min_blocks == b.min_blocks) return false;
  a.min_blocks = b.min_blocks = 0;
  return a == b;
}

/// The checks after every size is settled (refine_winners.hpp, between_sizes.hpp):
/// replaced winners and the half-octave sizes they settle are stored and printed as
/// rows of the problem's table.
void revise_between_sizes(Tuning& t, const Problem& p, const SearchContext& ctx,
                          std::vector<std::optional<Result>>& won,
                          const std::vector<std::vector<Policy>>& runners_up, Evaluator& recorder) {
  const std::vector<std::uint64_t>& sizes = ctx.sizes;
  const auto print = [&](const SizeRevision& r, const std::string& what) {
    const db::BestEntry e = store_winner(t, p, r.size, r.winner, r.split);
    std::string note = r.before == r.winner.policy.key()
                           ? std::string("kept")
                           : fmt::format("{} ({:.3f}x)", what, r.gain);
    if (r.split) note += "; " + split_note(*r.split);
    fmt::print(t.out, "| {} | {} | {} | {:.0f} | - | - | {} |\n", size_label(r.size), e.policy,
               us(e.ns), e.gbs, note);
  };

  std::set<std::string> allowed;
  for (const Policy& c : ctx.candidates)
    allowed.insert(c.key());
  const std::optional<detail::SmLimits> sm =
      detail::sm_limits(t.device.cc_major * 10 + t.device.cc_minor);
  const NeighboursAt around = [&](const Result& w, std::uint64_t n) {
    std::vector<Policy> out;
    for (const Policy& q : neighbours(w.policy, p.size_types(), ctx.space))
      if (allowed.count(q.key()) && applies_at(q, n, ctx.space)) out.push_back(q);
    if (ctx.space.residency_neighbours && sm && w.registers && !p.struct_bytes())
      for (const Policy& q : residency_neighbours(w.policy, *w.registers, p.types(), *sm))
        out.push_back(q);
    return out;
  };
  for (const SizeRevision& r : refine_winners(recorder, sizes, won, around))
    print(r,
          fmt::format("a {} neighbour, replaces {}",
                      only_residency(r.before, r.winner.policy) ? "residency" : "grid", r.before));
  for (const SizeRevision& r : cross_check_neighbours(recorder, sizes, won))
    print(r, fmt::format("{}'s winner, replaces {}", size_label(r.from), r.before));
  for (const SizeRevision& r : settle_midpoints(recorder, sizes, won, runners_up))
    print(r, fmt::format("between sizes: from {}", size_label(r.from)));
}

/// The buckets of `p` this run left with two winners.
std::size_t splits_stored(const Tuning& t, const Problem& p) {
  db::BestFilter f;
  f.model = t.st.model;
  f.type = std::string(to_string(p.type));
  f.op = p.op_name();
  f.kind = std::string(to_string(p.kind));
  f.problem = p.problem();
  std::size_t n = 0;
  for (const db::BestEntry& e : t.st.db->list_best(f))
    n += e.run_id == t.st.run_id && e.op_hash == p.op_hash() && !e.lower_policy.empty();
  return n;
}

/// One problem: the search over the sizes that fit, then every size settled, the
/// summary and the --against comparison.
void tune_problem(Tuning& t, const Problem& p, const std::vector<std::uint64_t>& requested,
                  clock_type::time_point deadline) {
  const auto problem_start = clock_type::now();
  const auto note = [&](const std::string& m) { t.progress.note(m); };
  const std::vector<std::uint64_t> sizes =
      t.recorded ? requested
                 : fitting_sizes(requested, p.size_types().acc, note, p.extra_struct_bytes());
  if (sizes.empty()) {
    t.progress.note(fmt::format("{}: no size fits the device; skipped", p.label()));
    return;
  }
  ProblemEvaluator ev = make_evaluator(t, p, sizes.back());
  Recorder recorder(ev.get(), *t.st.db, t.st.run_id, t.st.device_id, p, t.progress,
                    t.st.memo[p.label()]);

  SearchContext ctx = search_context(t.o, p, sizes);
  ctx.evaluator = &recorder;
  ctx.out_of_time = [deadline] { return clock_type::now() >= deadline; };
  const auto strategy = make_strategy(t.o.strategy);
  t.progress.begin(p.label(), strategy->planned_measurements(ctx) + sizes.size());
  const std::vector<SizeOutcome> outcomes = strategy->run(ctx);

  fmt::print(t.out, "\n{} on {} ({} strategy, run {}):\n\n", p.label(), t.st.model,
             strategy->name(), t.st.run_id);
  fmt::print(t.out, "| n | winner | us | GB/s | x memcpy | x CUB | note |\n");
  fmt::print(t.out, "|---|---|---:|---:|---:|---:|---|\n");
  std::vector<std::uint64_t> settled;
  std::vector<std::optional<Result>> won;
  std::vector<std::vector<Policy>> runners_up(outcomes.size());
  DispatchGains gains;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    settled.push_back(outcomes[i].size);
    won.push_back(settle_size(t, p, outcomes[i], ev, recorder, runners_up[i], gains));
  }
  ctx.sizes = settled;
  revise_between_sizes(t, p, ctx, won, runners_up, recorder);
  gains.splits = splits_stored(t, p);
  t.progress.end();
  std::vector<Result> winners;
  for (const std::optional<Result>& w : won)
    if (w) winners.push_back(*w);
  fmt::print(t.out, "\n{}: {} measurements ({} replayed) in {}; {}\n", p.label(),
             recorder.measured(), recorder.replayed(),
             format_duration(seconds_since(problem_start)), gains.summary());
  if (t.against) compare_against(*t.against, t.st.model, p, winners, recorder, t.out);
  std::fflush(t.out);
}

/// The sizes each problem tunes: all of `requested`, or with skip_tuned those whose
/// bucket has no winner for this GPU model yet (an --all run picking up where it stopped).
std::vector<std::vector<std::uint64_t>> sizes_to_tune(Tuning& t,
                                                      const std::vector<Problem>& problems,
                                                      const std::vector<std::uint64_t>& requested) {
  std::vector<std::vector<std::uint64_t>> out;
  for (const Problem& p : problems) {
    const std::vector<std::uint64_t> runs = problem_sizes(p, requested, t.o.seed, t.progress);
    out.push_back(t.o.skip_tuned ? untuned_sizes(*t.st.db, t.st.model, p, runs) : runs);
    if (out.back().size() < runs.size())
      t.progress.note(fmt::format("{}: {} of {} size buckets already tuned on {}{}", p.label(),
                                  runs.size() - out.back().size(), runs.size(), t.st.model,
                                  out.back().empty() ? "; skipped" : ""));
  }
  return out;
}

/// Several problems: the progress of the whole run, planned with each problem's
/// strategy over its sizes (the ETA of `scantune tune --all`).
void plan_progress(Tuning& t, const std::vector<Problem>& problems,
                   const std::vector<std::vector<std::uint64_t>>& sizes) {
  const auto strategy = make_strategy(t.o.strategy);
  std::size_t count = 0, planned = 0;
  for (std::size_t pi = 0; pi < problems.size(); ++pi) {
    if (sizes[pi].empty()) continue;
    ++count;
    planned += strategy->planned_measurements(search_context(t.o, problems[pi], sizes[pi])) +
               sizes[pi].size();
  }
  if (count > 1) t.progress.plan_run(count, planned);
}

/// Every problem in turn; on Ctrl-C the run is marked interrupted (exit 130).
int tune_problems(Tuning& t, const std::vector<Problem>& problems,
                  const std::vector<std::uint64_t>& requested) {
  db::TuningDb& db = *t.st.db;
  const auto sizes = sizes_to_tune(t, problems, requested);
  plan_progress(t, problems, sizes);
  std::size_t left = 0;
  for (const auto& s : sizes)
    left += !s.empty();
  try {
    for (std::size_t pi = 0; pi < problems.size(); ++pi)
      if (!sizes[pi].empty()) tune_problem(t, problems[pi], sizes[pi], problem_deadline(t, left--));
  } catch (const Interrupted&) {
    t.progress.end();
    db.end_run(t.st.run_id, db::RunStatus::Interrupted);
    fmt::print(stderr,
               "scantune tune: interrupted; the measurements so far are stored in run {} of {}. "
               "Run the same command{} to continue.\n",
               t.st.run_id, db.path().string(), t.o.resume ? " again" : " with --resume");
    return 130;
  }
  db.end_run(t.st.run_id, db::RunStatus::Complete);
  fmt::print(t.out, "\ntuned {} problem(s) in {}; database {}\n", problems.size(),
             format_duration(seconds_since(t.start)), db.path().string());
  return 0;
}

} // namespace

int run_tune(const TuneOptions& o, std::FILE* out) {
  const auto start = clock_type::now();
  Progress progress(out, o.progress);
  Tuning t{o, out, progress, start, {}, {}, {}, {}, {}, {}};
  make_strategy(o.strategy); // unknown names fail before anything else
  if (!(o.time_limit_factor > 1.0))
    throw UsageError(fmt::format("time limit factor {} must be above 1", o.time_limit_factor));
  const std::vector<Problem> problems = build_problems(o, progress);
  const std::vector<std::uint64_t> requested = o.sizes.empty() ? default_sizes() : o.sizes;
  if (o.dry_run) {
    print_dry_run(o, problems, requested, out);
    return 0;
  }
  if (!open_device(t)) return 77;
  db::TuningDb db = db::TuningDb::open(db::default_db_path(o.db_path));
  open_run(t, db, problems);
  open_shared(t);
  return tune_problems(t, problems, requested);
}

} // namespace scantune::tuner

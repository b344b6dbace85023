#include "tuner/run/tune_primitives.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "cache/kernel_cache.hpp"
#include "cache/tuning_db.hpp"
#include "codegen.hpp"
#include "cuda_check.hpp"
#include "default_policies.hpp"
#include "device_query.hpp"
#include "kernel_registry.hpp"
#include "nvrtc_compiler.hpp"
#include "scan_request.hpp"
#include "sort.hpp"
#include "sort_policy.hpp"
#include "strings.hpp"
#include "tuner/gpu/gpu_device.hpp"
#include "tuner/gpu/helper_compiler.hpp"
#include "tuner/run/bench_timing.hpp"
#include "tuner/run/primitive_timing.hpp"
#include "tuner/run/tune.hpp"
#include "tuner/search/evaluator.hpp"

namespace scantune::tuner {
namespace {

constexpr detail::Heads kTunedCompactions[] = {detail::Heads::SelectFlags, detail::Heads::Unique,
                                               detail::Heads::PartitionFlags};

// The names of a comma-separated list; "all" gives every one of `all`.
template <class T, class Parse>
std::vector<T> parse_list(std::string_view list, const char* option, std::vector<T> all,
                          Parse parse) {
  std::vector<T> out;
  for (std::string_view name : detail::split(list, ',', true)) {
    if (name == "all") return all;
    const std::optional<T> v = parse(name);
    if (!v) throw UsageError(fmt::format("{}: unknown name '{}' in '{}'", option, name, list));
    if (std::find(out.begin(), out.end(), *v) == out.end()) out.push_back(*v);
  }
  if (out.empty()) throw UsageError(fmt::format("{}: expected a list of names", option));
  return out;
}

std::vector<std::uint64_t> default_primitive_sizes() {
  std::vector<std::uint64_t> s;
  for (int k = 10; k <= 28; ++k)
    s.push_back(std::uint64_t{1} << k);
  return s;
}

// The sizes whose buffers fit the free memory of the current device, with a reserve.
std::vector<std::uint64_t> fitting(const PrimitiveProblem& p,
                                   const std::vector<std::uint64_t>& sizes, std::FILE* out) {
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return sizes;
  std::vector<std::uint64_t> fit;
  for (std::uint64_t n : sizes)
    if (primitive_device_bytes(p, n) + (std::uint64_t{1} << 30) + total_b / 20 <= free_b)
      fit.push_back(n);
    else
      fmt::print(out, "skipping n = {} for {}: not enough free device memory\n", size_label(n),
                 p.label());
  return fit;
}

void print_dry_run(const PrimitiveTuneOptions& o, const std::vector<std::uint64_t>& sizes,
                   std::FILE* out) {
  std::size_t total = 0;
  for (const PrimitiveProblem& p : o.problems) {
    const auto candidates = primitive_candidates(p, o);
    total += candidates.size() * sizes.size();
    fmt::print(out, "{} (problem '{}'): {} candidates x {} sizes ({}..{})\n", p.label(),
               p.problem(), candidates.size(), sizes.size(), size_label(sizes.front()),
               size_label(sizes.back()));
    for (const std::string& key : candidates)
      fmt::print(out, "  {}\n", key);
  }
  fmt::print(out, "{} problem(s), {} measurements planned\n", o.problems.size(), total);
}

struct Run {
  db::TuningDb& db;
  std::int64_t device_id, run_id;
  Scanner& scanner;
  cudaStream_t stream;
  std::FILE* out;
};

// What a call of the problem at n runs without this run's winners: the built-in table's
// row for this GPU model, else the rest of the dispatch chain (the scanner reads no DB).
std::string dispatched(const Scanner& scanner, const PrimitiveProblem& p, std::uint64_t n) {
  if (p.sort_values) return scanner.sort_plan(p.type, *p.sort_values, n).policy;
  return scanner.select_plan(p.type, detail::compaction_of(p.compaction), n).policy;
}

// The timing of `key` among a size's timings.
const PrimitiveTiming& timing_of(const PrimitiveSize& s, const std::string& key) {
  return *std::find_if(s.timings.begin(), s.timings.end(),
                       [&](const PrimitiveTiming& t) { return t.policy == key; });
}

// Compiles a problem's candidates on every core but two, in compile helpers, before any
// is timed: the scanner then finds them in the kernel registry. Compiled one by one at
// their first call, they took most of a tune (partition_flags, int32, 2^16-2^26: 200 s).
void compile_ahead(const PrimitiveTuneOptions& o, const PrimitiveProblem& p,
                   const std::vector<std::string>& candidates, KernelCache* cache, int device,
                   std::FILE* out) {
  int major = 0, minor = 0;
  SCANTUNE_CUDA_TRY(cudaSetDevice(device)); // compile_all's threads take the caller's
  SCANTUNE_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  SCANTUNE_CUDA_TRY(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  const int arch = major * 10 + minor;
  detail::KernelRegistry& registry = detail::KernelRegistry::instance();
  std::vector<RegistryLoad> loads;
  for (const std::string& key : candidates) {
    if (p.sort_values) { // time_sort passes its values in: no indices made, none widened
      const detail::SortSpec spec{detail::SortPolicy::parse(key), p.type, *p.sort_values, false,
                                  false};
      loads.push_back([=, &registry](const detail::KernelRegistry::Compiler* c) {
        registry.get_generated(
            spec.id(), [&] { return detail::generate_sort(spec); }, arch, cache, c);
      });
    } else {
      const ScanRequest r = ScanRequest::compaction_of(p.type, p.compaction, nullptr, nullptr,
                                                       nullptr, 0, nullptr, nullptr);
      const detail::KernelSpec spec = detail::kernel_spec_of(Policy::parse(key), r);
      loads.push_back([=, &registry](const detail::KernelRegistry::Compiler* c) {
        registry.get(spec, arch, cache, c);
      });
    }
  }
  const auto start = std::chrono::steady_clock::now();
  compile_all(loads, o.compile_worker, 0, [] { return interrupt_requested(); });
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  fmt::print(out, "{}: {} candidates compiled or loaded in {:.1f} s\n", p.label(), loads.size(),
             took.count());
  std::fflush(out);
}

// One size: every candidate and what dispatch runs there, the fastest stored as the
// bucket's winner.
void tune_size(Run& r, const PrimitiveTuneOptions& o, const PrimitiveProblem& p,
               std::vector<std::string> candidates, std::uint64_t n) {
  const std::string incumbent = dispatched(r.scanner, p, n);
  if (std::find(candidates.begin(), candidates.end(), incumbent) == candidates.end())
    candidates.insert(candidates.end() - 1, incumbent); // the default stays last
  const PrimitiveSize s = time_primitive(r.scanner, p, n, o.seed, candidates, r.stream, [] {
    if (interrupt_requested()) throw Interrupted();
  });
  const PrimitiveTiming* best = nullptr;
  for (const PrimitiveTiming& t : s.timings) {
    if (!t.ns)
      fmt::print(r.out, "  {} n = {}: {} failed: {}\n", p.label(), size_label(n), t.policy,
                 t.error);
    else if (!best || *t.ns < *best->ns)
      best = &t;
  }
  if (!best) throw Error(fmt::format("{} n = {}: every candidate failed", p.label(), n));
  const PrimitiveTiming& untuned = s.timings.back(); // the default policy, timed last
  const PrimitiveTiming& ran = timing_of(s, incumbent);
  db::BestEntry e;
  e.device_id = r.device_id;
  e.run_id = r.run_id;
  e.type = std::string(to_string(p.type));
  e.op = "sum"; // compactions and sorts have no operator or kind
  e.kind = "inclusive";
  e.problem = p.problem();
  e.size = n;
  e.policy = best->policy;
  e.ns = *best->ns;
  e.gbs = s.bytes / e.ns;
  r.db.set_best(e, db::BestMode::Replace);
  fmt::print(r.out,
             "{} n = {}: {} {:.2f} us, {:.1f} GB/s ({:.2f}x the default {}; {:.2f}x what "
             "dispatch ran, {})\n",
             p.label(), size_label(n), e.policy, e.ns / 1e3, e.gbs,
             untuned.ns ? *untuned.ns / e.ns : 0.0, untuned.policy, ran.ns ? *ran.ns / e.ns : 0.0,
             ran.policy);
  std::fflush(r.out); // each bucket as it is stored, also through a pipe or into a file
}

int tune_all(const PrimitiveTuneOptions& o, const std::vector<std::uint64_t>& sizes, int ordinal,
             std::FILE* out) {
  db::TuningDb db = db::TuningDb::open(db::default_db_path(o.db_path));
  const std::int64_t device_id = db.add_device(db::query_device(ordinal));
  db::RunInfo info;
  info.device_id = device_id;
  info.library_version = SCANTUNE_TUNER_VERSION;
  info.template_hash = detail::template_sources_hash();
  info.nvrtc_version = detail::nvrtc_version();
  info.command_line = o.command_line;
  const std::int64_t run_id = db.begin_run(info);
  Scanner scanner(ScannerOptions{ordinal, "off", {}}); // explicit policies only
  const OwnStream own;
  Run r{db, device_id, run_id, scanner, own.stream, out};
  int rc = 0;
  try {
    std::optional<KernelCache> cache = KernelCache::open_default("");
    for (const PrimitiveProblem& p : o.problems) {
      const auto candidates = primitive_candidates(p, o);
      compile_ahead(o, p, candidates, cache ? &*cache : nullptr, scanner.device(), out);
      for (std::uint64_t n : fitting(p, sizes, out))
        tune_size(r, o, p, candidates, n);
    }
    db.end_run(run_id, db::RunStatus::Complete);
    fmt::print(out, "tuned {} problem(s); database {}\n", o.problems.size(), db.path().string());
  } catch (const Interrupted&) {
    db.end_run(run_id, db::RunStatus::Interrupted);
    fmt::print(stderr, "scantune tune: interrupted; the winners so far are stored in {}\n",
               db.path().string());
    rc = 130;
  } catch (...) {
    db.end_run(run_id, db::RunStatus::Interrupted); // not complete: no status of its own
    throw;
  }
  return rc;
}

} // namespace

std::string PrimitiveProblem::problem() const {
  return sort_values ? detail::sort_problem(*sort_values)
                     : std::string(detail::to_string(compaction));
}

std::string PrimitiveProblem::label() const {
  return fmt::format("{} {}", to_string(type), problem());
}

std::vector<detail::Heads> parse_compactions(std::string_view list) {
  return parse_list<detail::Heads>(list, "--select",
                                   {std::begin(kTunedCompactions), std::end(kTunedCompactions)},
                                   [](std::string_view name) -> std::optional<detail::Heads> {
                                     for (detail::Heads h : kTunedCompactions)
                                       if (detail::to_string(h) == name) return h;
                                     return std::nullopt;
                                   });
}

std::vector<std::size_t> parse_sort_values(std::string_view list) {
  return parse_list<std::size_t>(list, "--sort", {0, 4, 8},
                                 [](std::string_view name) -> std::optional<std::size_t> {
                                   if (name == "keys") return 0;
                                   if (name == "pairs" || name == "pairs4") return 4;
                                   if (name == "pairs8") return 8;
                                   return std::nullopt;
                                 });
}

std::vector<PrimitiveProblem> primitive_problems(const std::vector<DataType>& types,
                                                 const std::vector<detail::Heads>& compactions,
                                                 const std::vector<std::size_t>& sort_values) {
  std::vector<PrimitiveProblem> out;
  if (!sort_values.empty())
    for (DataType t : types)
      if (!is_accumulator(t))
        throw UsageError(fmt::format("--type {}: sorts are tuned for int32, uint32, int64, "
                                     "uint64, float32 and float64 keys",
                                     to_string(t)));
  for (detail::Heads h : compactions)
    for (DataType t : types)
      out.push_back({t, h, std::nullopt});
  for (std::size_t v : sort_values)
    for (DataType t : types)
      out.push_back({t, detail::Heads::None, v});
  return out;
}

std::vector<std::string> primitive_candidates(const PrimitiveProblem& p,
                                              const PrimitiveTuneOptions& o) {
  std::vector<std::string> keys;
  std::string untuned;
  if (p.sort_values) {
    for (const detail::SortPolicy& s : sort_candidates(p.type, *p.sort_values, o.sort_space))
      keys.push_back(s.key());
    untuned = detail::default_sort_policy(p.type, *p.sort_values).key();
  } else {
    for (const Policy& s : select_candidates(p.type, p.compaction, o.select_space))
      keys.push_back(s.key());
    untuned = detail::default_select_policy(p.type).key();
  }
  keys.erase(std::remove(keys.begin(), keys.end(), untuned), keys.end());
  keys.push_back(untuned); // last: tune_size reports the gain over it
  return keys;
}

int run_primitive_tune(const PrimitiveTuneOptions& o, std::FILE* out) {
  const std::vector<std::uint64_t> sizes = o.sizes.empty() ? default_primitive_sizes() : o.sizes;
  if (o.dry_run) {
    print_dry_run(o, sizes, out);
    return 0;
  }
  const GpuCount gpus = count_gpus();
  if (gpus.count == 0) {
    fmt::print(stderr,
               "scantune tune: no CUDA device found ({}). Tuning times kernels on a GPU; use "
               "--dry-run to see the candidates.\n",
               gpus.why_none);
    return 77;
  }
  return tune_all(o, sizes, use_device(o.device, gpus.count), out);
}

} // namespace scantune::tuner

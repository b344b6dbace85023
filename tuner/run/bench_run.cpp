// The `scantune bench` run (see bench_run.hpp).
#include "tuner/run/bench_run.hpp"

#include "algorithms.hpp"
#include "default_policies.hpp"
#include "dispatch.hpp"
#include "scan_request.hpp"
#include "segments.hpp"
#include "strings.hpp"
#include "struct_values.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "cache/kernel_cache.hpp"
#include "cache/tuning_db.hpp"
#include "tuner/gpu/gpu_device.hpp"
#include "tuner/gpu/gpu_evaluator.hpp"
#include "tuner/run/tune.hpp"
#include "tuner/search/search_space.hpp"

namespace scantune::tuner {
namespace {

/// The point of a baseline-like timing; an exception becomes its note.
template <class Time>
BenchPoint point_of(const Time& time) {
  BenchPoint p;
  try {
    const BaselineResult b = time();
    if (b.ok)
      p.ns = b.stats.median_ns;
    else
      p.note = b.error;
  } catch (const std::exception& e) {
    p.note = e.what();
  }
  return p;
}

/// Times one algorithm series at n (or says why not); `prev` is its point at the
/// previous size prev_n, if any.
BenchPoint time_policy(GpuEvaluator& eval, const Policy& policy, DataType type, std::uint64_t n,
                       const BenchPoint* prev, std::uint64_t prev_n) {
  BenchPoint p;
  p.policy = policy.key();
  if (prev && !prev->ns && prev->note.rfind("skipped", 0) == 0) {
    p.note = prev->note;
    return p;
  }
  const double predicted =
      predicted_call_ns(policy, type, n, prev_n, prev && prev->ns ? *prev->ns : 0);
  if (predicted > kBenchMaxCallNs) {
    p.note =
        fmt::format("skipped from here on: one call would take about {:.0f} ms", predicted / 1e6);
    return p;
  }
  const Result r = eval.measure(policy, n, Effort::Confirm, 0);
  if (r.ok())
    p.ns = r.median_ns;
  else
    p.note = fmt::format("{}: {}", db::to_string(r.status), r.message);
  return p;
}

} // namespace

namespace {

constexpr const char* kSegmentSpecs =
    "rows:L, flags:L|random, keys:L|random, keys64:L|random, offsets:L|random, "
    "offsets64:L|random or axis:LxC; L, C = N or 2^K";

/// One length of a SPEC (N or 2^K, at least 1), or why not.
std::uint64_t parse_spec_length(std::string_view text) {
  if (text.empty() || text.find_first_of(":,x") != std::string_view::npos)
    throw Error("expected one segment length");
  return parse_sizes(text).front();
}

/// axis:LxC: columns of L rows, C >= 2 columns (one column is rows:L).
void parse_axis(std::string_view shape, Segmentation& s) {
  const std::size_t x = shape.find('x');
  if (x == std::string_view::npos) throw Error("expected rows x columns, as in axis:64x128");
  s.kind = Segmentation::Kind::Axis;
  s.length = parse_spec_length(shape.substr(0, x));
  s.inner = parse_spec_length(shape.substr(x + 1));
  if (s.inner < 2)
    throw Error(fmt::format("one column is a batched scan of rows: rows:{}", s.length));
}

} // namespace

Segmentation parse_segments(std::string_view spec) {
  Segmentation s;
  if (spec.empty()) return s;
  const std::size_t colon = spec.find(':');
  const std::string what(spec.substr(0, colon));
  const std::string_view length = colon == std::string_view::npos ? "" : spec.substr(colon + 1);
  try {
    if (what == "axis") {
      parse_axis(length, s);
      return s;
    }
    const bool keys = what == "keys" || what == "keys64";
    const bool offsets = what == "offsets" || what == "offsets64";
    if (what != "rows" && what != "flags" && !keys && !offsets)
      throw Error("unknown kind '" + what + "'");
    s.word_bytes = what.size() > 2 && what.compare(what.size() - 2, 2, "64") == 0 ? 8 : 4;
    s.kind = keys             ? Segmentation::Kind::Keys
             : offsets        ? Segmentation::Kind::Offsets
             : what == "rows" ? Segmentation::Kind::Rows
                              : Segmentation::Kind::Flags;
    if (length == "random" && what != "rows") {
      s.random = keys || offsets;
      if (!s.random) s.kind = Segmentation::Kind::RandomFlags;
      return s;
    }
    s.length = parse_spec_length(length);
  } catch (const Error& e) {
    throw UsageError(
        fmt::format("--segments '{}': {} (expected {})", spec, e.what(), kSegmentSpecs));
  }
  return s;
}

std::vector<Segmentation> parse_segments_list(std::string_view specs) {
  std::vector<Segmentation> out;
  for (std::size_t begin = 0; begin <= specs.size();) {
    const std::size_t comma = std::min(specs.find(',', begin), specs.size());
    out.push_back(parse_segments(specs.substr(begin, comma - begin)));
    if (out.back().flat()) throw UsageError(fmt::format("--segments '{}': an empty SPEC", specs));
    begin = comma + 1;
  }
  return out;
}

void check_bench_options(const BenchOptions& o) {
  if (o.converts) {
    const std::string types = to_string(*o.converts);
    if (!o.segments.flat())
      throw UsageError(fmt::format("--segments {} with converting types {}: segmented scans take "
                                   "the six accumulator types only",
                                   o.segments.spec(), types));
    if (o.custom)
      throw UsageError(fmt::format("converting types {} with a custom operator: converting "
                                   "scans are verified for built-in operators only",
                                   types));
    if (o.policy)
      if (auto why = o.policy->invalid_reason(*o.converts))
        throw UsageError(
            fmt::format("--policy {} is invalid for {}: {}", o.policy->key(), types, *why));
  }
  if (o.custom && o.custom->is_struct() && o.policy)
    if (auto why = detail::struct_invalid_reason(*o.policy, o.custom->value_bytes))
      throw UsageError(fmt::format("--policy {} cannot run {}-byte structs: {}", o.policy->key(),
                                   o.custom->value_bytes, *why));
  if (o.segments.flat()) return;
  const std::string spec = o.segments.spec();
  if (!o.algorithms.empty())
    throw UsageError(fmt::format("--segments {} times the dispatch, CUB and memcpy only; the "
                                 "--algorithms series are flat scans (leave one of them out)",
                                 spec));
  if (o.custom)
    throw UsageError(fmt::format("--segments {} with a custom operator: segmented scans are "
                                 "verified against the host reference, built-in operators only",
                                 spec));
  if (o.policy)
    if (auto why = detail::segmented_invalid_reason(*o.policy, o.segments.heads()))
      throw UsageError(fmt::format("--segments {}: --policy {} cannot run a segmented scan: {}",
                                   spec, o.policy->key(), *why));
}

const std::vector<std::string>& bench_algorithm_names() {
  // Every algorithm description but single_block, which the block scans stand for
  // (one 1024-thread block each).
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& a : detail::algorithms())
      if (a.id != Algorithm::SingleBlock) out.emplace_back(a.name);
    for (BlockScan b : {BlockScan::WarpScans, BlockScan::HillisSteele, BlockScan::Blelloch,
                        BlockScan::BlellochPadded})
      out.emplace_back(to_string(b));
    return out;
  }();
  return names;
}

std::vector<std::string> parse_bench_algorithms(std::string_view list) {
  const auto& known = bench_algorithm_names();
  if (list == "all") return known;
  std::vector<std::string> out;
  if (list.empty()) return out;
  for (std::string_view item : detail::split(list, ',')) {
    const std::string name(item);
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string all;
      for (const auto& k : known)
        all += (all.empty() ? "" : ", ") + k;
      throw UsageError(
          fmt::format("unknown algorithm '{}' (expected all or a list of: {})", name, all));
    }
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

namespace {
const detail::AlgorithmDesc* described_algorithm(std::string_view name) {
  for (const auto& a : detail::algorithms())
    if (a.name == name) return &a;
  return nullptr;
}
} // namespace

std::vector<std::pair<std::string, Policy>>
representative_policies(DataType type, const std::vector<std::string>& names) {
  const int vec = static_cast<int>(std::min<std::size_t>(4, 16 / size_of(type)));
  std::vector<std::pair<std::string, Policy>> out;
  for (const std::string& name : names) {
    // The multi-block algorithms share one tile shape, the heuristic default
    // (detail::default_policy: a 12 KB / 24 KB tile that does not spill), so the
    // columns compare the algorithms, not the shapes.
    Policy p = detail::default_policy(type, 0);
    p.vector_width = vec;
    if (name == "sequential") {
      p = Policy::sequential();
    } else if (const detail::AlgorithmDesc* a = described_algorithm(name)) {
      p.algorithm = a->id;
      // The staged kernels keep 16-byte vectors; bulk copies want more than one copy
      // in flight (stages - 2 for lookback_pipelined, stages - 1 for bulk).
      if (p.stages_tiles()) p.stages = 4;
    } else {
      p.algorithm = Algorithm::SingleBlock;
      p.block_threads = 1024;
      p.items_per_thread = static_cast<int>(16 / size_of(type)); // a 16 KiB tile
      p.block_scan = parse_block_scan(name);
    }
    out.emplace_back(name, p);
  }
  return out;
}

double predicted_call_ns(const Policy& policy, DataType type, std::uint64_t n, std::uint64_t prev_n,
                         double prev_ns) {
  if (prev_ns > 0 && prev_n > 0)
    return prev_ns * static_cast<double>(n) / static_cast<double>(prev_n);
  const bool seq = policy.algorithm == Algorithm::Sequential;
  if (!seq && policy.algorithm != Algorithm::SingleBlock) return 0;
  const double bytes = 2.0 * static_cast<double>(n * size_of(type));
  return seq ? 500.0 * static_cast<double>(n) : bytes / 20.0; // 20 GB/s = 20 bytes per ns
}

BenchReport run_bench(const BenchOptions& o, const std::function<void(const std::string&)>& log) {
  check_bench_options(o);
  Scanner scanner(ScannerOptions{o.device, o.db_path, {}});
  std::optional<KernelCache> cache = KernelCache::open_default("");
  const OpRef op = o.custom ? OpRef(*o.custom) : OpRef(o.op);
  // A struct-valued operator scans its struct, whatever --type says.
  const bool structs = o.custom && o.custom->is_struct();
  const DataType type = structs ? detail::kStructStandIn : o.type;
  Problem problem{type, detail::OpSpec::from(op), o.kind, o.segments, o.converts};

  BenchReport r;
  const db::DeviceInfo device = db::query_device(scanner.device());
  r.device = device.model();
  r.type = structs ? detail::struct_type_text(o.custom->value_bytes) : to_string(problem.types());
  r.op = problem.op_name();
  r.kind = std::string(to_string(o.kind));
  r.segments = o.segments.spec();
  r.extra_bytes_per_element = o.segments.extra_bytes_per_element();
  const DataType size_type = problem.size_types().acc; // a struct's size class
  r.sizes = fitting_sizes(o.sizes, size_type, log,
                          o.segments.device_bytes_per_element() + problem.extra_struct_bytes());
  if (o.segments.axis()) // an axis scan of n elements runs n / (L * C) whole slices
    r.sizes.erase(std::remove_if(r.sizes.begin(), r.sizes.end(),
                                 [&](std::uint64_t n) {
                                   if (o.segments.elements(n)) return false;
                                   log(fmt::format("{}: below one {} slice; skipped", size_label(n),
                                                   o.segments.spec()));
                                   return true;
                                 }),
                  r.sizes.end());
  r.series = {{"tuned", "", {}}, {"cub", "", {}}, {"memcpy", "", {}}};
  auto policies = representative_policies(size_type, o.algorithms);
  // Shapes of the accumulator that a converting scan cannot run (vector widths of
  // its memory types, no bulk copies), or a struct, and algorithms newer than the GPU
  // are left out.
  const int arch = device.cc_major * 10 + device.cc_minor;
  policies.erase(std::remove_if(policies.begin(), policies.end(),
                                [&](const auto& pp) {
                                  auto why = structs ? detail::struct_invalid_reason(
                                                           pp.second, problem.struct_bytes())
                                                     : pp.second.invalid_reason(problem.types());
                                  const int needs = detail::describe(pp.second.algorithm).min_arch;
                                  if (!why && needs > arch)
                                    why = fmt::format("needs sm_{} or newer", needs);
                                  if (why) log(fmt::format("series {}: {}", pp.first, *why));
                                  return why.has_value();
                                }),
                 policies.end());
  if (o.policy) policies.emplace_back("policy", *o.policy);
  for (const auto& [name, policy] : policies)
    r.series.push_back({name, policy.key(), {}});
  if (r.sizes.empty()) return r;

  GpuEvaluatorOptions timing = o.timing;
  GpuEvaluator eval(scanner, cache ? &*cache : nullptr, problem, r.sizes.back(), timing);
  log(fmt::format("{}: inputs and reference for up to {} ready in {:.1f} s", r.problem(),
                  size_label(r.sizes.back()), eval.setup_seconds()));
  std::vector<Policy> prefetch;
  for (const auto& pp : policies)
    prefetch.push_back(pp.second);
  eval.prefetch(prefetch);

  for (std::size_t i = 0; i < r.sizes.size(); ++i) {
    const std::uint64_t n = r.sizes[i];
    BenchPoint tuned = point_of([&] { return eval.time_dispatch(n); });
    tuned.policy =
        (o.converts
             ? detail::ScannerAccess::choice(scanner, *o.converts, op, o.kind, n)
             : detail::ScannerAccess::choice(scanner, type, op, o.kind, n, o.segments.heads(),
                                             o.segments.shape_at(n, o.timing.seed)))
            .policy.key();
    r.series[0].points.push_back(tuned);
    r.series[1].points.push_back(point_of([&] { return eval.time_cub(n); }));
    r.series[2].points.push_back(point_of([&] { return eval.time_memcpy(n); }));
    for (std::size_t k = 0; k < policies.size(); ++k) {
      BenchSeries& s = r.series[3 + k];
      const BenchPoint* prev = i > 0 ? &s.points.back() : nullptr;
      s.points.push_back(
          time_policy(eval, policies[k].second, size_type, n, prev, i > 0 ? r.sizes[i - 1] : 0));
    }
    const auto g = r.gbs(i, tuned.ns, "tuned");
    log(fmt::format("{}: tuned {} GB/s ({})", size_label(n), g ? fmt::format("{:.1f}", *g) : "-",
                    tuned.ns ? tuned.policy : tuned.note));
  }
  return r;
}

} // namespace scantune::tuner

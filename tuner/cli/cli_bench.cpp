// `scantune bench | plot`: time the tuned dispatch against CUB and memcpy on this
// GPU now, and chart GB/s against size from a bench report or the database.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "algorithms.hpp"
#include "codegen.hpp"
#include "tuner/cli/cli.hpp"
#include "tuner/cli/cli_shared.hpp"
#include "tuner/gpu/gpu_device.hpp"
#include "tuner/report/plots.hpp"
#include "tuner/run/bench_run.hpp"
#include "tuner/run/regret_run.hpp"
#include "tuner/run/select_bench.hpp"
#include "tuner/run/sort_bench.hpp"
#include "tuner/run/tune.hpp"
#include "tuner/search/search_space.hpp"

namespace scantune::cli {
namespace {

struct BenchCliOptions {
  std::string types = "int32", op, kind = "inclusive", custom_op;
  std::string sizes, algorithms, segments, select, sort, json, csv, plot, db;
  std::vector<std::string> policies; ///< KEY or TYPE=KEY
  bool hot = false, host_bound = false, quiet = false, regret = false;
  std::uint64_t seed = 1;
  int device = -1, top = 3;
  unsigned key_bits = 0;
};

/// --sizes, else bench's default sweep.
std::vector<std::uint64_t> sizes_of(const BenchCliOptions& raw) {
  return tuner::parse_sizes(raw.sizes.empty() ? "2^10:2^30:2" : raw.sizes);
}

/// The --policy key of a run: the first TYPE=KEY whose TYPE `names` the run's types, else
/// the first bare KEY (for every type), else none.
std::optional<std::string> chosen_policy(const std::vector<std::string>& given,
                                         const std::function<bool(const std::string&)>& names) {
  std::optional<std::string> key;
  for (const std::string& g : given) {
    const std::size_t eq = g.find('=');
    if (eq == std::string::npos) {
      if (!key) key = g;
    } else if (names(g.substr(0, eq))) {
      return g.substr(eq + 1);
    }
  }
  return key;
}

/// The --policy for a run of `types` (TYPE spelled as --type spells the whole scan, so
/// `int8=` names int8:int32:int8 and `int32=` only the uniform int32).
std::optional<Policy> policy_for(const std::vector<std::string>& given, const ScanTypes& types) {
  const std::optional<std::string> key =
      chosen_policy(given, [&](const std::string& t) { return parse_scan_types(t) == types; });
  if (!key) return std::nullopt;
  const Policy p = Policy::parse(*key);
  if (auto why = p.invalid_reason(types))
    throw Error(fmt::format("--policy {} is invalid for {}: {} (give TYPE=KEY per type)", *key,
                            to_string(types), *why));
  return p;
}

/// One run per type, in the order given.
std::vector<tuner::BenchOptions> build_bench_options(const BenchCliOptions& raw) {
  std::vector<tuner::BenchOptions> runs;
  if (raw.device < -1)
    fail(kExitUsage, "bench",
         fmt::format("--device {}: expected a device ordinal (0, 1, ...)", raw.device));
  try {
    if (!raw.op.empty() && !raw.custom_op.empty())
      fail(kExitUsage, "bench", "give --op or --custom-op, not both");
    tuner::BenchOptions o;
    o.op = parse_op(raw.op.empty() ? "sum" : raw.op);
    if (!raw.custom_op.empty()) o.custom = parse_custom_op(raw.custom_op);
    o.kind = parse_scan_kind(raw.kind);
    o.sizes = sizes_of(raw);
    if (!raw.algorithms.empty()) o.algorithms = tuner::parse_bench_algorithms(raw.algorithms);
    o.segments = tuner::parse_segments(raw.segments);
    o.device = raw.device;
    o.db_path = raw.db;
    o.timing.hot = raw.hot;
    o.timing.host_bound = raw.host_bound;
    o.timing.seed = raw.seed;
    for (const ScanTypes& types : parse_scan_type_list(raw.types)) {
      const DataType type = types.acc;
      o.type = type;
      o.converts.reset();
      if (!types.uniform()) o.converts = types;
      detail::check_op(type, detail::OpSpec::from(o.custom ? OpRef(*o.custom) : OpRef(o.op)));
      o.policy = policy_for(raw.policies, types);
      tuner::check_bench_options(o);
      runs.push_back(o);
    }
  } catch (const Error& e) {
    fail(kExitUsage, "bench", e.what());
  }
  if (runs.size() > 1 && !raw.plot.empty())
    fail(kExitUsage, "bench", "--plot charts one type; give one --type");
  return runs;
}

// --select and --sort time one primitive alone: none of the scan bench's options but
// --policy (a radix policy, or a compaction policy, instead of the dispatch's) and, for
// compaction, --json.
void require_alone(const BenchCliOptions& raw, const char* flag, const char* what,
                   bool takes_policy, bool takes_json) {
  if (!raw.segments.empty() || !raw.algorithms.empty() ||
      (!takes_policy && !raw.policies.empty()) || !raw.op.empty() || !raw.custom_op.empty() ||
      (!takes_json && !raw.json.empty()) || !raw.csv.empty() || !raw.plot.empty() ||
      (!raw.select.empty() && !raw.sort.empty()))
    fail(kExitUsage, "bench",
         fmt::format("{} times {} alone: not with --segments, --algorithms, {}--op, "
                     "--custom-op, {}--csv, --plot or the other of --select and --sort",
                     flag, what, takes_policy ? "" : "--policy, ", takes_json ? "" : "--json, "));
}

/// --policy with --sort: per key type its radix policy (TYPE=KEY, else KEY), checked
/// against the key and the widest values of `modes`.
std::map<DataType, detail::SortPolicy> sort_policies(const std::vector<std::string>& given,
                                                     const std::vector<DataType>& types,
                                                     const std::vector<tuner::SortMode>& modes) {
  std::size_t value_bytes = 0;
  for (tuner::SortMode m : modes)
    value_bytes = std::max(value_bytes, tuner::sort_value_bytes(m));
  std::map<DataType, detail::SortPolicy> policies;
  for (DataType t : types) {
    const std::optional<std::string> key =
        chosen_policy(given, [&](const std::string& name) { return parse_data_type(name) == t; });
    if (!key) continue;
    const detail::SortPolicy p = detail::SortPolicy::parse(*key);
    if (auto why = p.invalid_reason(size_of(t), value_bytes))
      throw Error(fmt::format(
          "--policy {} is invalid for {} keys{}: {} (give TYPE=KEY per type)", *key, to_string(t),
          value_bytes ? fmt::format(" with {}-byte values", value_bytes) : "", *why));
    policies.emplace(t, p);
  }
  return policies;
}

/// --policy with --select: per type its compaction policy (TYPE=KEY, else KEY), checked
/// as dispatch checks a row of each compaction the patterns run.
std::map<DataType, Policy> select_policies(const std::vector<std::string>& given,
                                           const std::vector<DataType>& types,
                                           const std::vector<tuner::SelectPattern>& patterns) {
  std::map<DataType, Policy> policies;
  for (DataType t : types) {
    const std::optional<std::string> key =
        chosen_policy(given, [&](const std::string& name) { return parse_data_type(name) == t; });
    if (!key) continue;
    const Policy p = Policy::parse(*key);
    for (const tuner::SelectPattern& pattern : patterns) {
      const std::string problem(detail::to_string(detail::compaction_heads(pattern.how)));
      if (auto why = detail::stored_problem_invalid_reason(p, t, problem))
        throw Error(fmt::format("--policy {} cannot run {} {}: {} (give TYPE=KEY per type)", *key,
                                to_string(t), problem, *why));
    }
    policies.emplace(t, p);
  }
  return policies;
}

// Runs `bench` on the chosen GPU and prints its table; `bench` gets the progress log.
void run_alone(
    const BenchCliOptions& raw,
    const std::function<std::string(const std::function<void(const std::string&)>&)>& bench) {
  const tuner::GpuCount gpus = tuner::count_gpus();
  if (gpus.count == 0)
    fail(kExitNoGpu, "bench", fmt::format("no CUDA device found ({})", gpus.why_none));
  try {
    tuner::use_device(raw.device, gpus.count);
    fmt::print("{}", bench([quiet = raw.quiet](const std::string& line) {
                 if (!quiet) fmt::print(stderr, "{}\n", line);
               }));
  } catch (const std::runtime_error& e) {
    fail(kExitFailure, "bench", e.what());
  }
}

// --select: compaction against CUB's (DeviceSelect, DevicePartition) and memcpy, a table of
// its own.
void run_select_command(const BenchCliOptions& raw) {
  require_alone(raw, "--select", "compaction", true, true);
  std::vector<tuner::SelectPattern> patterns;
  std::vector<std::uint64_t> sizes;
  std::vector<DataType> types;
  std::map<DataType, Policy> policies;
  try {
    patterns = tuner::parse_select_patterns(raw.select);
    sizes = sizes_of(raw);
    types = parse_names(raw.types, kAllTypes, parse_data_type);
    policies = select_policies(raw.policies, types, patterns);
  } catch (const Error& e) {
    fail(kExitUsage, "bench", e.what());
  }
  run_alone(raw, [&](const auto& log) {
    const auto rows = tuner::run_select_bench(types, patterns, sizes, raw.db, policies, log);
    if (!raw.json.empty())
      write_file("bench", raw.json, tuner::select_bench_to_json(rows).dump(2) + "\n");
    return tuner::select_bench_markdown(rows);
  });
}

// --sort: the radix sort against CUB DeviceRadixSort, a table of its own.
void run_sort_command(const BenchCliOptions& raw) {
  require_alone(raw, "--sort", "the radix sort", true, false);
  std::vector<tuner::SortMode> modes;
  std::vector<std::uint64_t> sizes;
  std::vector<DataType> types;
  std::map<DataType, detail::SortPolicy> policies;
  try {
    modes = tuner::parse_sort_modes(raw.sort);
    sizes = sizes_of(raw);
    types = parse_names(raw.types, kAllTypes, parse_data_type);
    policies = sort_policies(raw.policies, types, modes);
    tuner::check_sort_key_bits(raw.key_bits, types);
  } catch (const Error& e) {
    fail(kExitUsage, "bench", e.what());
  }
  run_alone(raw, [&](const auto& log) {
    return tuner::sort_bench_markdown(
        tuner::run_sort_bench(types, modes, sizes, policies, raw.key_bits, raw.db, log));
  });
}

/// --regret: the options of the run, or a usage error (exit 2).
tuner::RegretOptions regret_options(const BenchCliOptions& raw) {
  if (!raw.segments.empty() || !raw.algorithms.empty() || !raw.policies.empty() ||
      !raw.select.empty() || !raw.sort.empty() || !raw.csv.empty())
    fail(kExitUsage, "bench",
         "--regret times the dispatch against the tuned candidates: not with --segments, "
         "--algorithms, --policy, --select, --sort or --csv");
  if (raw.top < 0) fail(kExitUsage, "bench", fmt::format("--top {}: expected 0 or more", raw.top));
  if (raw.device < -1)
    fail(kExitUsage, "bench",
         fmt::format("--device {}: expected a device ordinal (0, 1, ...)", raw.device));
  tuner::RegretOptions o;
  try {
    if (!raw.op.empty() && !raw.custom_op.empty())
      fail(kExitUsage, "bench", "give --op or --custom-op, not both");
    const std::vector<DataType> types = parse_names(raw.types, kAllTypes, parse_data_type);
    if (types.size() != 1) fail(kExitUsage, "bench", "--regret measures one problem: one --type");
    const OpRef op = raw.custom_op.empty() ? OpRef(parse_op(raw.op.empty() ? "sum" : raw.op))
                                           : OpRef(parse_custom_op(raw.custom_op));
    detail::check_op(types.front(), detail::OpSpec::from(op));
    o.problem = tuner::Problem{types.front(), detail::OpSpec::from(op), parse_scan_kind(raw.kind)};
    if (!raw.sizes.empty()) o.sizes = tuner::parse_sizes(raw.sizes);
  } catch (const Error& e) {
    fail(kExitUsage, "bench", e.what());
  }
  o.top = raw.top;
  o.device = raw.device;
  o.db_path = raw.db;
  o.hot = raw.hot;
  o.seed = raw.seed;
  return o;
}

// --regret: the dispatched policy against the tuned candidates, between the buckets.
void run_regret_command(const BenchCliOptions& raw) {
  tuner::RegretOptions o = regret_options(raw);
  const tuner::GpuCount gpus = tuner::count_gpus();
  if (gpus.count == 0)
    fail(kExitNoGpu, "bench", fmt::format("no CUDA device found ({})", gpus.why_none));
  tuner::RegretReport report;
  try {
    o.device = tuner::use_device(raw.device, gpus.count);
    report = tuner::run_regret(o, [quiet = raw.quiet](const std::string& line) {
      if (!quiet) fmt::print(stderr, "{}\n", line);
    });
  } catch (const tuner::UsageError& e) {
    fail(kExitUsage, "bench", e.what());
  } catch (const std::runtime_error& e) {
    fail(kExitFailure, "bench", e.what());
  }
  fmt::print("{}", tuner::regret_markdown(report));
  if (!raw.json.empty())
    write_file("bench", raw.json, tuner::regret_to_json(report).dump(2) + "\n");
  if (!raw.plot.empty())
    write_file("bench", raw.plot, tuner::render_svg(tuner::regret_plot(report)));
}

void run_bench_command(const BenchCliOptions& raw) {
  if (raw.key_bits && raw.sort.empty())
    fail(kExitUsage, "bench", "--key-bits sets the keys of --sort: give --sort");
  if (raw.regret) return run_regret_command(raw);
  if (!raw.select.empty()) return run_select_command(raw);
  if (!raw.sort.empty()) return run_sort_command(raw);
  std::vector<tuner::BenchOptions> runs = build_bench_options(raw);
  const tuner::GpuCount gpus = tuner::count_gpus();
  if (gpus.count == 0)
    fail(kExitNoGpu, "bench",
         fmt::format("no CUDA device found ({}). bench times scans on a GPU now; `scantune "
                     "show` and `scantune plot` read tuned results without one.",
                     gpus.why_none));
  const auto log = [quiet = raw.quiet](const std::string& line) {
    if (quiet) return;
    fmt::print(stderr, "{}\n", line);
    std::fflush(stderr);
  };
  std::vector<tuner::BenchReport> reports;
  try {
    const int device = tuner::use_device(raw.device, gpus.count);
    for (tuner::BenchOptions& o : runs) {
      o.device = device;
      reports.push_back(tuner::run_bench(o, log));
      fmt::print("{}{}", reports.size() > 1 ? "\n" : "", tuner::bench_markdown(reports.back()));
      std::fflush(stdout);
    }
  } catch (const tuner::UsageError& e) {
    fail(kExitUsage, "bench", e.what());
  } catch (const std::runtime_error& e) { // scantune::Error or CacheError
    fail(kExitFailure, "bench", e.what());
  }
  if (!raw.json.empty())
    write_file("bench", raw.json, tuner::bench_to_json(reports).dump(2) + "\n");
  if (!raw.csv.empty()) write_file("bench", raw.csv, tuner::bench_csv(reports));
  if (!raw.plot.empty())
    write_file("bench", raw.plot, tuner::render_svg(tuner::plot_of(reports.front())));
}

struct PlotCliOptions {
  std::string out, db, from_bench;
  tuner::ReportFilter filter;
};

void run_plot(const PlotCliOptions& o) {
  check_filter("plot", o.filter);
  tuner::PlotData data;
  if (!o.from_bench.empty()) {
    std::ifstream in(o.from_bench, std::ios::binary);
    if (!in) fail(kExitUsage, "plot", fmt::format("--from-bench: cannot read '{}'", o.from_bench));
    try {
      data = tuner::plot_of(tuner::bench_from_json(nlohmann::json::parse(in)));
    } catch (const nlohmann::json::exception& e) {
      fail(kExitFailure, "plot", fmt::format("{}: not valid JSON: {}", o.from_bench, e.what()));
    } catch (const Error& e) {
      fail(kExitFailure, "plot", fmt::format("{}: {}", o.from_bench, e.what()));
    }
  } else {
    const db::TuningDb db = open_for_reading("plot", o.db);
    const std::vector<tuner::WinnerRow> rows = tuner::winner_rows(db, o.filter);
    if (rows.empty())
      fail(kExitFailure, "plot",
           fmt::format("no tuned entries in {} match the filter", db.path().string()));
    std::string problems;
    int count = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& b = rows[i].best;
      if (i > 0 && b.model == rows[i - 1].best.model &&
          tuner::problem_label(b) == tuner::problem_label(rows[i - 1].best))
        continue;
      ++count;
      problems += fmt::format("\n  {}: {}", b.model, tuner::problem_label(b));
    }
    if (count > 1)
      fail(kExitUsage, "plot",
           fmt::format("{} problems match; choose one with --device, --type, --op and --kind:{}",
                       count, problems));
    data = tuner::plot_of(rows);
  }
  write_file("plot", o.out, tuner::render_svg(data));
  fmt::print("wrote {}\n", o.out);
}

} // namespace

void register_bench_commands(CLI::App& app) {
  auto bo = std::make_shared<BenchCliOptions>();
  CLI::App* bench = app.add_subcommand(
      "bench", "Time the tuned scan against CUB and device memcpy on this GPU now");
  bench
      ->add_option("--type,--types", bo->types,
                   "Element types: a comma-separated list or 'all', one table each.\n"
                   "Converting scans as for tune: uint8:int32, float16 (a CUB column for\n"
                   "inclusive sums; bench/types_bench.cu times CUB on others). Default: int32")
      ->type_name("LIST");
  bench->add_option("--op", bo->op, "Built-in operator. Default: sum")->type_name("OP");
  bench
      ->add_option("--custom-op", bo->custom_op,
                   "A custom operator instead: NAME:BODY:IDENTITY as for tune, or the\n"
                   "name of a sample with a compiled CUB twin, which gives the CUB column:\n"
                   "absmax (float32, float64), shifted_product (uint32, uint64), or of a\n"
                   "struct-valued operator of the library, timed on its struct (no CUB\n"
                   "column: bench/struct_bench.cu times CUB): linear_recurrence, argmax")
      ->type_name("NAME:BODY:IDENTITY");
  bench->add_option("--kind", bo->kind, "inclusive or exclusive. Default: inclusive")
      ->type_name("KIND");
  bench
      ->add_option("--sizes", bo->sizes,
                   "Input sizes: 2^A:2^B:STEP, 2^K, N or a comma-separated list.\n"
                   "Default: 2^10:2^30:2 (--regret: the tuned sizes and between them),\n"
                   "bounded by free device memory")
      ->type_name("SPEC");
  bench
      ->add_option("--algorithms", bo->algorithms,
                   "Also time one representative policy per algorithm: 'all' or a list\n"
                   "of sequential, hillis_steele, blelloch, blelloch_padded, warp_scans\n"
                   "(single_block with that block scan), reduce_then_scan, chained,\n"
                   "lookback_thread, lookback_warp. Slow ones stop above ~50 ms a call")
      ->type_name("all|LIST");
  bench
      ->add_option("--segments", bo->segments,
                   "Segmented scans instead: rows:L (a batched scan of rows of L elements),\n"
                   "flags:L (a head flag every L elements) or flags:random (segment\n"
                   "lengths 2^(20u), u uniform in [0, 1): many short, a few long);\n"
                   "keys:L|random, keys64:L|random (segment ids as 32/64-bit keys) and\n"
                   "offsets:L|random, offsets64:L|random (CSR begin offsets) of the same\n"
                   "segments; axis:LxC (columns of L rows, C >= 2 columns, outer = n / (L*C),\n"
                   "n rounded down). Times the dispatch, CUB's scan by key (sums; none for\n"
                   "axis) and memcpy; GB/s count the flag and key bytes. Not with\n"
                   "--algorithms. Default: flat")
      ->type_name("SPEC");
  bench
      ->add_option("--policy", bo->policies,
                   "Also time this policy (series 'policy'): KEY for every type, or\n"
                   "TYPE=KEY for one type as --type spells it (repeatable). With --sort:\n"
                   "a radix policy (radix.tpb384.ipt20.rb8...), with --select a compaction\n"
                   "policy, run instead of the dispatch's")
      ->type_name("KEY|TYPE=KEY");
  bench
      ->add_option("--select", bo->select,
                   "Stream compaction instead, comma-separated: flags:P (select_flagged,\n"
                   "each item with probability P), clustered:P (the same in runs),\n"
                   "unique:P (each item new with probability P), partition:P\n"
                   "(partition_flagged). Times it, CUB's DeviceSelect or DevicePartition\n"
                   "and a memcpy of the bytes moved (values and flags read, kept values\n"
                   "written)")
      ->type_name("LIST");
  bench
      ->add_option("--sort", bo->sort,
                   "The radix sort instead: keys (sort_keys), pairs (sort_pairs with 4-byte\n"
                   "values), pairs8 (8-byte values) and/or indices (sort_with_indices, int64\n"
                   "positions as torch.sort returns; CUB sorts positions made beforehand),\n"
                   "comma-separated. Times scantune and CUB DeviceRadixSort::SortKeys/\n"
                   "SortPairs (ascending, all bits) after checking them against each other;\n"
                   "GB/s count one read and one write of the data")
      ->type_name("LIST");
  bench
      ->add_option("--key-bits", bo->key_bits,
                   "With --sort, integer keys in [0, 2^N) instead of random bit patterns\n"
                   "(both sorts still sort every bit; scantune skips passes whose keys\n"
                   "share one digit two at a time)")
      ->type_name("N");
  bench->add_flag("--regret", bo->regret,
                  "Dispatcher regret instead: at the tuned sizes and a quarter and three\n"
                  "quarters of the way between consecutive ones (or --sizes), the\n"
                  "dispatched policy against the tuned candidates there (the winners of\n"
                  "the nearest tuned sizes on either side and their --top measured\n"
                  "policies), timed in alternation; regret = dispatched / best - 1.\n"
                  "One problem; --json and --plot (regret % against n) as usual");
  bench
      ->add_option("--top", bo->top,
                   "With --regret: measured policies per neighbouring tuned size that\n"
                   "join the candidates. Default: 3")
      ->type_name("K")
      ->needs("--regret");
  bench->add_flag("--hot", bo->hot, "Time on one buffer pair (small sizes then run from L2)");
  bench->add_flag("--host-bound", bo->host_bound,
                  "Time calls as the host enqueues them (short calls then measure the\n"
                  "launch rate), not queued behind a GPU wait");
  bench->add_option("--seed", bo->seed, "Seed of the random input. Default: 1")->type_name("N");
  bench
      ->add_option("--json", bo->json,
                   "Also write the results as JSON (an array for several types; with\n"
                   "--select, one document per type and flag pattern)")
      ->type_name("FILE");
  bench->add_option("--csv", bo->csv, "Also write the results as CSV, one row per size and series")
      ->type_name("FILE");
  bench->add_option("--plot", bo->plot, "Also write an SVG chart (one type)")
      ->type_name("FILE.svg");
  bench->add_flag("-q,--quiet", bo->quiet, "No progress lines on stderr");
  bench->add_option("--device", bo->device, "CUDA device ordinal. Default: the current device")
      ->type_name("N");
  add_db_option(bench, bo->db)->description("Tuning database the tuned dispatch reads");
  bench->footer("Each size: the scanner's own choice (scanner.inclusive_scan(...) without a\n"
                "policy), CUB DeviceScan and cudaMemcpy device to device, each verified once,\n"
                "then timed with CUDA events (warm-up, cold L2, median of samples).\n\n"
                "Examples:\n  scantune bench --sizes 2^10:2^30:2 --algorithms all --json b.json "
                "--plot b.svg\n  scantune bench --regret --type int32 --op sum --json r.json "
                "--plot r.svg\n\nExit codes: 0 done, 1 failed, 2 bad usage, 77 no GPU.");
  bench->callback([bo] { run_bench_command(*bo); });

  auto po = std::make_shared<PlotCliOptions>();
  CLI::App* plot =
      app.add_subcommand("plot", "Chart GB/s against size (tuned, CUB, memcpy) as an SVG file");
  plot->add_option("--out", po->out, "The SVG file to write")->type_name("FILE.svg")->required();
  add_db_option(plot, po->db);
  add_filter_options(plot, po->filter);
  plot->add_option("--from-bench", po->from_bench, "Chart a `scantune bench --json` file instead")
      ->type_name("FILE.json")
      ->excludes("--db");
  plot->footer("From the database, the filters must select one device model, type, operator\n"
               "and kind.\n\nExamples:\n  scantune plot --device H100 --type int32 --op sum "
               "--kind inclusive --out h100.svg\n  scantune plot --from-bench b.json --out b.svg");
  plot->callback([po] { run_plot(*po); });
}

} // namespace scantune::cli

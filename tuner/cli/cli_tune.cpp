// `scantune tune`: parse and check the options, then hand them to run_tune with a
// SIGINT handler that asks the run to stop cleanly.
#include <algorithm>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "codegen.hpp"
#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "tuner/cli/cli.hpp"
#include "tuner/cli/cli_shared.hpp"
#include "tuner/run/bench_run.hpp"
#include "tuner/run/tune.hpp"
#include "tuner/run/tune_matrix.hpp"
#include "tuner/run/tune_primitives.hpp"
#include "tuner/search/strategy.hpp"

namespace scantune::cli {
namespace {

/// This executable's path (for the compile helpers it starts), or "" when unknown.
std::string own_executable() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : self.string();
}

using tuner::Progress;
using tuner::TuneOptions;

/// The options as typed; turned into TuneOptions after parsing.
struct RawOptions {
  std::string types = "int32", ops = "sum", kinds = "inclusive";
  std::vector<std::string> custom_ops;
  std::string sizes, strategy = "halving", algorithms;
  std::map<std::string, std::string> grid; ///< the search-space lists, by option name
  std::string budget, db, simulate, against, progress = "auto", segments;
  std::string select, sort; ///< compactions and sorts to tune instead of scans
  bool resume = false, dry_run = false, hot = false, all = false, force = false;
  double time_limit = 2.5;
  int device = -1;
  std::uint64_t seed = 1;
  bool ops_given = false;
};

/// A search list given on the command line, or nothing.
const std::string* given_list(const RawOptions& raw, std::string_view option) {
  const auto it = raw.grid.find(std::string(option));
  return it != raw.grid.end() && !it->second.empty() ? &it->second : nullptr;
}

/// Whether `option` is a sort field's and not also a scan grid's (--radix-bits).
bool sort_only_option(std::string_view option) {
  for (const tuner::SpaceField& f : tuner::space_fields())
    if (f.option == option) return false;
  return true;
}

int checked_device(int device) {
  if (device < -1)
    throw Exit(kExitUsage,
               fmt::format("--device {}: expected a device ordinal (0, 1, ...)", device));
  return device;
}

TuneOptions build_options(const RawOptions& raw) {
  for (const detail::SortField& f : detail::sort_fields())
    if (sort_only_option(f.option) && given_list(raw, f.option))
      throw Exit(kExitUsage, fmt::format("{} applies to --sort", f.option));
  TuneOptions o;
  o.types = parse_scan_type_list(raw.types);
  o.ops = parse_names(raw.ops, kAllOps, parse_op);
  o.kinds = parse_names(raw.kinds, kAllKinds, parse_scan_kind);
  if (raw.all) {
    const tuner::StandardMatrix m = tuner::standard_matrix();
    o.types.clear();
    for (DataType t : m.types)
      o.types.push_back(ScanTypes{t, t, t});
    o.ops = m.ops;
    o.kinds = m.kinds;
  }

  for (const auto& text : raw.custom_ops) {
    CustomOp op = parse_custom_op(text);
    detail::OpSpec spec = detail::OpSpec::from(op);
    detail::check_op(o.types.front().acc, spec); // name, body and identity
    for (Op builtin : kAllOps)
      if (op.name == to_string(builtin))
        throw Exit(kExitUsage, fmt::format("--custom-op: '{}' is a built-in operator; give the "
                                           "custom one another name",
                                           op.name));
    for (const auto& other : o.custom_ops)
      if (other.name == op.name)
        throw Exit(kExitUsage, fmt::format("--custom-op: '{}' given twice", op.name));
    o.custom_ops.push_back(std::move(op));
  }
  // `--custom-op` alone tunes just the custom operators, not also the default sum.
  if (!o.custom_ops.empty() && !raw.ops_given) o.ops.clear();

  // An operator none of the listed types supports is a mistake (bit_and on
  // float32); with "all", run_tune skips the combinations that do not exist.
  if (raw.types != "all" && raw.ops != "all")
    for (Op op : o.ops) {
      bool any = false;
      for (const ScanTypes& t : o.types) {
        try {
          detail::check_op(t.acc, detail::OpSpec::from(op));
          any = true;
        } catch (const Error&) {
        }
      }
      if (!any) detail::check_op(o.types.front().acc, detail::OpSpec::from(op)); // throws
    }

  if (!raw.sizes.empty()) o.sizes = tuner::parse_sizes(raw.sizes);

  bool strategy_known = false;
  std::string names;
  for (auto name : tuner::strategy_names()) {
    strategy_known = strategy_known || name == raw.strategy;
    names += fmt::format("{}{}", names.empty() ? "" : ", ", name);
  }
  if (!strategy_known)
    throw Exit(kExitUsage,
               fmt::format("unknown strategy '{}' (expected one of: {})", raw.strategy, names));
  o.strategy = raw.strategy;

  o.space = tuner::default_space();
  if (!raw.algorithms.empty()) tuner::apply_algorithms(o.space, raw.algorithms);
  for (const tuner::SpaceField& f : tuner::space_fields()) {
    const auto list = raw.grid.find(std::string(f.option));
    if (!f.option.empty() && list != raw.grid.end() && !list->second.empty())
      f.apply(o.space, list->second, f.option);
  }

  if (!raw.budget.empty()) o.budget_s = tuner::parse_duration(raw.budget);
  o.db_path = raw.db;
  if (!raw.simulate.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(raw.simulate, ec))
      throw Exit(kExitUsage, fmt::format("--simulate: no such file '{}'", raw.simulate));
    o.simulate_db = raw.simulate;
  }
  if (!raw.against.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(raw.against, ec))
      throw Exit(kExitUsage, fmt::format("--against: no such file '{}'", raw.against));
    o.against_db = raw.against;
  }
  // --all picks up where an interrupted --all stopped: the interrupted run's
  // measurements replay, and the buckets with a winner are skipped (--force: redone).
  o.resume = raw.resume || raw.all;
  o.skip_tuned = raw.all && !raw.force;
  o.dry_run = raw.dry_run;
  o.hot = raw.hot;
  // !(x > 1) also rejects NaN.
  if (!(raw.time_limit > 1.0))
    throw Exit(kExitUsage,
               fmt::format("--time-limit {} must be greater than 1 (a multiple of the best "
                           "time so far)",
                           raw.time_limit));
  o.time_limit_factor = raw.time_limit;
  o.device = checked_device(raw.device);
  o.seed = raw.seed;
  o.command_line = command_line;
  o.compile_worker = own_executable();
  if (!raw.segments.empty()) {
    o.segments = tuner::parse_segments_list(raw.segments);
    if (!o.custom_ops.empty() || !o.simulate_db.empty())
      throw Exit(kExitUsage, fmt::format("--segments {} takes built-in operators and a GPU (no "
                                         "custom operators, no --simulate)",
                                         raw.segments));
  }

  if (raw.progress == "auto")
    o.progress = Progress::auto_mode(stdout);
  else if (raw.progress == "bar")
    o.progress = Progress::Mode::Bar;
  else if (raw.progress == "lines")
    o.progress = Progress::Mode::Lines;
  else if (raw.progress == "quiet")
    o.progress = Progress::Mode::Quiet;
  else
    throw Exit(kExitUsage, fmt::format("unknown progress mode '{}' (expected auto, bar, lines "
                                       "or quiet)",
                                       raw.progress));
  return o;
}

/// The sort grid's options and default lists, from the fields' description.
std::string sort_grid_help() {
  std::string help;
  for (const detail::SortField& f : detail::sort_fields()) {
    std::string values;
    for (int v : f.search)
      values += fmt::format("{}{}", values.empty() ? "" : ",", v);
    help += fmt::format("{}{} {}", help.empty() ? "" : " x\n", f.option, values);
  }
  return help;
}

/// `--select` / `--sort`: the types, sizes and search lists; the scan options are refused.
tuner::PrimitiveTuneOptions build_primitive_options(const RawOptions& raw) {
  if (raw.all || raw.ops_given || raw.kinds != "inclusive" || !raw.custom_ops.empty() ||
      !raw.segments.empty() || !raw.simulate.empty() || !raw.against.empty() || raw.resume ||
      raw.hot || !raw.budget.empty())
    throw Exit(kExitUsage, "--select and --sort take --type, --sizes, the search lists, --db, "
                           "--device, --seed and --dry-run (no operator, kind, segments, "
                           "--all, --simulate, --against, --resume, --hot or --budget)");
  tuner::PrimitiveTuneOptions o;
  std::vector<DataType> types;
  for (const ScanTypes& t : parse_scan_type_list(raw.types)) {
    if (!raw.sort.empty()) require_element_type(t, "sorts");
    types.push_back(compaction_element_type(t));
  }
  const auto compactions =
      raw.select.empty() ? std::vector<detail::Heads>{} : tuner::parse_compactions(raw.select);
  const auto sorts =
      raw.sort.empty() ? std::vector<std::size_t>{} : tuner::parse_sort_values(raw.sort);
  o.problems = tuner::primitive_problems(types, compactions, sorts);
  if (!raw.sizes.empty()) o.sizes = tuner::parse_sizes(raw.sizes);
  if (!raw.algorithms.empty()) tuner::apply_algorithms(o.select_space, raw.algorithms);
  for (const tuner::SpaceField& f : tuner::space_fields())
    if (const std::string* list = f.option.empty() ? nullptr : given_list(raw, f.option))
      f.apply(o.select_space, *list, f.option);
  for (const detail::SortField& f : detail::sort_fields())
    if (const std::string* list = given_list(raw, f.option))
      tuner::apply_sort_option(o.sort_space, f.option, *list);
  o.db_path = raw.db;
  o.dry_run = raw.dry_run;
  o.device = checked_device(raw.device);
  o.seed = raw.seed;
  o.command_line = command_line;
  o.compile_worker = own_executable();
  return o;
}

void on_sigint(int) {
  tuner::request_interrupt();
}

/// Ctrl-C asks run_tune to stop after the current measurement. SA_RESETHAND puts
/// the default action back at once, so a second Ctrl-C kills a stuck run.
class SigintGuard {
public:
  SigintGuard() {
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_RESTART;
    installed_ = sigaction(SIGINT, &sa, &previous_) == 0;
  }
  ~SigintGuard() {
    if (installed_) sigaction(SIGINT, &previous_, nullptr);
  }
  SigintGuard(const SigintGuard&) = delete;
  SigintGuard& operator=(const SigintGuard&) = delete;

private:
  struct sigaction previous_ {};
  bool installed_ = false;
};

/// Usage errors print as "scantune tune: ..." and exit 2.
[[noreturn]] void usage_error(const std::string& message) {
  fail(kExitUsage, "tune", message);
}

void run_primitives(const RawOptions& raw) {
  tuner::PrimitiveTuneOptions options;
  try {
    options = build_primitive_options(raw);
  } catch (const Exit& e) {
    usage_error(e.what());
  } catch (const Error& e) {
    usage_error(e.what()); // tuner::UsageError, parse_sizes, a list's parse
  }
  int rc = kExitFailure;
  try {
    SigintGuard guard;
    rc = tuner::run_primitive_tune(options, stdout);
  } catch (const tuner::UsageError& e) {
    usage_error(e.what());
  } catch (const std::runtime_error& e) {
    fail(kExitFailure, "tune", e.what());
  }
  if (rc != kExitOk) throw Exit(rc, "");
}

void run(const RawOptions& raw) {
  if (!raw.select.empty() || !raw.sort.empty()) return run_primitives(raw);
  TuneOptions options;
  try {
    options = build_options(raw);
  } catch (const Exit& e) {
    usage_error(e.what());
  } catch (const Error& e) {
    usage_error(e.what()); // parse_sizes, parse_duration, check_op, ...
  }
  int rc = kExitFailure;
  try {
    SigintGuard guard;
    rc = tuner::run_tune(options, stdout);
  } catch (const tuner::UsageError& e) {
    usage_error(e.what()); // what only run_tune can check, e.g. --device past the count
  } catch (const std::runtime_error& e) { // scantune::Error or CacheError
    fail(kExitFailure, "tune", e.what());
  }
  if (rc != kExitOk) throw Exit(rc, ""); // run_tune has said why
}

const char* const kFooter = R"(Examples:
  scantune tune --type int32 --op sum --kind inclusive
      Tune inclusive int32 sums at every size (2^10..2^30) into the default database.
  scantune tune --all
      Tune the standard matrix (36 problems); after Ctrl-C, the same command resumes.
  scantune tune --type all --op sum,max --kind all --budget 2h --progress lines
      Tune 24 problems within two hours, one line per measurement (logs, CI).
  scantune tune --type uint8:int32,float16 --sizes 2^16:2^28:2
      Tune converting scans: bytes summed into int32, half accumulated in float.
  scantune tune --type float32 --custom-op 'absmax:fabsf(a) > fabsf(b) ? a : b:0.0f' --dry-run
      Show how many measurements a custom operator would take, without a GPU.
  scantune tune --custom-op linear_recurrence --kind all --sizes 2^20:2^28:2
      Tune the struct-valued linear recurrence on (a, b) float pairs per size bucket.
  scantune tune --select select_flags,unique --sort keys,pairs --type int32,uint32
      Tune compactions and radix sorts per size bucket (their own problem kinds).

Ctrl-C stops after the current measurement and keeps what was measured (exit 130);
--resume (implied by --all) continues the run. A second Ctrl-C kills the process.
Exit codes: 0 done, 1 failed, 2 bad usage, 77 no usable GPU, 130 interrupted.)";

} // namespace

void register_tune_command(CLI::App& app) {
  auto raw = std::make_shared<RawOptions>();
  CLI::App* tune = app.add_subcommand(
      "tune", "Find the fastest scan policies for this GPU and store them in the tuning "
              "database");
  tune->footer(kFooter);

  const char* problem = "What to tune";
  CLI::Option* all =
      tune->add_flag("--all", raw->all,
                     "The standard matrix: int32, uint32, int64, uint64, float32,\n"
                     "float64 x sum, min, max x inclusive, exclusive (36 problems).\n"
                     "Skips the size buckets this GPU model already has winners for\n"
                     "and resumes an interrupted run: after Ctrl-C, run it again")
          ->group(problem);
  tune->add_flag("--force", raw->force,
                 "With --all: tune the buckets that already have winners too")
      ->needs(all)
      ->group(problem);
  tune->add_option("--type", raw->types,
                   "Element types, comma-separated, or 'all': int32, uint32, int64,\n"
                   "uint64, float32, float64. Default: int32. Converting scans:\n"
                   "IN:ACC or IN:ACC:OUT (uint8:int32, float16:float32:float16), or a\n"
                   "narrow type alone (int8 = int8:int32:int8; int8 .. uint16, float16,\n"
                   "bfloat16), each a problem of its own. Example: --type int32,uint8:int32")
      ->type_name("LIST")
      ->excludes(all)
      ->group(problem);
  tune->add_option_function<std::string>(
          "--op",
          [raw](const std::string& v) {
            raw->ops = v;
            raw->ops_given = true;
          },
          "Built-in operators, comma-separated, or 'all': sum, product, min,\n"
          "max, bit_and, bit_or, bit_xor (integer types only). Default: sum\n"
          "(none when --custom-op is given). Example: --op sum,max")
      ->type_name("LIST")
      ->excludes(all)
      ->group(problem);
  tune->add_option("--kind", raw->kinds,
                   "Scan kinds, comma-separated, or 'all': inclusive, exclusive.\n"
                   "Default: inclusive. Example: --kind all")
      ->type_name("LIST")
      ->excludes(all)
      ->group(problem);
  tune->add_option("--custom-op", raw->custom_ops,
                   "A custom operator, repeatable: NAME:BODY:IDENTITY, tuned for every\n"
                   "--type. BODY is an expression or function body of `a` and `b`\n"
                   "(it may contain ':'). NAME alone picks a sample with a compiled CUB\n"
                   "twin (a CUB baseline): absmax (float32, float64), shifted_product\n"
                   "(uint32, uint64), or a struct-valued operator of the library,\n"
                   "tuned once on its struct whatever --type says (problem '@struct8'):\n"
                   "linear_recurrence ((a, b) float pairs), argmax ((float, int32)),\n"
                   "columns_TYPExN_OP (N columns of an axis scan, e.g. columns_float32x4_sum).\n"
                   "Examples: --custom-op 'absmax:fabs(a) > fabs(b) ? a : b:0.0',\n"
                   "--custom-op linear_recurrence")
      ->type_name("NAME:BODY:IDENTITY")
      ->expected(1) // one operator per occurrence: bodies contain spaces
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->excludes(all)
      ->group(problem);
  tune->add_option("--select", raw->select,
                   "Tune compactions instead of scans, each a problem of its own per\n"
                   "--type: select_flags, unique, partition_flags, or 'all'.\n"
                   "Candidates: lookback_warp tile shapes, and lookback_bulk's for\n"
                   "select_flags (--block-threads, --items-per-thread, --vector-bytes,\n"
                   "--tile-io, --min-blocks: 0,5, --stages).\n"
                   "With --select or --sort, --sizes defaults to 2^10:2^28:1")
      ->type_name("LIST")
      ->excludes(all)
      ->group(problem);
  tune->add_option("--sort", raw->sort,
                   "Tune radix sorts instead of scans, per --type of keys: keys, pairs\n"
                   "(4-byte values), pairs8, or 'all'. Candidates, within shared memory:\n" +
                       sort_grid_help())
      ->type_name("LIST")
      ->excludes(all)
      ->group(problem);
  tune->add_option("--sizes", raw->sizes,
                   "Input sizes: 2^A:2^B:STEP (powers of two, STEP in the exponent),\n"
                   "2^K, N, or a comma-separated list of those.\n"
                   "Default: 2^10:2^30:1, bounded by free device memory.\n"
                   "Example: --sizes 2^16:2^28:2")
      ->type_name("SPEC")
      ->group(problem);

  const char* search = "Search";
  tune->add_option("--strategy", raw->strategy,
                   "halving: screen every candidate briefly, keep the best half,\n"
                   "repeat; exhaustive: time every candidate fully. Default: halving")
      ->type_name("NAME")
      ->group(search);
  // The grid dimensions: comma-separated lists in the "Search" group.
  auto search_list = [&](const char* name, std::string& dest, const char* help) {
    tune->add_option(name, dest, help)->type_name("LIST")->group(search);
  };
  search_list("--algorithms", raw->algorithms,
              "Inter-block algorithms and/or block scans, comma-separated; names\n"
              "of one kind replace that dimension. 'all' adds sequential and chained\n"
              "and lifts the size limits (single_block above 2^16, hillis_steele above\n"
              "2^20, lookback_pipelined below 2^20, lookback_bulk below 2^22;\n"
              "naming one lifts its own). lookback_bulk needs sm_90 or newer.\n"
              "Default: single_block, reduce_then_scan, lookback_thread, lookback_warp,\n"
              "lookback_pipelined, lookback_bulk; all block scans.\n"
              "Example: --algorithms lookback_warp,reduce_then_scan,warp_scans");
  for (const tuner::SpaceField& f : tuner::space_fields())
    if (!f.option.empty())
      tune->add_option(std::string(f.option), raw->grid[std::string(f.option)], std::string(f.help))
          ->type_name("LIST")
          ->group(search);
  for (const detail::SortField& f : detail::sort_fields())
    if (sort_only_option(f.option))
      tune->add_option(std::string(f.option), raw->grid[std::string(f.option)],
                       fmt::format("With --sort: {}. Default: the sort grid", f.help))
          ->type_name("LIST")
          ->group(search);
  tune->add_option("--time-limit", raw->time_limit,
                   "Stop timing a candidate once it is clearly slower than FACTOR\n"
                   "times the best time at that size; above 1. Default: 2.5")
      ->type_name("FACTOR")
      ->group(search);

  const char* run_group = "Run";
  tune->add_option("--budget", raw->budget,
                   "Time budget for the whole run: 90 (seconds), 90s, 10m, 1.5h or\n"
                   "1h30m. When spent, problems conclude with what they measured.\n"
                   "Default: no limit. Example: --budget 45m")
      ->type_name("DURATION")
      ->group(run_group);
  tune->add_option("--db", raw->db,
                   "Tuning database to write. Default: $SCANTUNE_DB, else\n"
                   "$XDG_DATA_HOME/scantune/tuning.db")
      ->type_name("PATH")
      ->group(run_group);
  tune->add_flag("--resume", raw->resume,
                 "Continue the last interrupted run on this GPU model (any card of\n"
                 "it), skipping what it has measured")
      ->group(run_group);
  tune->add_flag("--dry-run", raw->dry_run,
                 "Print the problems, sizes and planned measurements; measure\n"
                 "nothing (no GPU needed)")
      ->group(run_group);
  tune->add_flag("--hot", raw->hot,
                 "Time with the input hot in L2 (no rotation between buffers).\n"
                 "Default: cold, as an application scanning fresh data sees it")
      ->group(run_group);
  tune->add_option("--simulate", raw->simulate,
                   "Replay the measurements of a recorded database instead of\n"
                   "timing on a GPU (strategy development, tests).\n"
                   "Example: --simulate h100.db")
      ->type_name("RECORDED.db")
      ->group(run_group);
  tune->add_option("--against", raw->against,
                   "After tuning, re-time each size's winner against the winner\n"
                   "stored in another database for the same GPU model and bucket,\n"
                   "in alternation, and print their ratio (compare two runs, or a\n"
                   "strategy with the exhaustive search).\n"
                   "Example: --against exhaustive.db")
      ->type_name("OTHER.db")
      ->group(run_group);
  tune->add_option("--device", raw->device,
                   "CUDA device ordinal. Default: the current device (0 unless\n"
                   "CUDA_VISIBLE_DEVICES says otherwise)")
      ->type_name("N")
      ->group(run_group);
  tune->add_option("--seed", raw->seed, "Seed of the random input data. Default: 1")
      ->type_name("N")
      ->group(run_group);
  tune->add_option("--segments", raw->segments,
                   "Tune segmented scans instead, stored as their own problem kind:\n"
                   "rows:L, flags:L|random, keys:L|random, keys64:L|random,\n"
                   "offsets:L|random, offsets64:L|random or axis:LxC (as in `scantune\n"
                   "bench --segments`); several, comma-separated, are problems of their\n"
                   "own. Rows, offsets and axis scans are stored per length class as\n"
                   "dispatch keys such calls (rows.len_le256, offsets32.len_gt4096,\n"
                   "axis.len_le4.inner_gt64); sizes of another class are left out.\n"
                   "Candidates: lookback_warp with warp_scans, and lookback_bulk for\n"
                   "flags, keys and offsets (sm_90 and up); axis scans their block,\n"
                   "rows per thread and vector shapes, the default axis policy included")
      ->type_name("SPEC")
      ->excludes(all)
      ->group(run_group);
  tune->add_option("--progress", raw->progress,
                   "auto: a bar on a terminal, else lines; bar; lines: one line per\n"
                   "measurement; quiet: no progress output. Default: auto")
      ->type_name("MODE")
      ->group(run_group);

  tune->callback([raw] { run(*raw); });
}

} // namespace scantune::cli

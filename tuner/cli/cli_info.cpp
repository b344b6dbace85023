// scantune version | devices | compile: what this build and machine offer.
#include <algorithm>
#include <cstdio>
#include <optional>

#include <unistd.h>

#include <fmt/core.h>

#include "algorithms.hpp"
#include "codegen.hpp"
#include "device_query.hpp"
#include "kernel_registry.hpp"
#include "kernel_resources.hpp"
#include "nvrtc_compiler.hpp"
#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "tuner/cli/cli.hpp"
#include "tuner/cli/cli_shared.hpp"
#include "tuner/gpu/compile_worker.hpp"
#include "tuner/gpu/gpu_device.hpp"
#include "tuner/report/text_table.hpp"
#include "tuner/run/bench_run.hpp"
#include "tuner/run/tune.hpp"
#include "tuner/run/tune_primitives.hpp"
#include "tuner/search/problem.hpp"

namespace scantune::cli {
namespace {

/// ptxas's numbers of kernel `index` of a set and the blocks an SM holds by them (its
/// launch threads and dynamic shared memory, staged heads included: kernel_shape;
/// sm_limits' table of the architecture).
void print_resources(const detail::KernelResources& k, const detail::KernelSpec& spec,
                     const ScanTypes& types, int arch, std::size_t index) {
  const detail::KernelShape shape = detail::kernel_shape(spec.policy, types, spec.heads, index);
  const std::size_t dynamic = shape.dynamic_bytes;
  const int threads = shape.threads;
  fmt::print("    {} registers, {} B spilled ({} B stack), {} B static + {} B dynamic shared, {} "
             "threads",
             k.registers, k.spill_store_bytes, k.stack_bytes, k.static_shared_bytes, dynamic,
             threads);
  if (const auto sm = detail::sm_limits(arch)) {
    const detail::Residency r =
        detail::resident_blocks(*sm, k.registers, k.static_shared_bytes + dynamic, threads);
    fmt::print(": {} blocks an SM (registers {}, shared memory {}, threads {})", r.blocks,
               r.by_registers, r.by_shared, r.by_threads);
  }
  fmt::print("\n");
}

/// The GPUs this process sees (none is not an error), then the devices of the
/// tuning database with their runs and winners (a missing database is not either).
void run_devices(const std::string& db_path) {
  const tuner::GpuCount gpus = tuner::count_gpus();
  if (gpus.count == 0) {
    fmt::print("GPUs here: none (no CUDA device found: {})\n", gpus.why_none);
  } else {
    tuner::TextTable t{{{"ordinal", true},
                        {"model", false},
                        {"bandwidth GB/s", true},
                        {"driver", false},
                        {"uuid", false}},
                       {}};
    for (int i = 0; i < gpus.count; ++i) {
      try {
        const db::DeviceInfo d = db::query_device(i);
        t.add({std::to_string(i), d.model(), fmt::format("{:.0f}", d.bandwidth_gbs),
               cuda_version(d.driver_version), d.uuid});
      } catch (const Error& e) {
        t.add({std::to_string(i), fmt::format("(cannot query: {})", e.what()), "-", "-", "-"});
      }
    }
    fmt::print("GPUs here:\n\n{}", t.markdown());
  }

  const auto path = db::default_db_path(db_path);
  std::optional<db::TuningDb> db;
  try {
    db = db::TuningDb::open_existing_read_only(path);
  } catch (const std::runtime_error& e) { // scantune::Error or CacheError
    fail(kExitFailure, "devices", e.what());
  }
  if (!db) {
    fmt::print("\nno tuning database at {}\n", path.string());
    return;
  }
  const std::vector<db::DeviceInfo> devices = db->list_devices();
  if (devices.empty()) {
    fmt::print("\ndevices in {}: none\n", path.string());
    return;
  }
  const auto runs = db->list_runs();
  const auto best = db->list_best();
  tuner::TextTable t{{{"id", true},
                      {"model", false},
                      {"driver", false},
                      {"uuid", false},
                      {"runs", true},
                      {"winners", true}},
                     {}};
  for (const db::DeviceInfo& d : devices) {
    const auto n_runs = std::count_if(runs.begin(), runs.end(),
                                      [&](const db::RunInfo& r) { return r.device_id == d.id; });
    const auto n_best = std::count_if(best.begin(), best.end(),
                                      [&](const db::BestEntry& b) { return b.device_id == d.id; });
    t.add({std::to_string(d.id), d.model(), cuda_version(d.driver_version), d.uuid,
           std::to_string(n_runs), std::to_string(n_best)});
  }
  fmt::print("\ndevices in {}:\n\n{}", path.string(), t.markdown());
}

} // namespace

void register_info_commands(CLI::App& app) {
  app.add_subcommand("version", "Print the library, NVRTC and template-source versions")
      ->callback([] {
        fmt::print("scantune {}\nNVRTC {}\ntemplates sha256 {}\n", SCANTUNE_CLI_VERSION,
                   detail::nvrtc_version(), detail::template_sources_hash());
      });

  auto db_path = std::make_shared<std::string>();
  auto* devices = app.add_subcommand(
      "devices", "List the GPUs seen here and the devices recorded in the tuning database");
  add_db_option(devices, *db_path);
  devices->callback([db_path] { run_devices(*db_path); });

  auto* compile =
      app.add_subcommand("compile", "NVRTC-compile one kernel configuration (no GPU needed)");
  auto policy = std::make_shared<std::string>("lookback_warp.tpb256.ipt12.vec4.warp_scans");
  auto type = std::make_shared<std::string>("int32");
  auto op = std::make_shared<std::string>("sum");
  auto kind = std::make_shared<std::string>("inclusive");
  auto arch = std::make_shared<int>(90);
  auto show_source = std::make_shared<bool>(false);
  auto out = std::make_shared<std::string>();
  auto segments = std::make_shared<std::string>();
  auto select = std::make_shared<std::string>();
  compile->add_option("--policy", *policy, "Policy key")->capture_default_str();
  compile->add_option("--type", *type, "Element type, or converting types (uint8:int32, int8)")
      ->capture_default_str();
  compile->add_option("--op", *op, "Operator")->capture_default_str();
  compile->add_option("--kind", *kind, "inclusive or exclusive")->capture_default_str();
  compile->add_option("--arch", *arch, "Target architecture, e.g. 80 or 90")->capture_default_str();
  compile->add_option("--segments", *segments,
                      "A segmented problem's kernel instead, as for tune and bench:\n"
                      "flags:32, keys:32, offsets:random, rows:1000, axis:8x64");
  compile
      ->add_option("--select", *select,
                   "A compaction's kernels instead: select_flags, unique, partition_flags")
      ->excludes("--segments");
  compile->add_flag("--source", *show_source, "Print the generated source");
  compile->add_option("--out", *out, "Write the CUBIN to this file (for cuobjdump --dump-sass)");
  compile->callback([=] {
    const ScanTypes types = parse_scan_types(*type);
    tuner::Problem problem =
        tuner::Problem::of(types, detail::OpSpec::from(parse_op(*op)), parse_scan_kind(*kind));
    std::vector<detail::Heads> compactions;
    try {
      if (!segments->empty()) problem.segments = tuner::parse_segments(*segments);
      if (!select->empty()) compactions = tuner::parse_compactions(*select);
    } catch (const tuner::UsageError& e) {
      throw Exit(kExitUsage, e.what());
    }
    if (compactions.size() > 1) throw Exit(kExitUsage, "--select takes one compaction");
    // Only flat scans convert (the library refuses the rest by name too); compactions move
    // their elements, narrow ones too, as they are.
    if (!problem.segments.flat()) require_element_type(types, "segmented, batched and axis scans");
    detail::KernelSpec spec = problem.spec(Policy::parse(*policy));
    if (!compactions.empty()) {
      spec.heads = compactions.front();
      spec.type = compaction_element_type(types);
      spec.converts.reset();
    }
    detail::check_op(spec.type, spec.op);
    if (auto why = spec.policy.invalid_reason(spec.types())) throw Exit(kExitUsage, *why);
    if (auto why = spec.heads != detail::Heads::None
                       ? detail::problem_invalid_reason(spec.policy, spec.heads, spec.type)
                       : std::nullopt)
      throw Exit(kExitUsage, *why);
    auto gen = detail::generate({spec});
    if (*show_source) fmt::print("{}\n", gen.source);
    auto prog = detail::nvrtc_compile(gen.name, gen.source, gen.name_expressions.front(), *arch,
                                      {"--ptxas-options=-v"});
    fmt::print("{}: sm_{} CUBIN {} bytes in {:.1f} ms\n", spec.id(), *arch, prog.cubin.size(),
               prog.compile_ms);
    const auto resources = detail::parse_ptxas_log(prog.log);
    for (std::size_t i = 0; i < prog.lowered_names.size(); ++i) {
      const std::string& n = prog.lowered_names[i];
      fmt::print("  kernel {}\n", n);
      for (const auto& k : resources)
        if (k.name == n) print_resources(k, spec, types, *arch, i);
    }
    if (!out->empty())
      write_file("compile", *out, std::string_view(prog.cubin.data(), prog.cubin.size()));
  });

  // The tuner's compile helper (tuner/gpu/compile_worker.hpp): talks over the socket
  // it gets as standard input and output; anything printed goes to stderr instead.
  // Hidden from --help (an empty group).
  app.add_subcommand("compile-worker", "Compile what the tuner sends (internal)")
      ->group("")
      ->callback([] {
        const int socket = ::dup(0);
        ::dup2(2, 1);
        throw Exit(tuner::run_compile_worker(socket), "");
      });
}

} // namespace scantune::cli

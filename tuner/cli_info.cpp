// scantune version | devices | compile: what this build and machine offer.
#include <cstdio>

#include <fmt/core.h>

#include "codegen.hpp"
#include "kernel_registry.hpp"
#include "nvrtc_compiler.hpp"
#include "scantune/scantune.hpp"
#include "tuner/cli.hpp"

namespace scantune::cli {

void register_info_commands(CLI::App& app) {
  app.add_subcommand("version", "Print the library, NVRTC and template-source versions")
      ->callback([] {
        fmt::print("scantune {}\nNVRTC {}\ntemplates sha256 {}\n", SCANTUNE_CLI_VERSION,
                   detail::nvrtc_version(), detail::template_sources_hash());
      });

  auto* compile =
      app.add_subcommand("compile", "NVRTC-compile one kernel configuration (no GPU needed)");
  auto policy = std::make_shared<std::string>("lookback_warp.tpb256.ipt12.vec4.warp_scans");
  auto type = std::make_shared<std::string>("int32");
  auto op = std::make_shared<std::string>("sum");
  auto kind = std::make_shared<std::string>("inclusive");
  auto arch = std::make_shared<int>(90);
  auto show_source = std::make_shared<bool>(false);
  compile->add_option("--policy", *policy, "Policy key")->capture_default_str();
  compile->add_option("--type", *type, "Element type")->capture_default_str();
  compile->add_option("--op", *op, "Operator")->capture_default_str();
  compile->add_option("--kind", *kind, "inclusive or exclusive")->capture_default_str();
  compile->add_option("--arch", *arch, "Target architecture, e.g. 80 or 90")->capture_default_str();
  compile->add_flag("--source", *show_source, "Print the generated source");
  compile->callback([=] {
    detail::KernelSpec spec{Policy::parse(*policy), parse_data_type(*type),
                            detail::OpSpec::from(parse_op(*op)), parse_scan_kind(*kind)};
    detail::check_op(spec.type, spec.op);
    if (auto why = spec.policy.invalid_reason(spec.type)) throw Exit(kExitUsage, *why);
    auto gen = detail::generate({spec});
    if (*show_source) fmt::print("{}\n", gen.source);
    auto prog = detail::nvrtc_compile(gen.name, gen.source, gen.name_expressions.front(), *arch);
    fmt::print("{}: sm_{} CUBIN {} bytes in {:.1f} ms\n", spec.id(), *arch, prog.cubin.size(),
               prog.compile_ms);
    for (const auto& n : prog.lowered_names)
      fmt::print("  kernel {}\n", n);
  });
}

} // namespace scantune::cli

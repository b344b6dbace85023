// scantune: tune, inspect and benchmark GPU prefix scans.
#include <cstdio>

#include <fmt/core.h>

#include "scantune/scantune.hpp"
#include "tuner/cli.hpp"

int main(int argc, char** argv) {
  CLI::App app{"scantune: a code-generating autotuner for GPU prefix scans"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  scantune::cli::register_info_commands(app);
  scantune::cli::register_cache_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 returns 0 for --help; every real usage error exits 2.
    int rc = app.exit(e);
    return rc == 0 ? 0 : scantune::cli::kExitUsage;
  } catch (const scantune::cli::Exit& e) {
    if (e.what()[0] != '\0') fmt::print(stderr, "scantune: {}\n", e.what());
    return e.code;
  } catch (const scantune::Error& e) {
    fmt::print(stderr, "scantune: {}\n", e.what());
    return scantune::cli::kExitFailure;
  } catch (const std::exception& e) {
    fmt::print(stderr, "scantune: {}\n", e.what());
    return scantune::cli::kExitFailure;
  }
  return 0;
}

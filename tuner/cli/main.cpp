// scantune: tune, inspect and benchmark GPU prefix scans.
#include <cstdio>
#include <string>

#include <fmt/core.h>

#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "tuner/cli/cli.hpp"

namespace {

/// argv joined with spaces, each argument quoted when the shell would split or
/// expand it, so a stored command line can be pasted back (custom-op bodies).
std::string join_command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i > 0) line += ' ';
    const bool plain =
        !arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_-+=.,:/^@%") == std::string::npos;
    if (plain) {
      line += arg;
      continue;
    }
    line += '\'';
    for (char c : arg)
      line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

/// "scantune tune: --bogus ..." for CLI11's own errors, as the commands print theirs.
std::string failure_message(const CLI::App* app, const CLI::Error& e) {
  std::string path = "scantune";
  for (auto subs = app->get_subcommands(); !subs.empty(); subs = subs.front()->get_subcommands())
    path += " " + subs.front()->get_name();
  return fmt::format("{}: {}\nRun with --help for more information.\n", path, e.what());
}

} // namespace

int main(int argc, char** argv) {
  scantune::cli::command_line = join_command_line(argc, argv);
  CLI::App app{"scantune: a code-generating autotuner for GPU prefix scans"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  app.failure_message(failure_message);
  scantune::cli::register_info_commands(app);
  scantune::cli::register_cache_commands(app);
  scantune::cli::register_tune_command(app);
  scantune::cli::register_db_commands(app);
  scantune::cli::register_transfer_commands(app);
  scantune::cli::register_bench_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 returns 0 for --help; every real usage error exits 2.
    int rc = app.exit(e);
    return rc == 0 ? 0 : scantune::cli::kExitUsage;
  } catch (const scantune::cli::Exit& e) {
    if (e.what()[0] != '\0') fmt::print(stderr, "scantune: {}\n", e.what());
    return e.code;
  } catch (const std::exception& e) { // scantune::Error, CacheError, ...
    fmt::print(stderr, "scantune: {}\n", e.what());
    return scantune::cli::kExitFailure;
  }
  return 0;
}

// The scantune CLI: each command group registers its subcommands on the app.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

namespace scantune::cli {

/// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNoGpu = 77;

/// Thrown by a command to end the process with `code` after printing `what()`.
struct Exit : std::runtime_error {
  Exit(int c, const std::string& message) : std::runtime_error(message), code(c) {}
  int code;
};

/// Prints "scantune <command>: <message>" on stderr and ends the process with
/// `code` (kExitUsage for usage errors: one line naming the problem).
[[noreturn]] inline void fail(int code, std::string_view command, const std::string& message) {
  fmt::print(stderr, "scantune {}: {}\n", command, message);
  throw Exit(code, "");
}

void register_info_commands(CLI::App& app);     // version, devices, compile
void register_cache_commands(CLI::App& app);    // cache info|clear
void register_tune_command(CLI::App& app);      // tune
void register_db_commands(CLI::App& app);       // show, compare
void register_transfer_commands(CLI::App& app); // export, import
void register_bench_commands(CLI::App& app);    // bench, plot

/// The invocation, shell-quoted where needed (main sets it; runs store it).
inline std::string command_line;

} // namespace scantune::cli

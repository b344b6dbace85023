// The scantune CLI: each command group registers its subcommands on the app.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

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

void register_info_commands(CLI::App& app);  // version, devices, compile
void register_cache_commands(CLI::App& app); // cache info|clear
void register_tune_command(CLI::App& app);   // tune

/// The invocation, shell-quoted where needed (main sets it; runs store it).
inline std::string command_line;

} // namespace scantune::cli

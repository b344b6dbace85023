// tests/tuner/cli_run.hpp: runs the built scantune executable (SCANTUNE_CLI) as a
// process, for the CLI tests.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

namespace scantune::test {

struct CliResult {
  int code = -1;
  std::string output;
};

/// The scantune executable: the build's (SCANTUNE_CLI), else the one at the same
/// place relative to this test binary (<build>/tuner/scantune from
/// <build>/tests/tuner/): a build folder copied to another machine still works.
inline std::string cli_path() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(SCANTUNE_CLI, ec)) return SCANTUNE_CLI;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return (self.parent_path() / ".." / ".." / "tuner" / "scantune").string();
}

/// `scantune <args>`, run by the shell; `redirect` says where stderr goes
/// ("2>&1" joins it to the output, "2>/dev/null" drops it). `prefix` runs first
/// ("cd DIR &&").
inline CliResult run_cli(const std::string& args, const std::string& redirect = "2>&1",
                         const std::string& prefix = "") {
  CliResult r;
  const std::string cmd = prefix + " " + cli_path() + " " + args + " " + redirect;
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf{};
  while (p && fgets(buf.data(), buf.size(), p))
    r.output += buf.data();
  const int status = p ? pclose(p) : -1;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

} // namespace scantune::test

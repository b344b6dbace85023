// tests/common/child_process.hpp: runs this test binary again as a child process
// (one test, chosen by --gtest_filter) with changed environment variables; for
// what needs a fresh process (environment read once, a cold kernel registry).
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

extern char** environ;

namespace scantune::test {

/// Runs /proc/self/exe --gtest_filter=`test` with `env` set (an empty value
/// unsets), stderr to `stderr_file` if given; returns the exit status (-1: no start).
/// The child runs that one test whatever shard its parent was (GTEST_SHARD_* unset).
inline int run_self(const std::string& test, const std::map<std::string, std::string>& env,
                    const std::filesystem::path& stderr_file = {}) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    const std::string s = *e;
    const std::string name = s.substr(0, s.find('='));
    if (!env.count(name) && name != "GTEST_TOTAL_SHARDS" && name != "GTEST_SHARD_INDEX")
      env_strings.push_back(s);
  }
  for (const auto& [k, v] : env)
    if (!v.empty()) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string filter = "--gtest_filter=" + test;
  char* argv[] = {self.data(), filter.data(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!stderr_file.empty())
    posix_spawn_file_actions_addopen(&actions, 2, stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace scantune::test

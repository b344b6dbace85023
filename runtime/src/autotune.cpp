#include "autotune.hpp"

#include <csignal>
#include <cstdlib>
#include <filesystem>

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.hpp"

extern char** environ;

namespace scantune::detail {

bool autotune_requested_by_env() {
  const char* v = std::getenv("SCANTUNE_AUTOTUNE");
  const std::string s = v ? v : "";
  return s == "1" || s == "on" || s == "true";
}

std::string Autotuner::tuner_path() {
  namespace fs = std::filesystem;
  if (const char* t = std::getenv("SCANTUNE_TUNER"); t && *t) return t;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&autotune_requested_by_env), &info) && info.dli_fname) {
    const fs::path lib_dir = fs::path(info.dli_fname).parent_path();
    for (const char* rel : {"../bin/scantune", "../tuner/scantune"}) {
      std::error_code ec;
      const fs::path p = fs::weakly_canonical(lib_dir / rel, ec);
      if (!ec && fs::is_regular_file(p, ec)) return p.string();
    }
  }
  return "scantune";
}

Autotuner::Autotuner(int device, std::string db_path, std::string log_path,
                     std::function<void()> on_tuned)
    : device_(device), db_path_(std::move(db_path)), log_path_(std::move(log_path)),
      on_tuned_(std::move(on_tuned)), worker_([this] { run(); }) {}

Autotuner::~Autotuner() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    queue_.clear();
    if (child_ > 0) kill(child_, SIGINT);
  }
  cv_.notify_all();
  worker_.join();
}

std::vector<std::string> Autotuner::command(const ProblemName& p, std::uint64_t n) const {
  const char* budget = std::getenv("SCANTUNE_AUTOTUNE_BUDGET");
  return {tuner_path(), "tune",
          "--type",     std::string(to_string(p.type)),
          "--op",       p.op,
          "--kind",     std::string(to_string(p.kind)),
          "--sizes",    std::to_string(n),
          "--budget",   budget && *budget ? budget : "60s",
          "--device",   std::to_string(device_),
          "--db",       db_path_,
          "--progress", "lines"};
}

void Autotuner::request(const ProblemName& problem, std::uint64_t n) {
  if (problem.custom) {
    log(LogLevel::Info, "autotune: {} is a custom operator; tune it with scantune tune --custom-op",
        problem.label());
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stop_) return;
    queue_.emplace_back(problem, n);
  }
  cv_.notify_all();
}

void Autotuner::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [&] { return stop_ || (queue_.empty() && !busy_); });
}

int Autotuner::spawn_and_wait(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  int rc;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    rc = stop_ ? ECANCELED : posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    if (rc == 0) child_ = pid;
  }
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    if (rc != ECANCELED)
      log(LogLevel::Warn, "autotune: cannot start {}: {} (set SCANTUNE_TUNER)", args[0],
          std::strerror(rc));
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::lock_guard<std::mutex> lock(mutex_);
  child_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void Autotuner::run() {
  for (;;) {
    std::pair<ProblemName, std::uint64_t> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      busy_ = false;
      cv_.notify_all();
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    const auto argv = command(job.first, job.second);
    log(LogLevel::Info, "autotune: tuning {} at n = {} in the background ({}; log {})",
        job.first.label(), job.second, argv[0], log_path_);
    const int rc = spawn_and_wait(argv);
    if (rc == 0) {
      log(LogLevel::Info, "autotune: {} at n = {} tuned; rereading {}", job.first.label(),
          job.second, db_path_);
      on_tuned_();
    } else if (rc > 0) {
      log(LogLevel::Warn, "autotune: {} exited with {} tuning {} at n = {}; see {}", argv[0], rc,
          job.first.label(), job.second, log_path_);
    }
  }
}

} // namespace scantune::detail

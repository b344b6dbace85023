// Tune on first use (SCANTUNE_AUTOTUNE=1): size buckets that are not tuned for
// this GPU are tuned in the background by the `scantune tune` CLI (a child
// process: the tuner, its CUB baselines and verification stay out of the
// library), one at a time, into the scanner's tuning database.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/types.h>

#include "dispatch.hpp"

namespace scantune::detail {

/// Whether $SCANTUNE_AUTOTUNE asks for tuning on first use ("1", "on", "true").
bool autotune_requested_by_env();

class Autotuner {
public:
  /// `on_tuned` runs on the worker thread after each successful tuning.
  Autotuner(int device, std::string db_path, std::string log_path, std::function<void()> on_tuned);
  ~Autotuner(); ///< interrupts a running tuning (SIGINT: it keeps what it measured)
  Autotuner(const Autotuner&) = delete;
  Autotuner& operator=(const Autotuner&) = delete;

  /// Queues the tuning of `problem` at size n (built-in operators only).
  void request(const ProblemName& problem, std::uint64_t n);
  /// Blocks until the queue is empty and no tuning runs.
  void wait_idle();

  /// The tuner executable: $SCANTUNE_TUNER, else `scantune` next to the library
  /// (../bin/ in an install, ../tuner/ in a build tree), else "scantune" (PATH).
  static std::string tuner_path();
  /// The command line of one tuning (argv[0] = tuner_path()).
  std::vector<std::string> command(const ProblemName& problem, std::uint64_t n) const;

private:
  void run();
  int spawn_and_wait(const std::vector<std::string>& argv);

  int device_;
  std::string db_path_, log_path_;
  std::function<void()> on_tuned_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::pair<ProblemName, std::uint64_t>> queue_;
  bool busy_ = false, stop_ = false;
  pid_t child_ = -1;
  std::thread worker_;
};

} // namespace scantune::detail

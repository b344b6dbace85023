// Tuning progress: on a terminal, one bar redrawn in place with the problem, the
// count of measurements and an ETA; otherwise (logs, CI, pipes) one line per
// measurement. Notes (baselines, winners) print as lines in both modes.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

#include "tuner/search/evaluator.hpp"

namespace scantune::tuner {

class Progress {
public:
  enum class Mode { Bar, Lines, Quiet };
  /// Mode::Bar when `out` is a terminal, else Mode::Lines.
  static Mode auto_mode(std::FILE* out);

  Progress(std::FILE* out, Mode mode);
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress(); ///< ends a bar line that is still open

  /// A run of several problems (`scantune tune --all`): `problems` of them and
  /// `planned` measurements in all. Each begin() then counts as the next problem,
  /// and the bar (or, in Lines mode, a line per problem) shows the run's ETA.
  void plan_run(std::size_t problems, std::size_t planned);
  /// Starts a problem ("int32 sum inclusive") expected to take `planned` measurements.
  void begin(std::string label, std::size_t planned);
  /// One measurement done (a line in Lines mode: time, problem, size, policy,
  /// status and median; the bar's count and ETA in Bar mode).
  void step(const Result& r);
  /// A line of its own (above the bar in Bar mode); nothing in Quiet mode.
  void note(std::string_view line);
  /// Finishes the current problem's bar.
  void end();

  std::size_t done() const { return done_; }
  /// "1 min 05 s" style: the estimate of the time left for the current problem
  /// from the pace so far, or "?" before the first measurement.
  std::string eta() const;
  /// The estimate of the time left for the whole planned run ("?" without a plan
  /// or before its first measurement): from the measurements' pace until a problem
  /// has finished, then from the finished problems' (run_seconds_left).
  std::string run_eta() const;

private:
  void draw();
  std::FILE* out_;
  Mode mode_;
  std::string label_;
  std::size_t planned_ = 0, done_ = 0;
  std::size_t run_problems_ = 0, run_problem_ = 0; ///< plan_run's count; begin()s since
  std::size_t run_planned_ = 0, run_done_ = 0;
  std::size_t run_finished_planned_ = 0; ///< the planned measurements of finished problems
  double run_finished_s_ = 0;            ///< the time they took
  std::chrono::steady_clock::time_point run_start_{};
  bool bar_open_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point problem_start_ = start_;
  std::chrono::steady_clock::time_point last_draw_{};
};

/// The time left at the pace so far: elapsed / done x (planned - done); 0 once
/// done reaches planned (an estimate for adaptive strategies), infinity before
/// the first measurement (format_duration prints "?").
double seconds_left(double elapsed_s, std::size_t done, std::size_t planned);

/// The time left of a planned run of problems once one has finished. Strategies take
/// more measurements than they plan (halving's refinement and duels about twice as
/// many), so the pace is the finished problems' seconds per planned measurement: at
/// that pace, the plan after the current problem plus what the current one has left
/// of its share (0 once past it).
double run_seconds_left(double finished_s, std::size_t finished_planned, double current_s,
                        std::size_t current_planned, std::size_t run_planned);

/// "1 min 05 s", "42.0 s", "2 h 03 min".
std::string format_duration(double seconds);
/// Parses a duration: "90" or "90s", "10m", "1.5h", "1h30m". Throws scantune::Error.
double parse_duration(std::string_view text);

} // namespace scantune::tuner

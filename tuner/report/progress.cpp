// Tuning progress: a bar redrawn in place on terminals, one line per measurement
// elsewhere.
#include "tuner/report/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "tuner/search/search_space.hpp"

namespace scantune::tuner {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
constexpr int kBarWidth = 24;

// The header has no member for the size being measured, so label_ carries it
// after this separator: "int32 sum inclusive\x1f2^20".
constexpr char kSizeSep = '\x1f';

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::string_view problem_of(const std::string& label) {
  return std::string_view(label).substr(0, label.find(kSizeSep));
}

std::string_view size_of_label(const std::string& label) {
  auto at = label.find(kSizeSep);
  return at == std::string::npos ? std::string_view{} : std::string_view(label).substr(at + 1);
}

std::string format_time(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.2f} us", ns / 1e3);
  if (ns < 1e9) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.2f} s", ns / 1e9);
}

std::string_view first_line(std::string_view s) {
  return s.substr(0, s.find('\n'));
}

// Columns of the terminal behind `out`; a redrawn line must not wrap, or '\r'
// returns to the wrapped part only and the bar smears down the screen.
std::size_t terminal_columns(std::FILE* out) {
  winsize ws{};
  if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

} // namespace

Progress::Mode Progress::auto_mode(std::FILE* out) {
  return isatty(fileno(out)) ? Mode::Bar : Mode::Lines;
}

Progress::Progress(std::FILE* out, Mode mode) : out_(out), mode_(mode) {}

Progress::~Progress() {
  if (bar_open_) {
    std::fputc('\n', out_);
    std::fflush(out_);
  }
}

void Progress::plan_run(std::size_t problems, std::size_t planned) {
  run_problems_ = problems;
  run_problem_ = run_done_ = run_finished_planned_ = 0;
  run_finished_s_ = 0;
  run_planned_ = planned;
  run_start_ = Clock::now();
}

void Progress::begin(std::string label, std::size_t planned) {
  if (bar_open_) end();
  const auto now = Clock::now();
  if (run_problems_ > 0 && run_problem_ > 0) { // the previous problem of the run finished
    run_finished_planned_ += planned_;
    run_finished_s_ = seconds_between(run_start_, now);
  }
  label_ = std::move(label);
  planned_ = planned;
  done_ = 0;
  problem_start_ = now;
  if (run_problems_ > 0) {
    ++run_problem_;
    if (mode_ == Mode::Lines)
      note(fmt::format("problem {}/{}: {} ({} measurements planned); run ETA {}", run_problem_,
                       run_problems_, label_, planned_, run_eta()));
  }
  if (mode_ == Mode::Bar) {
    bar_open_ = true;
    draw();
  }
}

void Progress::step(const Result& r) {
  ++done_;
  ++run_done_;
  label_ = fmt::format("{}{}{}", problem_of(label_), kSizeSep, size_label(r.size));
  if (mode_ == Mode::Quiet) return;
  if (mode_ == Mode::Bar) {
    bar_open_ = true;
    const auto now = Clock::now();
    // Throttled: redrawing per measurement would flood slow terminals.
    if (now - last_draw_ >= kRedrawInterval || done_ == planned_) draw();
    return;
  }
  std::string outcome;
  if (r.ok()) {
    outcome = fmt::format("ok  {}", format_time(r.median_ns));
  } else {
    outcome = std::string(db::to_string(r.status));
    if (r.status == db::MeasurementStatus::Timeout && r.median_ns > 0)
      outcome += fmt::format("  >{}", format_time(r.median_ns));
    auto why = first_line(r.message);
    if (!why.empty()) outcome += fmt::format("  {}", why);
  }
  fmt::print(out_, "[{:6.1f} s] {}  n={}  {}  {}  ({}/{})\n", seconds_between(start_, Clock::now()),
             problem_of(label_), size_label(r.size), r.policy.key(), outcome, done_,
             std::max(planned_, done_));
  std::fflush(out_);
}

void Progress::note(std::string_view line) {
  if (mode_ == Mode::Quiet) return;
  if (mode_ == Mode::Bar && bar_open_) {
    // Erase the bar, print the note where it was, and draw the bar below it.
    fmt::print(out_, "\r\033[K{}\n", line);
    draw();
    return;
  }
  fmt::print(out_, "{}\n", line);
  std::fflush(out_);
}

void Progress::end() {
  if (mode_ == Mode::Bar && bar_open_) {
    draw();
    std::fputc('\n', out_);
    std::fflush(out_);
  }
  bar_open_ = false;
}

std::string Progress::eta() const {
  return format_duration(
      seconds_left(seconds_between(problem_start_, Clock::now()), done_, planned_));
}

std::string Progress::run_eta() const {
  if (run_problems_ == 0) return "?";
  if (run_finished_planned_ > 0)
    return format_duration(run_seconds_left(run_finished_s_, run_finished_planned_,
                                            seconds_between(problem_start_, Clock::now()), planned_,
                                            run_planned_));
  return format_duration(
      seconds_left(seconds_between(run_start_, Clock::now()), run_done_, run_planned_));
}

void Progress::draw() {
  last_draw_ = Clock::now();
  // A planned run (--all) fills the bar with the whole run, its ETA first: the
  // tail of a line wider than the terminal is cut.
  const bool run = run_problems_ > 0;
  const std::size_t done = run ? run_done_ : done_;
  const std::size_t total = std::max(run ? run_planned_ : planned_, done);
  const double frac = total == 0 ? 0.0 : static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(frac * kBarWidth);
  std::string bar(kBarWidth, ' ');
  std::fill_n(bar.begin(), filled, '=');
  if (filled < kBarWidth && done > 0) bar[static_cast<std::size_t>(filled)] = '>';
  std::string line = fmt::format("[{}] {}/{}  ", bar, done, total);
  if (run)
    line += fmt::format("run ETA {}  problem {}/{} {}", run_eta(), run_problem_, run_problems_,
                        problem_of(label_));
  else
    line += problem_of(label_);
  auto size = size_of_label(label_);
  if (!size.empty()) line += fmt::format("  {}", size);
  if (!run) line += fmt::format("  ETA {}", eta());
  const std::size_t cols = terminal_columns(out_);
  if (line.size() >= cols) line.resize(cols - 1);
  fmt::print(out_, "\r{}\033[K", line);
  std::fflush(out_);
}

double seconds_left(double elapsed_s, std::size_t done, std::size_t planned) {
  if (done == 0) return std::numeric_limits<double>::infinity();
  // Past the plan, say 0 rather than a negative time.
  const double left = planned > done ? static_cast<double>(planned - done) : 0.0;
  return elapsed_s / static_cast<double>(done) * left;
}

double run_seconds_left(double finished_s, std::size_t finished_planned, double current_s,
                        std::size_t current_planned, std::size_t run_planned) {
  if (finished_planned == 0) return std::numeric_limits<double>::infinity();
  const double pace = finished_s / static_cast<double>(finished_planned);
  const std::size_t before = finished_planned + current_planned;
  const double later = run_planned > before ? static_cast<double>(run_planned - before) : 0.0;
  return pace * later + std::max(0.0, pace * static_cast<double>(current_planned) - current_s);
}

std::string format_duration(double seconds) {
  if (std::isnan(seconds) || seconds < 0) seconds = 0;
  if (std::isinf(seconds)) return "?";
  if (seconds < 59.95) return fmt::format("{:.1f} s", seconds);
  const auto total_s = static_cast<long long>(std::llround(seconds));
  if (total_s < 3600) return fmt::format("{} min {:02} s", total_s / 60, total_s % 60);
  const auto total_min = static_cast<long long>(std::llround(seconds / 60));
  return fmt::format("{} h {:02} min", total_min / 60, total_min % 60);
}

double parse_duration(std::string_view text) {
  auto bad = [&]() -> double {
    throw Error(
        fmt::format("invalid duration '{}' (expected e.g. 90, 90s, 10m, 1.5h or 1h30m)", text));
  };
  if (text.empty()) return bad();
  double total = 0;
  int last_unit = 4; // units must come in the order h, m, s, each at most once
  std::size_t i = 0;
  while (i < text.size()) {
    // <digits>[.<digits>], parsed by hand: no locale, no exponents, no signs.
    double value = 0;
    std::size_t digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits)
      value = value * 10 + (text[i] - '0');
    if (i < text.size() && text[i] == '.') {
      double scale = 0.1;
      for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits, scale /= 10)
        value += (text[i] - '0') * scale;
    }
    if (digits == 0) return bad();
    if (i == text.size()) {
      // A bare number means seconds, but only on its own ("1h30" is ambiguous).
      if (last_unit != 4) return bad();
      return value;
    }
    int unit = 0;
    double factor = 0;
    switch (text[i]) {
    case 'h':
      unit = 3, factor = 3600;
      break;
    case 'm':
      unit = 2, factor = 60;
      break;
    case 's':
      unit = 1, factor = 1;
      break;
    default:
      return bad();
    }
    if (unit >= last_unit) return bad();
    last_unit = unit;
    total += value * factor;
    ++i;
  }
  return total;
}

} // namespace scantune::tuner

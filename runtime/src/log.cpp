#include "log.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace scantune::detail {

LogLevel log_level() {
  static const LogLevel level = [] {
    const char* v = std::getenv("SCANTUNE_LOG");
    const std::string s = v ? v : "";
    if (s.empty() || s == "warn") return LogLevel::Warn;
    if (s == "off" || s == "0") return LogLevel::Off;
    if (s == "info" || s == "1") return LogLevel::Info;
    if (s == "debug") return LogLevel::Debug;
    std::fprintf(stderr,
                 "scantune: SCANTUNE_LOG='%s' is not off, warn, info or debug; using warn\n",
                 s.c_str());
    return LogLevel::Warn;
  }();
  return level;
}

void log_line(LogLevel level, const std::string& text) {
  static const char* tags[] = {"", "warning: ", "", "debug: "};
  // One fputs per line: lines from several threads do not interleave.
  std::fputs(fmt::format("scantune: {}{}\n", tags[static_cast<int>(level)], text).c_str(), stderr);
}

} // namespace scantune::detail

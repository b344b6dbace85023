// Diagnostics on stderr, filtered by $SCANTUNE_LOG: off, warn (the default),
// info (dispatch decisions: which DB was read, each fallback once) or debug.
#pragma once

#include <fmt/format.h>

namespace scantune::detail {

enum class LogLevel { Off, Warn, Info, Debug };

/// The level $SCANTUNE_LOG selects (read once; an unknown value warns and means warn).
LogLevel log_level();
void log_line(LogLevel level, const std::string& text);

template <class... Args>
void log(LogLevel level, fmt::format_string<Args...> f, Args&&... args) {
  if (level <= log_level()) log_line(level, fmt::format(f, std::forward<Args>(args)...));
}

} // namespace scantune::detail

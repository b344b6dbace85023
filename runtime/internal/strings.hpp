// String helpers the parsers of policy keys and of the CLI's lists share.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace scantune::detail {

/// `s` without leading and trailing spaces and tabs.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

/// The parts of `s` between the `sep`s, empty ones included (k separators give
/// k + 1 parts; "" gives one empty part), each trimmed when `trimmed`.
inline std::vector<std::string_view> split(std::string_view s, char sep, bool trimmed = false) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      const std::string_view part = s.substr(start, i - start);
      parts.push_back(trimmed ? trim(part) : part);
      start = i + 1;
    }
  return parts;
}

} // namespace scantune::detail

// Tables as the CLI prints them: markdown with aligned columns (readable in a
// terminal and pasteable into docs) or CSV. Used by show, compare, bench, devices.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace scantune::tuner {

struct TextTable {
  struct Column {
    std::string title;
    bool right = false; ///< right-aligned (numbers)
  };
  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows; ///< each as wide as `columns`

  /// Appends a row; throws std::invalid_argument when its width is wrong.
  void add(std::vector<std::string> row);
  /// "| a   |   b |\n|-----|----:|\n..." with every column padded to its widest cell.
  std::string markdown() const;
  /// RFC 4180: a header line, then one line per row, quoted where needed.
  std::string csv() const;
};

/// A CSV field, quoted when it holds a comma, quote or line break.
std::string csv_field(const std::string& s);
/// "{:.<digits>f}" of the value, or "-" when there is none.
std::string fixed_or_dash(const std::optional<double>& v, int digits);
/// A bandwidth: one decimal, three below 1 GB/s (the slow seed algorithms); "-"
/// when there is none.
std::string gbs_or_dash(const std::optional<double>& v);
/// The cell of an optional count: the number, or "-".
std::string count_or_dash(const std::optional<std::int64_t>& v);

} // namespace scantune::tuner

// Markdown and CSV tables (see text_table.hpp).
#include "tuner/report/text_table.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace scantune::tuner {
namespace {

/// Display width: UTF-8 continuation bytes take no column.
std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

} // namespace

void TextTable::add(std::vector<std::string> row) {
  if (row.size() != columns.size())
    throw std::invalid_argument(
        fmt::format("table row of {} cells for {} columns", row.size(), columns.size()));
  rows.push_back(std::move(row));
}

std::string TextTable::markdown() const {
  std::vector<std::size_t> w(columns.size(), 3);
  for (std::size_t c = 0; c < columns.size(); ++c) {
    w[c] = std::max(w[c], width(columns[c].title));
    for (const auto& r : rows)
      w[c] = std::max(w[c], width(r[c]));
  }
  const auto line = [&](const auto& cell) {
    std::string out = "|";
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string text = cell(c);
      const std::string pad(w[c] - width(text), ' ');
      out += " " + (columns[c].right ? pad + text : text + pad) + " |";
    }
    return out + "\n";
  };
  std::string out = line([&](std::size_t c) { return columns[c].title; });
  out += "|";
  for (std::size_t c = 0; c < columns.size(); ++c) // dashes under the padding too
    out += std::string(w[c] + 1, '-') + (columns[c].right ? ":|" : "-|");
  out += "\n";
  for (const auto& r : rows)
    out += line([&](std::size_t c) { return r[c]; });
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string TextTable::csv() const {
  const auto line = [](const auto& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c)
      out += (c ? "," : "") + csv_field(cells[c]);
    return out + "\n";
  };
  std::vector<std::string> header;
  for (const auto& c : columns)
    header.push_back(c.title);
  std::string out = line(header);
  for (const auto& r : rows)
    out += line(r);
  return out;
}

std::string fixed_or_dash(const std::optional<double>& v, int digits) {
  return v ? fmt::format("{:.{}f}", *v, digits) : "-";
}

std::string gbs_or_dash(const std::optional<double>& v) {
  return fixed_or_dash(v, v && *v < 1 ? 3 : 1);
}

std::string count_or_dash(const std::optional<std::int64_t>& v) {
  return v ? std::to_string(*v) : "-";
}

} // namespace scantune::tuner

#include "table_gen.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/size_bucket.hpp"
#include "errors.hpp"
#include "policy.hpp"
#include "scantune/scantune.hpp"

namespace scantune::builtin {
namespace {

std::string literal(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      out += fmt::format("\\{}", static_cast<char>(c));
    else if (c < 0x20 || c >= 0x7f)
      out += fmt::format("\\{:03o}", c); // octal: never swallows the next character
    else
      out += static_cast<char>(c);
  }
  return out + "\"";
}

std::string spelled(DataType t) {
  // Every type: compaction and sort rows store their element or key type.
  static const char* names[] = {"Int32", "UInt32", "Int64", "UInt64", "Float32", "Float64",
                                "Int8",  "UInt8",  "Int16", "UInt16", "Float16", "BFloat16"};
  static_assert(sizeof names / sizeof *names == static_cast<int>(DataType::BFloat16) + 1);
  return fmt::format("DataType::{}", names[static_cast<int>(t)]);
}
std::string spelled(Op o) {
  static const char* names[] = {"Sum", "Product", "Min", "Max", "BitAnd", "BitOr", "BitXor"};
  return fmt::format("Op::{}", names[static_cast<int>(o)]);
}
std::string spelled(ScanKind k) {
  return k == ScanKind::Inclusive ? "ScanKind::Inclusive" : "ScanKind::Exclusive";
}

struct Line {
  const Table* table;
  Row row;
};

} // namespace

std::string generate_table_source(const std::vector<Source>& sources) {
  std::vector<Table> tables;
  std::string names;
  for (const Source& s : sources) {
    tables.push_back(parse_table(s));
    names += fmt::format("{}{}", names.empty() ? "" : ", ", s.name);
  }
  std::vector<Line> lines;
  for (const Table& t : tables)
    for (const Row& r : t.rows)
      lines.push_back({&t, r});
  auto before = [](const Line& a, const Line& b) {
    if (a.table->arch != b.table->arch) return a.table->arch < b.table->arch;
    if (a.table->model != b.table->model) return a.table->model < b.table->model;
    return row_before(a.row, b.row);
  };
  std::sort(lines.begin(), lines.end(), before);
  for (std::size_t i = 1; i < lines.size(); ++i)
    if (!before(lines[i - 1], lines[i]))
      throw Error(fmt::format("two tables of {} hold {} bucket {}", lines[i].table->model,
                              row_label(lines[i].row),
                              db::bucket_label(db::size_bucket(lines[i].row.size))));
  std::string out =
      fmt::format("// Generated at build time by scantune_builtin_gen from {}. Do not edit:\n"
                  "// regenerate the tables with scantune_builtin_gen --table (docs/dispatch.md).\n"
                  "#include \"builtin_table.hpp\"\n\n"
                  "namespace scantune::detail {{\n",
                  names.empty() ? "nothing" : names);
  if (lines.empty()) {
    out += "const BuiltinTable& builtin_table() {\n"
           "  static const BuiltinTable table{nullptr, 0};\n"
           "  return table;\n}\n";
  } else {
    out += "namespace {\nconstexpr BuiltinEntry kEntries[] = {\n";
    for (const auto& [t, r] : lines)
      out += fmt::format("    {{{}, {}, {}, {}, {}, {}, {}ull, {}, {:.1f}, {}, {}ull}},\n", t->arch,
                         literal(t->model), spelled(r.type), spelled(r.op), spelled(r.kind),
                         literal(r.problem), r.size, literal(r.policy), r.ns,
                         literal(r.lower_policy), r.lower_upto);
    out += fmt::format("}};\n}} // namespace\n\n"
                       "const BuiltinTable& builtin_table() {{\n"
                       "  static const BuiltinTable table{{kEntries, {}}};\n"
                       "  return table;\n}}\n",
                       lines.size());
  }
  out += "\n} // namespace scantune::detail\n";
  return out;
}

} // namespace scantune::builtin

#include "table_gen.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "core/size_bucket.hpp"
#include "errors.hpp"
#include "scantune/scantune.hpp"

namespace scantune::builtin {
namespace {

using nlohmann::json;

struct Row {
  int arch;
  std::string model;
  DataType type;
  Op op;
  ScanKind kind;
  std::uint64_t size;
  std::string policy;
  double ns;
};

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
  static const char* names[] = {"Int32", "UInt32", "Int64", "UInt64", "Float32", "Float64"};
  return fmt::format("DataType::{}", names[static_cast<int>(t)]);
}
std::string spelled(Op o) {
  static const char* names[] = {"Sum", "Product", "Min", "Max", "BitAnd", "BitOr", "BitXor"};
  return fmt::format("Op::{}", names[static_cast<int>(o)]);
}
std::string spelled(ScanKind k) {
  return k == ScanKind::Inclusive ? "ScanKind::Inclusive" : "ScanKind::Exclusive";
}

std::vector<Row> rows_of(const Source& src) {
  const json& doc = src.doc;
  if (!doc.is_object() || !doc.contains("best") || !doc.contains("devices"))
    throw Error(fmt::format("{}: not a scantune export (no \"devices\" and \"best\")", src.name));
  std::map<std::int64_t, std::pair<int, std::string>> devices; // id -> (arch, model)
  for (const json& d : doc.at("devices"))
    devices[d.at("id").get<std::int64_t>()] = {d.at("cc_major").get<int>() * 10 +
                                                   d.at("cc_minor").get<int>(),
                                               d.at("model").get<std::string>()};
  std::vector<Row> rows;
  std::size_t i = 0;
  for (const json& e : doc.at("best")) {
    const std::string where = fmt::format("{}: best[{}]", src.name, i++);
    try {
      if (!e.at("op_hash").get<std::string>().empty()) continue; // custom operator
      auto dev = devices.find(e.at("device").get<std::int64_t>());
      if (dev == devices.end()) throw Error("refers to a device the document lacks");
      Row r;
      r.arch = dev->second.first;
      r.model = e.at("model").get<std::string>();
      r.type = parse_data_type(e.at("type").get<std::string>());
      r.op = parse_op(e.at("op").get<std::string>());
      r.kind = parse_scan_kind(e.at("kind").get<std::string>());
      r.size = e.at("size").get<std::uint64_t>();
      r.ns = e.at("ns").get<double>();
      r.policy = e.at("policy").get<std::string>();
      const Policy p = Policy::parse(r.policy);
      if (p.key() != r.policy)
        throw Error(
            fmt::format("policy '{}' is not canonical (its key is '{}')", r.policy, p.key()));
      if (auto why = p.invalid_reason(r.type))
        throw Error(
            fmt::format("policy {} cannot run on {}: {}", r.policy, to_string(r.type), *why));
      if (r.size == 0 || !(r.ns > 0)) throw Error("size and ns must be positive");
      rows.push_back(std::move(r));
    } catch (const json::exception& x) {
      throw Error(fmt::format("{}: {}", where, x.what()));
    } catch (const Error& x) {
      throw Error(fmt::format("{}: {}", where, x.what()));
    }
  }
  return rows;
}

} // namespace

std::string generate_table_source(const std::vector<Source>& sources) {
  std::vector<Row> rows;
  std::string names;
  for (const Source& s : sources) {
    auto more = rows_of(s);
    rows.insert(rows.end(), more.begin(), more.end());
    names += fmt::format("{}{}", names.empty() ? "" : ", ", s.name);
  }
  auto key = [](const Row& r) {
    return std::make_tuple(r.arch, r.model, r.type, r.op, r.kind, db::size_bucket(r.size));
  };
  std::sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) { return key(a) < key(b); });
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (key(rows[i - 1]) == key(rows[i]))
      throw Error(fmt::format("two entries for {} {} {} {} bucket {}", rows[i].model,
                              to_string(rows[i].type), to_string(rows[i].op),
                              to_string(rows[i].kind),
                              db::bucket_label(db::size_bucket(rows[i].size))));

  std::string out =
      fmt::format("// Generated at build time by scantune_builtin_gen from {}. Do not edit:\n"
                  "// re-export the tuning (scantune export --no-measurements) instead.\n"
                  "#include \"builtin_table.hpp\"\n\n"
                  "namespace scantune::detail {{\n",
                  names.empty() ? "nothing" : names);
  if (rows.empty()) {
    out += "const BuiltinTable& builtin_table() {\n"
           "  static const BuiltinTable table{nullptr, 0};\n"
           "  return table;\n}\n";
  } else {
    out += "namespace {\nconstexpr BuiltinEntry kEntries[] = {\n";
    for (const Row& r : rows)
      out += fmt::format("    {{{}, {}, {}, {}, {}, {}ull, {}, {:.1f}}},\n", r.arch,
                         literal(r.model), spelled(r.type), spelled(r.op), spelled(r.kind), r.size,
                         literal(r.policy), r.ns);
    out += fmt::format("}};\n}} // namespace\n\n"
                       "const BuiltinTable& builtin_table() {{\n"
                       "  static const BuiltinTable table{{kEntries, {}}};\n"
                       "  return table;\n}}\n",
                       rows.size());
  }
  out += "\n} // namespace scantune::detail\n";
  return out;
}

} // namespace scantune::builtin

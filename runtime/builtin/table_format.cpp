// The committed format of a built-in table (runtime/builtin/*.json): reading,
// writing and merging. One line per source, run and row keeps a re-tune's diff to
// the rows that changed.
#include <algorithm>
#include <map>
#include <tuple>
#include <type_traits>

#include <fmt/format.h>

#include "algorithms.hpp"
#include "base/size_bucket.hpp"
#include "errors.hpp"
#include "policy.hpp"
#include "sort_policy.hpp"
#include "table_gen.hpp"

namespace scantune::builtin {

Row row_named_by(const nlohmann::json& e) {
  Row r{};
  r.type = parse_data_type(e.at("type").get<std::string>());
  r.op = parse_op(e.at("op").get<std::string>());
  r.kind = parse_scan_kind(e.at("kind").get<std::string>());
  r.problem = e.value("problem", "");
  r.size = e.at("size").get<std::uint64_t>();
  r.policy = e.at("policy").get<std::string>();
  r.lower_policy = e.value("lower_policy", "");
  r.lower_upto = e.value("lower_upto", std::uint64_t{0});
  return r;
}

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr const char* kFormat = "scantune-builtin-table";
constexpr int kVersion = 1;

auto bucket_key(const Row& r) {
  return std::make_tuple(r.type, r.op, r.kind, r.problem, db::size_bucket(r.size));
}

template <class T>
std::optional<T> get_opt(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

// `o` with `keys` first, in that order: a parsed document has lost the order of its
// keys, and the written one keeps the order table_export.cpp gives them.
ordered_json in_order(const json& o, std::initializer_list<const char*> keys) {
  ordered_json out;
  for (const char* k : keys)
    if (o.contains(k)) out[k] = o.at(k);
  for (const auto& [k, v] : o.items())
    if (!out.contains(k)) out[k] = v;
  return out;
}

Row row_of(const json& e) {
  Row r = row_named_by(e);
  r.ns = e.at("ns").get<double>();
  r.gbs = get_opt<double>(e, "gbs");
  r.x_cub = get_opt<double>(e, "x_cub");
  r.of_memcpy = get_opt<double>(e, "of_memcpy");
  r.measured_at = e.value("measured_at", "");
  r.run = e.value("run", "");
  check_row(r);
  // The label is there for readers; one that disagrees with the size was edited by hand.
  const std::string label = e.at("bucket").get<std::string>();
  if (label != db::bucket_label(db::size_bucket(r.size)))
    throw Error(fmt::format("bucket {} does not hold size {}", label, r.size));
  return r;
}

ordered_json line_of(const Row& r) {
  ordered_json o = {
      {"type", to_string(r.type)}, {"op", to_string(r.op)}, {"kind", to_string(r.kind)}};
  if (!r.problem.empty()) o["problem"] = r.problem;
  o.update(ordered_json{{"bucket", db::bucket_label(db::size_bucket(r.size))},
                        {"size", r.size},
                        {"policy", r.policy}});
  if (!r.lower_policy.empty())
    o.update(ordered_json{{"lower_policy", r.lower_policy}, {"lower_upto", r.lower_upto}});
  o["ns"] = r.ns;
  if (r.gbs) o["gbs"] = *r.gbs;
  if (r.x_cub) o["x_cub"] = *r.x_cub;
  if (r.of_memcpy) o["of_memcpy"] = *r.of_memcpy;
  if (!r.measured_at.empty()) o["measured_at"] = r.measured_at;
  if (!r.run.empty()) o["run"] = r.run;
  return o;
}

void list(std::string& out, const char* key, const std::vector<ordered_json>& lines, bool last) {
  out += fmt::format("  \"{}\": [", key);
  for (std::size_t i = 0; i < lines.size(); ++i)
    out += fmt::format("{}\n    {}", i ? "," : "", lines[i].dump());
  out += fmt::format("{}]{}\n", lines.empty() ? "" : "\n  ", last ? "" : ",");
}

// The runs the rows name, oldest first.
std::vector<ordered_json> runs_of_rows(const Table& t) {
  std::vector<ordered_json> runs;
  for (const ordered_json& run : t.runs) {
    const std::string uid = run.value("uid", "");
    const bool used = std::any_of(t.rows.begin(), t.rows.end(), [&](const Row& r) {
      return !r.run.empty() && uid.compare(0, r.run.size(), r.run) == 0;
    });
    if (used) runs.push_back(run);
  }
  std::stable_sort(runs.begin(), runs.end(), [](const ordered_json& a, const ordered_json& b) {
    return a.value("started_at", "") < b.value("started_at", "");
  });
  return runs;
}

// The table's rows in order; two rows of one bucket are an error.
std::vector<Row> sorted_rows(const Table& t) {
  std::vector<Row> rows = t.rows;
  std::sort(rows.begin(), rows.end(), row_before);
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (bucket_key(rows[i - 1]) == bucket_key(rows[i]))
      throw Error(fmt::format("two entries for {} bucket {}", row_label(rows[i]),
                              db::bucket_label(db::size_bucket(rows[i].size))));
  return rows;
}

} // namespace

namespace {

// The canonical key of `key` and why it cannot run `r`: a sort's policy for a sort row,
// else a scan's (the problem's checks are the ones dispatch runs on DB winners).
template <class P>
std::pair<std::string, std::optional<std::string>>
checked(const Row& r, std::optional<std::size_t> sorts, const std::string& policy) {
  const P p = P::parse(policy);
  if constexpr (std::is_same_v<P, detail::SortPolicy>)
    return {p.key(), p.invalid_reason(size_of(r.type), *sorts)};
  else
    return {p.key(), detail::stored_problem_invalid_reason(p, r.type, r.problem)};
}

} // namespace

void check_row(const Row& r) {
  const auto sorts = detail::parse_sort_problem(r.problem);
  const auto check = [&](const std::string& policy) {
    const auto [key, why] =
        sorts ? checked<detail::SortPolicy>(r, sorts, policy) : checked<Policy>(r, sorts, policy);
    if (key != policy)
      throw Error(fmt::format("policy '{}' is not canonical (its key is '{}')", policy, key));
    if (why) throw Error(fmt::format("policy {} cannot run {}: {}", policy, row_label(r), *why));
  };
  check(r.policy);
  if (r.size == 0 || !(r.ns > 0)) throw Error("size and ns must be positive");
  if (r.lower_policy.empty() && r.lower_upto == 0) return;
  if (sorts || r.lower_policy.empty() || r.lower_upto == 0 || r.lower_upto >= r.size ||
      db::size_bucket(r.lower_upto) != db::size_bucket(r.size))
    throw Error(fmt::format("{}: a lower winner needs a scan's policy and sizes of the bucket "
                            "below {} (lower_policy '{}', lower_upto {})",
                            row_label(r), r.size, r.lower_policy, r.lower_upto));
  check(r.lower_policy);
}

std::string row_label(const Row& r) {
  const std::string flat =
      fmt::format("{} {} {}", to_string(r.type), to_string(r.op), to_string(r.kind));
  return r.problem.empty() ? flat : fmt::format("{} {}", flat, r.problem);
}

bool row_before(const Row& a, const Row& b) {
  return bucket_key(a) < bucket_key(b);
}

Table parse_table(const Source& src) {
  const json& doc = src.doc;
  if (!doc.is_object() || doc.value("format", "") != kFormat)
    throw Error(
        fmt::format("{}: not a built-in table (\"format\" is not \"{}\")", src.name, kFormat));
  if (doc.value("version", 0) != kVersion)
    throw Error(fmt::format("{}: unsupported version (this build reads {})", src.name, kVersion));
  Table t;
  std::string where = src.name;
  try {
    const json& gpu = doc.at("gpu");
    t.model = gpu.at("model").get<std::string>();
    t.name = gpu.value("name", "");
    t.arch = gpu.at("arch").get<int>();
    t.sm_count = gpu.value("sm_count", 0);
    for (const json& s : doc.value("sources", json::array()))
      t.sources.push_back(in_order(s, {"file", "format", "schema_version", "runs", "best"}));
    for (const json& r : doc.value("runs", json::array()))
      t.runs.push_back(in_order(r, {"uid", "started_at", "driver_version", "runtime_version",
                                    "nvrtc_version", "library_version", "command_line"}));
    for (const json& e : doc.at("entries")) {
      where = fmt::format("{}: entries[{}]", src.name, t.rows.size());
      t.rows.push_back(row_of(e));
    }
    where = src.name;
    return merge({t}); // sorts, and rejects two rows of one bucket
  } catch (const std::exception& x) {
    throw Error(fmt::format("{}: {}", where, x.what()));
  }
}

Table read_input(const Source& src) {
  if (src.doc.is_object() && src.doc.value("format", "") == kFormat) return parse_table(src);
  return table_of_export(src);
}

Table merge(const std::vector<Table>& tables) {
  Table out;
  std::map<std::string, ordered_json> runs; // by uid
  for (const Table& t : tables) {
    if (!out.model.empty() && (t.model != out.model || t.arch != out.arch))
      throw Error(fmt::format("cannot merge tables of {} and {}: one GPU model per table",
                              out.model, t.model));
    std::vector<Row> rows = sorted_rows(t);
    // A later table's row replaces the earlier one of its bucket (searched among the
    // later table's own rows only: those appended here are unsorted).
    const auto own = static_cast<std::ptrdiff_t>(rows.size());
    for (const Row& r : out.rows)
      if (!std::binary_search(rows.begin(), rows.begin() + own, r, row_before)) rows.push_back(r);
    std::sort(rows.begin(), rows.end(), row_before);
    out.rows = std::move(rows);
    out.model = t.model;
    out.arch = t.arch;
    if (!t.name.empty()) out.name = t.name;
    if (t.sm_count) out.sm_count = t.sm_count;
    for (const ordered_json& s : t.sources) // an export merged in again is listed once
      if (std::find(out.sources.begin(), out.sources.end(), s) == out.sources.end())
        out.sources.push_back(s);
    for (const ordered_json& r : t.runs)
      runs[r.value("uid", "")] = r;
  }
  for (auto& [uid, run] : runs)
    out.runs.push_back(run);
  return out;
}

std::string table_json(const Table& t, const std::string& command) {
  std::string from, to;
  for (const Row& r : t.rows) {
    if (r.measured_at.empty()) continue;
    if (from.empty() || r.measured_at < from) from = r.measured_at;
    to = std::max(to, r.measured_at);
  }
  const ordered_json gpu = {
      {"model", t.model}, {"name", t.name}, {"arch", t.arch}, {"sm_count", t.sm_count}};
  std::string out =
      fmt::format("{{\n  \"format\": \"{}\",\n  \"version\": {},\n", kFormat, kVersion);
  out += fmt::format("  \"generated_by\": {},\n", json(command).dump());
  out += fmt::format("  \"gpu\": {},\n", gpu.dump());
  out += fmt::format("  \"measured\": {},\n", ordered_json{{"from", from}, {"to", to}}.dump());
  list(out, "sources", t.sources, false);
  list(out, "runs", runs_of_rows(t), false);
  std::vector<ordered_json> rows;
  for (const Row& r : t.rows)
    rows.push_back(line_of(r));
  list(out, "entries", rows, true);
  return out + "}\n";
}

} // namespace scantune::builtin

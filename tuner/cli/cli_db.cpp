// `scantune show | compare`: print and compare the tuning database's winners
// (docs/cli.md).
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "tuner/cli/cli.hpp"
#include "tuner/cli/cli_shared.hpp"
#include "tuner/report/db_report.hpp"
#include "tuner/report/duel_report.hpp"
#include "tuner/report/text_table.hpp"

namespace scantune::cli {
namespace {

using tuner::TextTable;

std::optional<double> rounded(const std::optional<double>& v, int digits) {
  if (!v) return std::nullopt;
  const double scale = std::pow(10.0, digits);
  return std::round(*v * scale) / scale;
}

nlohmann::json json_or_null(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

// ---- show

struct ShowOptions {
  std::string db;
  tuner::ReportFilter filter;
  bool json = false, csv = false, duels = false;
};

// A bucket with two winners names the lower one and the sizes it serves.
std::string policy_cell(const db::BestEntry& b) {
  if (b.lower_policy.empty()) return b.policy;
  return fmt::format("{} (n <= {}: {})", b.policy, b.lower_upto, b.lower_policy);
}

std::vector<std::string> show_cells(const tuner::WinnerRow& w) {
  return {db::bucket_label(w.best.size_bucket),
          policy_cell(w.best),
          fmt::format("{:.1f}", w.best.gbs),
          tuner::fixed_or_dash(w.x_memcpy(), 2),
          tuner::fixed_or_dash(w.x_cub(), 2),
          tuner::count_or_dash(w.samples),
          w.best.updated_at};
}

const std::vector<TextTable::Column> kShowColumns = {
    {"size", false}, {"policy", false}, {"GB/s", true},  {"x memcpy", true},
    {"x CUB", true}, {"samples", true}, {"tuned", false}};

/// One markdown table per device model and problem (rows carry `best`), in order.
template <class Row, class Cells>
std::string grouped_tables(const std::vector<Row>& rows,
                           const std::vector<TextTable::Column>& columns, Cells cells) {
  std::string out;
  std::string group;
  TextTable table;
  const auto flush = [&] {
    if (!group.empty())
      out += fmt::format("{}## {}\n\n{}", out.empty() ? "" : "\n", group, table.markdown());
  };
  for (const Row& r : rows) {
    const std::string g = fmt::format("{}: {}", r.best.model, tuner::problem_label(r.best));
    if (g != group) {
      flush();
      group = g;
      table = TextTable{columns, {}};
    }
    table.add(cells(r));
  }
  flush();
  return out;
}

std::string show_text(const std::vector<tuner::WinnerRow>& rows) {
  return grouped_tables(rows, kShowColumns, show_cells);
}

/// CSV: the JSON fields, numbers in full, empty cells where JSON has null.
std::string show_csv(const std::vector<tuner::WinnerRow>& rows) {
  TextTable t;
  for (const char* c :
       {"device", "type", "op", "op_hash", "kind", "bucket", "size", "policy", "ns", "gbs",
        "x_memcpy", "x_cub", "samples", "updated_at", "lower_policy", "lower_upto"})
    t.columns.push_back({c, false});
  const auto opt = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.3f}", *v) : std::string();
  };
  for (const tuner::WinnerRow& w : rows) {
    const db::BestEntry& b = w.best;
    t.add({b.model, b.type, b.op, b.op_hash, b.kind, db::bucket_label(b.size_bucket),
           std::to_string(b.size), b.policy, fmt::format("{}", b.ns), fmt::format("{:.1f}", b.gbs),
           opt(w.x_memcpy()), opt(w.x_cub()), w.samples ? std::to_string(*w.samples) : "",
           b.updated_at, b.lower_policy, b.lower_upto ? std::to_string(b.lower_upto) : ""});
  }
  return t.csv();
}

nlohmann::json show_json(const std::vector<tuner::WinnerRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const tuner::WinnerRow& w : rows)
    out.push_back(
        {{"device", w.best.model},
         {"type", w.best.type},
         {"op", w.best.op},
         {"op_hash", w.best.op_hash},
         {"kind", w.best.kind},
         {"bucket", db::bucket_label(w.best.size_bucket)},
         {"size", w.best.size},
         {"policy", w.best.policy},
         {"ns", w.best.ns},
         {"gbs", w.best.gbs},
         {"x_memcpy", json_or_null(rounded(w.x_memcpy(), 3))},
         {"x_cub", json_or_null(rounded(w.x_cub(), 3))},
         {"samples", w.samples ? nlohmann::json(*w.samples) : nlohmann::json()},
         {"updated_at", w.best.updated_at},
         {"lower_policy",
          w.best.lower_policy.empty() ? nlohmann::json() : nlohmann::json(w.best.lower_policy)},
         {"lower_upto", w.best.lower_upto ? nlohmann::json(w.best.lower_upto) : nlohmann::json()}});
  return out;
}

/// Nothing matched: an empty database is fine (exit 0), a filter that matches
/// nothing says what there is (exit 1).
void report_empty(std::string_view command, const db::TuningDb& db, const tuner::ReportFilter& f) {
  const std::vector<std::string> models = tuner::tuned_models(db);
  if (models.empty()) {
    fmt::print("no tuned entries in {}\n", db.path().string());
    return;
  }
  std::string list;
  for (const std::string& m : models)
    list += (list.empty() ? "" : "; ") + m;
  fail(kExitFailure, command,
       fmt::format("no tuned entries match --device '{}' --type '{}' --op '{}' --kind '{}' "
                   "(device models: {})",
                   f.device, f.type, f.op, f.kind, list));
}

// ---- show --duels

const std::vector<TextTable::Column> kDuelColumns = {
    {"size", false},      {"duel sizes", false}, {"duelists", true},    {"winner", true},
    {"one winner", true}, {"two winners", true}, {"split after", false}};

std::vector<std::string> duel_cells(const tuner::DuelBucket& b) {
  std::string sizes;
  for (std::uint64_t n : b.sizes)
    sizes += (sizes.empty() ? "" : ", ") + db::size_label(n);
  return {db::bucket_label(b.best.size_bucket), sizes,
          std::to_string(b.duelists),           tuner::fixed_or_dash(b.winner, 3),
          fmt::format("{:.3f}", b.one),         fmt::format("{:.3f}", b.two),
          db::size_label(b.split_after)};
}

/// The tables, then how many buckets one winner cannot serve within 3% (and 2%) of
/// the fastest duelist at every duel size, how many two winners could not, and how the
/// stored winners (split or not) do.
std::string duels_text(const std::vector<tuner::DuelBucket>& buckets) {
  std::string out = grouped_tables(buckets, kDuelColumns, duel_cells);
  int over3 = 0, over2 = 0, two_over3 = 0, split = 0, stored_over3 = 0;
  const tuner::DuelBucket* worst = &buckets.front();
  double worst_two = 1;
  for (const tuner::DuelBucket& b : buckets) {
    over3 += b.one > 1.03;
    over2 += b.one > 1.02;
    two_over3 += b.two > 1.03;
    split += !b.best.lower_policy.empty();
    stored_over3 += b.winner && *b.winner > 1.03;
    if (b.one > worst->one) worst = &b;
    worst_two = std::max(worst_two, b.two);
  }
  out += fmt::format(
      "\n{} duelled bucket(s). One winner a bucket: {} above 3% of the fastest "
      "duelist at some duel size, {} above 2% (worst {:.3f}, {} at {}). Two "
      "winners a bucket: {} above 3% (worst {:.3f}). Stored: {} split, {} above 3%\n",
      buckets.size(), over3, over2, worst->one, tuner::problem_label(worst->best),
      db::bucket_label(worst->best.size_bucket), two_over3, worst_two, split, stored_over3);
  return out;
}

void run_show(const ShowOptions& o) {
  check_filter("show", o.filter);
  const db::TuningDb db = open_for_reading("show", o.db);
  if (o.duels) {
    const std::vector<tuner::DuelBucket> buckets = tuner::duel_buckets(db, o.filter);
    if (buckets.empty())
      fmt::print("no duelled buckets (measurements at two or more sizes of a bucket) in {}\n",
                 db.path().string());
    else
      fmt::print("{}", duels_text(buckets));
    return;
  }
  const std::vector<tuner::WinnerRow> rows = tuner::winner_rows(db, o.filter);
  if (o.json)
    fmt::print("{}\n", show_json(rows).dump(2));
  else if (rows.empty())
    report_empty("show", db, o.filter);
  else
    fmt::print("{}", o.csv ? show_csv(rows) : show_text(rows));
}

// ---- compare

struct CompareOptions {
  std::vector<std::string> dbs, devices;
  std::string db;
  tuner::ReportFilter filter;
};

struct Side {
  std::string path, model;
  std::vector<db::BestEntry> entries;
};

Side load_side(const std::string& path, const std::string& device,
               const tuner::ReportFilter& filter) {
  const db::TuningDb db = open_for_reading("compare", path);
  const std::vector<std::string> all = tuner::tuned_models(db);
  const std::vector<std::string> models = tuner::match_models(all, device);
  std::string list;
  for (const std::string& m : all)
    list += (list.empty() ? "" : "; ") + m;
  if (models.empty())
    fail(kExitFailure, "compare",
         fmt::format("{}: no tuned device model matches '{}' (models: {})", db.path().string(),
                     device, list.empty() ? "none" : list));
  if (models.size() > 1)
    fail(kExitUsage, "compare",
         fmt::format("{}: {} device models match '{}' ({}); choose one with --device",
                     db.path().string(), models.size(), device, list));
  tuner::ReportFilter f = filter;
  f.device = models.front();
  return Side{db.path().string(), models.front(), tuner::best_entries(db, f)};
}

void run_compare(const CompareOptions& o) {
  check_filter("compare", o.filter);
  if (o.devices.size() > 2) fail(kExitUsage, "compare", "--device given more than twice");
  std::vector<std::string> paths = o.dbs;
  if (!o.db.empty()) paths.insert(paths.begin(), o.db);
  if (paths.size() == 1 && o.devices.size() == 2) paths.push_back(paths.front());
  if (paths.size() != 2)
    fail(kExitUsage, "compare",
         "give two databases (compare A.db B.db) or one database and two devices "
         "(compare --db X.db --device A --device B)");
  const auto device = [&](std::size_t i) {
    return i < o.devices.size() ? o.devices[i] : o.devices.empty() ? "" : o.devices.front();
  };
  const Side a = load_side(paths[0], device(0), o.filter);
  const Side b = load_side(paths[1], device(1), o.filter);

  fmt::print("A: {}: {}\nB: {}: {}\n", a.path, a.model, b.path, b.model);
  const std::vector<tuner::CompareRow> rows = tuner::compare_rows(a.entries, b.entries);
  std::string group;
  TextTable table;
  int differ = 0, both = 0;
  double log_sum = 0;
  const auto flush = [&] {
    if (!group.empty()) fmt::print("\n## {}\n\n{}", group, table.markdown());
  };
  for (const tuner::CompareRow& r : rows) {
    const db::BestEntry& e = r.any();
    const std::string g = tuner::problem_label(e);
    if (g != group) {
      flush();
      group = g;
      table = TextTable{{{"size", false},
                         {"policy A", false},
                         {"GB/s A", true},
                         {"policy B", false},
                         {"GB/s B", true},
                         {"A/B", true},
                         {"differ", false}},
                        {}};
    }
    const auto policy = [](const std::optional<db::BestEntry>& s) {
      return s ? policy_cell(*s) : std::string("-");
    };
    const auto gbs = [](const std::optional<db::BestEntry>& s) {
      return s ? fmt::format("{:.1f}", s->gbs) : std::string("-");
    };
    table.add({db::bucket_label(e.size_bucket), policy(r.a), gbs(r.a), policy(r.b), gbs(r.b),
               tuner::fixed_or_dash(r.ratio(), 2), r.differs() ? "*" : ""});
    if (r.a && r.b) {
      ++both;
      differ += r.differs() ? 1 : 0;
      if (r.ratio()) log_sum += std::log(*r.ratio());
    }
  }
  flush();
  if (rows.empty()) {
    fmt::print("\nno tuned entries to compare\n");
    return;
  }
  fmt::print("\n{} bucket(s) tuned on both sides, {} with different winners", both, differ);
  if (both > 0) fmt::print("; geometric mean A/B {:.3f}", std::exp(log_sum / both));
  fmt::print("\n");
}

} // namespace

void register_db_commands(CLI::App& app) {
  auto so = std::make_shared<ShowOptions>();
  CLI::App* show = app.add_subcommand("show", "Print the tuned winners of the tuning database");
  add_db_option(show, so->db);
  add_filter_options(show, so->filter);
  auto* json = show->add_flag("--json", so->json, "Print JSON (one object per winner)");
  auto* csv = show->add_flag("--csv", so->csv, "Print CSV (one line per winner)")->excludes(json);
  show->add_flag("--duels", so->duels,
                 "How well one winner serves each bucket, from the duels the tune stored")
      ->excludes(json)
      ->excludes(csv);
  show->footer("One table per device model, type, operator and kind: each size bucket's\n"
               "winning policy, its GB/s, its speed relative to device memcpy and to CUB\n"
               "(same device and size; '-' without a baseline), the samples of the\n"
               "winning measurement and when it was tuned.\n\n"
               "--duels: per bucket duelled at several sizes, the stored winner's worst\n"
               "time over the fastest duelist's at the same size, the best worst case\n"
               "one duelist reaches, and two winners' (split after a duel size).\n\n"
               "Example:\n  scantune show --device H100 --type int32 --op sum");
  show->callback([so] { run_show(*so); });

  auto co = std::make_shared<CompareOptions>();
  CLI::App* compare =
      app.add_subcommand("compare", "Compare the winners of two databases or two devices");
  compare->add_option("databases", co->dbs, "Two tuning databases, A and B")
      ->type_name("A.db B.db")
      ->expected(0, 2);
  compare->add_option("--db", co->db, "One database holding both devices")->type_name("PATH");
  compare
      ->add_option("--device", co->devices,
                   "Device model text (case-insensitive substring); twice for two\n"
                   "devices of one database, once for both databases")
      ->type_name("MODEL");
  add_filter_options(compare, co->filter, false);
  compare->footer("Examples:\n  scantune compare h100.db a100.db\n"
                  "  scantune compare --db all.db --device H100 --device A100\n\n"
                  "A/B is GB/s of A over GB/s of B; '*' marks buckets whose winners differ.");
  compare->callback([co] { run_compare(*co); });
}

} // namespace scantune::cli

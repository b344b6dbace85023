// The dispatcher's read of the tuning database (once per Scanner or reload).
#include <map>

#include "cache/tuning_db.hpp"
#include "dispatch.hpp"
#include "log.hpp"

namespace scantune::detail {

std::optional<std::vector<TunedEntry>> read_tuned_entries(const std::filesystem::path& path) {
  db::OpenOptions options;
  options.mode = db::OpenMode::ReadOnly;
  options.check = db::IntegrityCheck::None; // the read below fails on a damaged page anyway
  auto tdb = db::TuningDb::open_existing_read_only(path, options);
  if (!tdb) return std::nullopt;
  std::map<std::int64_t, int> arch; // device id -> compute capability
  for (const auto& d : tdb->list_devices())
    arch[d.id] = d.cc_major * 10 + d.cc_minor;
  std::vector<TunedEntry> out;
  for (const db::BestEntry& b : tdb->list_best()) {
    TunedEntry e;
    try {
      e.problem.type = parse_data_type(b.type);
      if (!e.problem.set_problem_text(b.problem)) { // a problem kind of a newer library
        log(LogLevel::Warn, "tuning DB {}: ignoring a winner of the unknown problem '{}'",
            path.string(), b.problem);
        continue;
      }
      e.problem.kind = parse_scan_kind(b.kind);
      if (e.problem.sorts)
        e.sort_policy = SortPolicy::parse(b.policy);
      else
        e.policy = Policy::parse(b.policy);
      if (!b.lower_policy.empty() && !e.problem.sorts) {
        e.lower = Policy::parse(b.lower_policy);
        e.lower_upto = b.lower_upto;
      }
    } catch (const Error& x) {
      log(LogLevel::Warn, "tuning DB {}: ignoring the winner of {} {} {} at n = {}: {}",
          path.string(), b.type, b.op, b.kind, b.size, x.what());
      continue;
    }
    e.arch = arch.count(b.device_id) ? arch[b.device_id] : 0;
    e.model = b.model;
    e.problem.op = b.op;
    e.problem.op_hash = b.op_hash;
    e.problem.custom = !b.op_hash.empty();
    e.size = b.size;
    e.bucket = b.size_bucket;
    out.push_back(std::move(e));
  }
  return out;
}

} // namespace scantune::detail

// Reading a bucket's duels back from the measurements a tune stored.
#include "tuner/report/duel_report.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "tuner/gpu/timing.hpp"

namespace scantune::tuner {
namespace {

using Key = std::tuple<std::string, std::string, std::string, std::string>; // model, type, op, kind

/// model_measurements, read once per (model, type, op, kind).
class MeasurementsByModel {
public:
  explicit MeasurementsByModel(const db::TuningDb& db) : db_(db) {}
  const std::vector<db::Measurement>& of(const db::BestEntry& e) {
    const Key key{e.model, e.type, e.op, e.kind};
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(key, model_measurements(db_, e)).first;
    return it->second;
  }

private:
  const db::TuningDb& db_;
  std::map<Key, std::vector<db::Measurement>> cache_;
};

/// One duel: its sizes (each timed for two or more policies) and the policies timed
/// at all of them, with the median of each one's times there.
struct Duel {
  std::vector<std::uint64_t> sizes;
  std::vector<std::string> policies;
  std::vector<std::vector<double>> times; // [policy][size]
};

/// The duel among `round`'s measurements (one bucket's, back to back).
Duel duel_in(const std::vector<const db::Measurement*>& round) {
  std::map<std::uint64_t, std::map<std::string, std::vector<double>>> at; // size, policy
  for (const db::Measurement* m : round)
    at[m->size][m->policy].push_back(*m->median_ns);
  Duel d;
  std::set<std::string> common;
  for (const auto& [size, policies] : at) {
    if (policies.size() < 2) continue;
    std::set<std::string> here;
    for (const auto& kv : policies)
      here.insert(kv.first);
    if (!d.sizes.empty()) {
      std::set<std::string> kept;
      std::set_intersection(common.begin(), common.end(), here.begin(), here.end(),
                            std::inserter(kept, kept.begin()));
      here = std::move(kept);
    }
    common = std::move(here);
    d.sizes.push_back(size);
  }
  d.policies.assign(common.begin(), common.end());
  for (const std::string& p : d.policies) {
    std::vector<double>& row = d.times.emplace_back();
    for (std::uint64_t size : d.sizes)
      row.push_back(summarize(at.at(size).at(p)).median_ns);
  }
  return d;
}

/// The main duel of `e`'s bucket: of the rounds a tune timed the bucket in (its
/// measurements back to back, in one run), the one with the most duelists, the later
/// on a tie. Times compare within a round only: rounds minutes apart differ by more
/// than the duel's margins (H100, int32 min exclusive at 3407872: one shape read
/// 13.4 us in one round and 14.0 us in the next).
Duel duel_of(const std::vector<db::Measurement>& all, const db::BestEntry& e) {
  std::vector<const db::Measurement*> ms;
  for (const db::Measurement& m : all)
    if (m.op_hash == e.op_hash && m.problem == e.problem) ms.push_back(&m);
  std::sort(ms.begin(), ms.end(),
            [](const db::Measurement* x, const db::Measurement* y) { return x->id < y->id; });
  Duel best;
  std::vector<const db::Measurement*> round;
  const auto close = [&] {
    if (round.empty()) return;
    Duel d = duel_in(round);
    if (d.sizes.size() >= 2 && d.policies.size() >= 2 && d.policies.size() >= best.policies.size())
      best = std::move(d);
    round.clear();
  };
  for (const db::Measurement* m : ms) {
    const bool in = db::size_bucket(m->size) == e.size_bucket;
    if (!round.empty() && (!in || m->run_id != round.back()->run_id)) close();
    if (in) round.push_back(m);
  }
  close();
  return best;
}

// The stored winner's worst ratio: its policy at every duel size, or a split's lower
// policy up to lower_upto; nothing when a policy it runs did not duel.
std::optional<double> stored_worst(const Duel& d, const db::BestEntry& e) {
  const auto index = [&](const std::string& key) -> std::optional<std::size_t> {
    const auto it = std::find(d.policies.begin(), d.policies.end(), key);
    if (it == d.policies.end()) return std::nullopt;
    return static_cast<std::size_t>(it - d.policies.begin());
  };
  const std::optional<std::size_t> upper = index(e.policy);
  const std::optional<std::size_t> lower = e.lower_policy.empty() ? upper : index(e.lower_policy);
  if (!upper || !lower) return std::nullopt;
  double worst = 0;
  for (std::size_t i = 0; i < d.sizes.size(); ++i) {
    const std::size_t p = d.sizes[i] <= e.lower_upto ? *lower : *upper;
    worst = std::max(worst, worst_ratio(d.times, p, i, i + 1));
  }
  return worst;
}

} // namespace

std::vector<DuelBucket> duel_buckets(const db::TuningDb& db, const ReportFilter& f) {
  MeasurementsByModel measured(db);
  std::vector<DuelBucket> out;
  for (const db::BestEntry& e : best_entries(db, f)) {
    const Duel d = duel_of(measured.of(e), e);
    if (d.sizes.size() < 2 || d.policies.size() < 2) continue;
    DuelBucket b;
    b.best = e;
    b.sizes = d.sizes;
    b.duelists = static_cast<int>(d.policies.size());
    const std::size_t n = d.sizes.size();
    b.winner = stored_worst(d, e);
    b.one = best_worst(d.times, 0, n).worst;
    if (const std::optional<TwoWinners> two = best_two(d.times)) {
      b.two = two->worst;
      b.split_after = d.sizes[two->after - 1];
    }
    out.push_back(std::move(b));
  }
  return out;
}

} // namespace scantune::tuner

// The successive-halving strategy (the default): screen a core of the space at a
// few representative sizes, keep the best third round after round, refine the
// survivors through their grid neighbours, then confirm each region's top
// candidates at every size.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "policy_fields.hpp"
#include "tuner/search/strategy.hpp"

namespace scantune::tuner {
namespace {

constexpr std::size_t kTop = 8;             // K: survivors of screening, finalists per region
constexpr std::size_t kTopOutOfTime = 2;    // K once the time budget is spent
constexpr std::size_t kFromAdjacent = 2;    // finalists borrowed from each adjacent region
constexpr std::size_t kRepresentatives = 7; // one per ~3 octaves over 2^10..2^30
constexpr int kRefinePasses = 2;            // a second pass follows a neighbour that took the lead
// Bytes read and written per call above which a representative is screened at a
// smaller size: from 2^25 up the H100's and the H200's winners are the same few
// lookback_bulk tiles, while screening 64-bit scans at 2^30 took a third of their
// problem's time (docs/tuner.md). Finalists are still confirmed at every size.
constexpr std::uint64_t kScreenMaxBytes = std::uint64_t{4} << 30;

double log_size(std::uint64_t n) {
  return std::log2(static_cast<double>(n));
}

// Up to kRepresentatives sizes spread evenly on a log scale, always the smallest and largest.
std::vector<std::uint64_t> representatives(const std::vector<std::uint64_t>& sizes) {
  if (sizes.size() <= kRepresentatives) return sizes;
  const double lo = log_size(sizes.front()), hi = log_size(sizes.back());
  std::vector<std::uint64_t> reps;
  for (std::size_t i = 0; i < kRepresentatives; ++i) {
    const double target = lo + (hi - lo) * static_cast<double>(i) / (kRepresentatives - 1);
    const std::uint64_t nearest =
        *std::min_element(sizes.begin(), sizes.end(), [&](std::uint64_t a, std::uint64_t b) {
          return std::abs(log_size(a) - target) < std::abs(log_size(b) - target);
        });
    if (std::find(reps.begin(), reps.end(), nearest) == reps.end()) reps.push_back(nearest);
  }
  return reps;
}

// The index of the representative nearest to `size` in log distance.
std::size_t region_of(std::uint64_t size, const std::vector<std::uint64_t>& reps) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < reps.size(); ++i)
    if (std::abs(log_size(size) - log_size(reps[i])) <
        std::abs(log_size(size) - log_size(reps[best])))
      best = i;
  return best;
}

// The size representative `r` is screened at: itself, or above kScreenMaxBytes per
// call the largest size of the run within it, unless that is no larger than the
// representative below (two regions would screen alike).
std::uint64_t screen_size(std::size_t r, const std::vector<std::uint64_t>& reps,
                          const std::vector<std::uint64_t>& sizes, std::uint64_t bytes_per_item) {
  const std::uint64_t n = reps[r];
  if (n * bytes_per_item <= kScreenMaxBytes) return n;
  std::uint64_t within = 0;
  for (std::uint64_t s : sizes)
    if (s * bytes_per_item <= kScreenMaxBytes) within = std::max(within, s);
  return r > 0 && within > reps[r - 1] ? within : n;
}

// The value a core candidate holds in each dimension screened first, per algorithm: the
// usually best one where that algorithm's candidates hold it, else the smallest they
// hold (lookback_bulk copies tiles as they are: no warp-transposed I/O). lookback_bulk
// screens 7 stages, what 505 of the H100 table's 533 and 447 of the H200's 457 bulk rows
// hold; the other counts are neighbours (a non-adjacent dimension).
struct CoreField {
  std::string_view field;
  int preferred, bulk_preferred;
};
const CoreField kCoreFields[] = {
    {"block_scan", static_cast<int>(BlockScan::WarpScans), static_cast<int>(BlockScan::WarpScans)},
    // lookback_bulk screens its rows; lane runs (direct) come in as a leader's neighbours.
    {"tile_io", static_cast<int>(TileIO::WarpTranspose), static_cast<int>(TileIO::Transpose)},
    {"cache", 0, 0},
    {"backoff_ns", 0, 0},
    {"lookback_span", 1, 1},
    {"stages", 3, 7},
    {"tile_loop", 0, 0},
    // Every bulk shape holds 0; an early release comes in as a leader's neighbour.
    {"early_release", 0, 0},
    // One tile a ticket, as segmented and compaction kernels take; more come in as a
    // leader's neighbours.
    {"tiles_per_ticket", 1, 1},
};

using CoreValues = std::map<std::pair<Algorithm, std::string_view>, int>;

CoreValues core_values(const std::vector<Policy>& candidates) {
  CoreValues out;
  for (const CoreField& c : kCoreFields) {
    std::map<Algorithm, std::set<int>> held;
    for (const Policy& p : candidates)
      held[p.algorithm].insert(detail::field_named(c.field).get(p));
    for (const auto& [algorithm, values] : held) {
      const int want = algorithm == Algorithm::LookbackBulk ? c.bulk_preferred : c.preferred;
      out[{algorithm, c.field}] = values.count(want) ? want : *values.begin();
    }
  }
  return out;
}

} // namespace

std::vector<Policy> halving_core(const std::vector<Policy>& candidates) {
  const CoreValues values = core_values(candidates);
  std::vector<Policy> core;
  for (const Policy& p : candidates)
    if (std::all_of(std::begin(kCoreFields), std::end(kCoreFields), [&](const CoreField& c) {
          return detail::field_named(c.field).get(p) == values.at({p.algorithm, c.field});
        }))
      core.push_back(p);
  if (core.empty()) return candidates;
  // Each tile shape once, at its widest vector: the vector is the dimension that
  // moves a shape's time least, and refinement visits the narrower ones around the
  // leaders. Fewer kernels compile before the first leaders are known.
  std::map<std::string, std::size_t> widest; // key without the vector -> index in `core`
  std::vector<Policy> shapes;
  for (const Policy& p : core) {
    Policy q = p;
    q.vector_width = 0;
    auto [it, fresh] = widest.try_emplace(q.key(), shapes.size());
    if (fresh)
      shapes.push_back(p);
    else if (p.vector_width > shapes[it->second].vector_width)
      shapes[it->second] = p;
  }
  return shapes;
}

namespace {

std::vector<Policy> applicable(const std::vector<Policy>& policies, std::uint64_t n,
                               const SpaceOptions& space) {
  std::vector<Policy> out;
  for (const Policy& p : policies)
    if (applies_at(p, n, space)) out.push_back(p);
  return out;
}

bool contains(const std::vector<Policy>& v, const Policy& p) {
  return std::find(v.begin(), v.end(), p) != v.end();
}

// The policies of `pool` whose latest result is Ok, fastest first.
std::vector<Policy> ranked(const std::vector<Policy>& pool,
                           const std::map<std::string, Result>& latest) {
  std::vector<const Result*> ok;
  for (const Policy& p : pool)
    if (auto it = latest.find(p.key()); it != latest.end() && it->second.ok())
      ok.push_back(&it->second);
  std::stable_sort(ok.begin(), ok.end(),
                   [](const Result* a, const Result* b) { return a->median_ns < b->median_ns; });
  std::vector<Policy> out;
  for (const Result* r : ok)
    out.push_back(r->policy);
  return out;
}

void truncate(std::vector<Policy>& v, std::size_t n) {
  if (v.size() > n) v.resize(n);
}

// Successive halving: how many screen measurements rounds of `n` candidates take.
std::size_t halving_measurements(std::size_t n) {
  std::size_t total = 0;
  for (;;) {
    total += n;
    if (n <= kTop) return total;
    n = std::max(kTop, (n + 2) / 3);
    if (n <= kTop) return total;
  }
}

// The grid neighbours of `top` worth screening at n: candidates (`allowed` keys)
// not measured there yet (`measured`: a set or map of keys).
template <class Keys>
std::vector<Policy>
unmeasured_neighbours(const SearchContext& ctx, const std::set<std::string>& allowed,
                      const std::vector<Policy>& top, std::uint64_t n, const Keys& measured) {
  std::vector<Policy> batch;
  for (const Policy& p : top)
    for (const Policy& q : neighbours(p, ctx.problem.size_types(), ctx.space))
      if (allowed.count(q.key()) && !measured.count(q.key()) && applies_at(q, n, ctx.space) &&
          !contains(batch, q))
        batch.push_back(q);
  return batch;
}

std::set<std::string> keys_of(const std::vector<Policy>& policies) {
  std::set<std::string> keys;
  for (const Policy& p : policies)
    keys.insert(p.key());
  return keys;
}

// The state of one run: the context, the candidate set and the best time per size.
class Search {
public:
  explicit Search(SearchContext& ctx) : ctx_(ctx), allowed_(keys_of(ctx.candidates)) {}

  // Screening, halving and refinement at the representative size n; returns its
  // top K, fastest first.
  std::vector<Policy> explore(std::uint64_t n, const std::vector<Policy>& core) {
    std::map<std::string, Result> latest; // policy key -> its latest screen result at n
    std::vector<Policy> pool = applicable(core, n, ctx_.space);
    for (;;) {
      const bool complete = screen(pool, n, latest);
      pool = ranked(pool, latest);
      if (!complete || pool.size() <= kTop) break;
      truncate(pool, std::max(kTop, (pool.size() + 2) / 3));
      if (pool.size() <= kTop) break;
    }
    for (int pass = 0; pass < kRefinePasses && !ctx_.out_of_time(); ++pass) {
      const std::vector<Policy> before = pool;
      const std::vector<Policy> batch = unmeasured_neighbours(ctx_, allowed_, pool, n, latest);
      if (batch.empty()) break;
      const bool complete = screen(batch, n, latest);
      pool.insert(pool.end(), batch.begin(), batch.end());
      pool = ranked(pool, latest);
      truncate(pool, kTop);
      if (!complete || pool == before) break;
    }
    truncate(pool, kTop);
    return pool;
  }

  // Measures `batch` at n with Effort::Screen into `latest`; false when the time
  // budget ran out before the end.
  bool screen(const std::vector<Policy>& batch, std::uint64_t n,
              std::map<std::string, Result>& latest) {
    if (batch.empty()) return true;
    ctx_.evaluator->prefetch(batch);
    for (const Policy& p : batch) {
      if (ctx_.out_of_time()) return false;
      latest.insert_or_assign(p.key(), measure(p, n, Effort::Screen));
    }
    return true;
  }

  Result measure(const Policy& p, std::uint64_t n, Effort effort) {
    auto best = best_ns_.find(n);
    const double limit = best == best_ns_.end() ? 0 : ctx_.time_limit_factor * best->second;
    Result r = ctx_.evaluator->measure(p, n, effort, limit);
    if (r.ok() && (best == best_ns_.end() || r.median_ns < best->second)) best_ns_[n] = r.median_ns;
    return r;
  }

private:
  SearchContext& ctx_;
  std::set<std::string> allowed_;
  std::map<std::uint64_t, double> best_ns_;
};

// The finalists of size n: the top k of its region and the leaders of the adjacent
// regions, as far as they apply at n; when none does (the budget ran out early),
// the leaders of the nearest region that has some.
std::vector<Policy> finalists_for(std::uint64_t n, std::size_t region,
                                  const std::vector<std::vector<Policy>>& tops, std::size_t k,
                                  const SpaceOptions& space) {
  std::vector<Policy> list;
  auto take = [&](std::size_t r, std::size_t count) {
    for (const Policy& p : tops[r])
      if (count > 0 && applies_at(p, n, space) && !contains(list, p)) {
        list.push_back(p);
        --count;
      }
  };
  take(region, k);
  if (region > 0) take(region - 1, kFromAdjacent);
  if (region + 1 < tops.size()) take(region + 1, kFromAdjacent);
  for (std::size_t d = 2; list.empty() && d < tops.size(); ++d) {
    if (region >= d) take(region - d, kFromAdjacent);
    if (region + d < tops.size()) take(region + d, kFromAdjacent);
  }
  return list;
}

// Each representative's screening size (screen_size), for an element moving its input
// read and its output written.
std::vector<std::uint64_t> screen_sizes(const SearchContext& ctx,
                                        const std::vector<std::uint64_t>& reps) {
  const std::uint64_t bytes = ctx.problem.in_bytes() + ctx.problem.out_bytes();
  std::vector<std::uint64_t> out;
  for (std::size_t r = 0; r < reps.size(); ++r)
    out.push_back(screen_size(r, reps, ctx.sizes, bytes));
  return out;
}

class Halving : public Strategy {
public:
  std::string_view name() const override { return "halving"; }

  std::size_t planned_measurements(const SearchContext& ctx) const override {
    const auto reps = representatives(ctx.sizes);
    const auto core = halving_core(ctx.candidates);
    const std::set<std::string> allowed = keys_of(ctx.candidates);
    std::size_t total = 0;
    for (std::uint64_t n : screen_sizes(ctx, reps)) {
      std::vector<Policy> pool = applicable(core, n, ctx.space);
      total += halving_measurements(pool.size());
      // Refinement, estimated as one pass over the neighbours of the first K.
      const std::set<std::string> measured = keys_of(pool);
      truncate(pool, kTop);
      total += unmeasured_neighbours(ctx, allowed, pool, n, measured).size();
    }
    for (std::uint64_t n : ctx.sizes) {
      const std::size_t region = region_of(n, reps);
      const std::size_t adjacent = (region > 0) + (region + 1 < reps.size());
      const std::size_t can = applicable(ctx.candidates, n, ctx.space).size();
      total += std::min(can, kTop + kFromAdjacent * adjacent);
    }
    return total;
  }

  std::vector<SizeOutcome> run(SearchContext& ctx) override {
    Search search(ctx);
    const auto reps = representatives(ctx.sizes);
    const auto core = halving_core(ctx.candidates);
    std::vector<std::vector<Policy>> tops(reps.size());
    // Every representative's screening core compiles from the start, so compiling
    // runs ahead of timing for the whole exploration; each screen's own hint then
    // moves what it needs first to the front.
    const std::vector<std::uint64_t> screens = screen_sizes(ctx, reps);
    std::vector<Policy> ahead;
    std::set<std::string> keys;
    for (std::uint64_t n : screens)
      for (const Policy& p : applicable(core, n, ctx.space))
        if (keys.insert(p.key()).second) ahead.push_back(p);
    ctx.evaluator->prefetch(ahead);
    for (std::size_t r = 0; r < reps.size() && !ctx.out_of_time(); ++r)
      tops[r] = search.explore(screens[r], core);

    std::vector<SizeOutcome> outcomes;
    for (std::uint64_t n : ctx.sizes) {
      const std::size_t k = ctx.out_of_time() ? kTopOutOfTime : kTop;
      const std::vector<Policy> list = finalists_for(n, region_of(n, reps), tops, k, ctx.space);
      SizeOutcome outcome{n, {}};
      ctx.evaluator->prefetch(list);
      for (const Policy& p : list)
        outcome.finalists.push_back(search.measure(p, n, Effort::Confirm));
      outcomes.push_back(std::move(outcome));
    }
    return outcomes;
  }
};

} // namespace

std::unique_ptr<Strategy> make_halving_strategy() {
  return std::make_unique<Halving>();
}

} // namespace scantune::tuner

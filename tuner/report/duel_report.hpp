// `scantune show --duels`: how well one winner serves each size bucket, read from
// the duels a tune stored. The tuner times a bucket's finalists at several sizes of
// the bucket and keeps the one with the best worst case; where the best shape changes
// inside the bucket, no finalist is close to the best at every size, and the tuner
// stores two winners (docs/tuner.md, "Two winners a bucket").
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cache/tuning_db.hpp"
#include "tuner/report/db_report.hpp"
#include "tuner/run/bucket_split.hpp"

namespace scantune::tuner {

/// One duelled bucket. Ratios are a policy's time over the fastest duelist's at the
/// same size (1 = the fastest), worst over the sizes it covers.
struct DuelBucket {
  db::BestEntry best;               ///< the bucket's stored winner
  std::vector<std::uint64_t> sizes; ///< the duel sizes, ascending (two or more)
  int duelists = 0;                 ///< policies timed at every duel size
  std::optional<double> winner;  ///< the stored winner's (or split's) worst ratio, when it duelled
  double one = 1;                ///< the best worst ratio any one duelist reaches
  std::uint64_t split_after = 0; ///< two winners: the lower one's largest size
  double two = 1;                ///< the worse side's best worst ratio after that split
};

/// The buckets of the winners matching `f` that a tune duelled: timed in one round
/// (the bucket's measurements back to back, in one run, status ok) at two or more
/// sizes, two or more policies at each of them. Of several rounds, the one with the
/// most duelists; each duelist's time at a size is the median of its times there in
/// that round. Ordered as `best_entries`.
std::vector<DuelBucket> duel_buckets(const db::TuningDb& db, const ReportFilter& f);

} // namespace scantune::tuner

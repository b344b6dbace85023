// Size buckets: the size axis of the tuning database and of the dispatcher.
#pragma once

#include <cstdint>
#include <cstdlib>

namespace scantune::db {

/// ceil(log2(n)) (0 for n <= 1): bucket b holds sizes in (2^(b-1), 2^b].
inline int size_bucket(std::uint64_t n) {
  int b = 0;
  while (b < 64 && (std::uint64_t{1} << b) < n)
    ++b;
  return b;
}

/// Whether tuned bucket `a` is nearer to `target` than tuned bucket `b` on the log
/// scale; on a tie the smaller bucket wins (TuningDb::best_for orders the same way).
inline bool nearer_bucket(int a, int b, int target) {
  const int da = std::abs(a - target), db = std::abs(b - target);
  return da != db ? da < db : a < b;
}

} // namespace scantune::db

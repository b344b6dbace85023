// Size buckets: the size axis of the tuning database and of the dispatcher.
//
// Two buckets per octave, each named by its largest size: bucket 2k is 2^k and
// holds (1.5 x 2^(k-1), 2^k]; bucket 2k+1 is 1.5 x 2^k and holds (2^k, 1.5 x 2^k].
// Bucket 0 holds n <= 1 and bucket 1 is empty. Why half octaves: the best tile
// shape or algorithm changes between two powers of two. On the H100, shapes tuned
// at 1.5 x 2^20 and 1.5 x 2^21 ran 2-20% faster there than the 2^21 and 2^22
// winners that served those sizes before (docs/decisions.md, "Half-octave size
// buckets").
#pragma once

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

namespace scantune::db {

/// The largest bucket: sizes up to 2^64 - 1.
inline constexpr int kMaxSizeBucket = 128;

/// The bucket of `n` (0 for n <= 1).
inline int size_bucket(std::uint64_t n) {
  if (n <= 1) return 0;
  // ceil(log2(n)): n in (2^(c-1), 2^c]. One count-leading-zeros, not a loop: the
  // dispatcher buckets every call's size.
  const int c = 64 - __builtin_clzll(n - 1);
  if (c >= 2 && n - (std::uint64_t{1} << (c - 1)) <= (std::uint64_t{1} << (c - 2)))
    return 2 * c - 1;
  return 2 * c;
}

/// The largest size of bucket `b` (its name; 1 for the empty bucket 1).
inline std::uint64_t bucket_size(int b) {
  if (b <= 1) return 1;
  if (b >= kMaxSizeBucket) return std::numeric_limits<std::uint64_t>::max();
  if (b % 2 == 0) return std::uint64_t{1} << (b / 2);
  return std::uint64_t{3} << ((b - 3) / 2);
}

/// Where bucket `b` sits on the log scale, in thousandths of an octave
/// (log2(1.5) = 0.585).
inline int bucket_position(int b) {
  return b % 2 == 0 ? 500 * b : 500 * (b - 1) + 585;
}

/// The same as bucket_position, as an SQL expression of the column `size_bucket`
/// (TuningDb::best_for orders by it).
inline constexpr const char* kBucketPositionSql =
    "(CASE size_bucket % 2 WHEN 0 THEN 500 * size_bucket ELSE 500 * (size_bucket - 1) + 585 END)";

/// Whether tuned bucket `a` is nearer to `target` than tuned bucket `b` on the log
/// scale; on a tie the smaller bucket wins (TuningDb::best_for orders the same way).
inline bool nearer_bucket(int a, int b, int target) {
  const int t = bucket_position(target);
  const int da = std::abs(bucket_position(a) - t), db = std::abs(bucket_position(b) - t);
  return da != db ? da < db : a < b;
}

/// "2^k" or "1.5x2^k": the bucket's largest size, as the CLI and logs print it.
inline std::string bucket_label(int b) {
  if (b % 2 == 0) return "2^" + std::to_string(b / 2);
  return "1.5x2^" + std::to_string((b - 1) / 2);
}

/// A size as the CLI and logs print it: "2^k" or "1.5x2^k" when it is a bucket's
/// largest size, else the number.
inline std::string size_label(std::uint64_t n) {
  const int b = size_bucket(n);
  return n == bucket_size(b) ? bucket_label(b) : std::to_string(n);
}

} // namespace scantune::db

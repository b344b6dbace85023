// The scan hot path's lookup: per (type, operator, kind) a set of routes, one per
// size bucket, each holding its Choice and (once loaded) its kernels. Route sets are
// built on first use from a DispatchTable and never change afterwards, so a warm
// call finds its kernels with two atomic loads: no lock, no allocation, no string.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include "base/size_bucket.hpp"
#include "dispatch.hpp"
#include "kernel_registry.hpp"

namespace scantune::detail {

struct Route {
  Choice plan;
  std::atomic<const KernelSet*> kernels{nullptr};
  std::atomic<bool> reported{false}; ///< fallback logged (and autotune asked) once
};

/// A radix sort's route: its choice and (once loaded) its kernels.
struct SortRoute {
  SortChoice plan;
  std::atomic<const KernelSet*> kernels{nullptr};
};

class RouteCache {
public:
  /// `reproducible`: floating-point problems get their policy's reproducible form
  /// (ScannerOptions::reproducible).
  explicit RouteCache(std::shared_ptr<const DispatchTable> table, bool reproducible = false)
      : table_(std::move(table)), reproducible_(reproducible) {}
  RouteCache(const RouteCache&) = delete;
  RouteCache& operator=(const RouteCache&) = delete;

  /// The route of a call (builds the problem's route set on first use).
  /// `reverse`: a suffix scan, the forward problem's tuned shape run reversed.
  /// `converts`: a converting flat scan's types (acc == type), else null.
  /// `shape`: a rows, offsets or axis scan's length class (shape_class_of).
  Route& route(DataType type, const OpRef& op, ScanKind kind, std::uint64_t n,
               Heads heads = Heads::None, bool reverse = false, const ScanTypes* converts = nullptr,
               ShapeClass shape = {});
  /// The route of a radix sort (builds the key type's and value size's route set on
  /// first use); `value_bytes` 0, 4 or 8; `indices`: values made by the sort (the
  /// pairs' policies, kernels of their own); `widened`: 8-byte indices carried as 4-byte
  /// positions (SortSpec::widened), which take the 4-byte pairs' policies.
  SortRoute& sort_route(DataType key, std::size_t value_bytes, std::uint64_t n,
                        bool indices = false, bool widened = false);
  const DispatchTable& table() const { return *table_; }

  /// Keeps `set` alive as long as this cache (routes point at it) and returns it.
  const KernelSet* keep(std::shared_ptr<const KernelSet> set);

private:
  static constexpr int kBuckets = db::kMaxSizeBucket + 1;
  // A bucket whose winner is split (its Choice's split_upto) routes sizes up to that to
  // its lower route; 0 (no split) sends every size of the bucket to by_bucket.
  struct RouteSet {
    std::array<Route, kBuckets> by_bucket;
    std::array<Route, kBuckets> lower;
    Route& of(std::uint64_t n) {
      const auto b = static_cast<std::size_t>(db::size_bucket(n));
      return n <= by_bucket[b].plan.split_upto ? lower[b] : by_bucket[b];
    }
  };
  std::unique_ptr<RouteSet> build(DataType type, const OpRef& op, ScanKind kind, Heads heads,
                                  ShapeClass shape, bool reverse, const ScanTypes* converts) const;

  // Custom operators and converting scans: found by a search under a shared lock.
  struct CustomRoutes {
    DataType type;
    ScanKind kind;
    Heads heads;
    ShapeClass shape;
    bool reverse;
    Op builtin; // when !custom
    bool custom;
    CustomOp op;        // a copy: the caller's object may change or die
    ScanTypes converts; // uniform: none
    std::unique_ptr<RouteSet> routes;
  };
  Route& searched_route(DataType type, const OpRef& op, ScanKind kind, std::uint64_t n, Heads heads,
                        ShapeClass shape, bool reverse, const ScanTypes* converts);

  struct SortRouteSet {
    std::array<SortRoute, kBuckets> by_bucket;
  };
  // Every element type: compactions route narrow ones as themselves (no accumulator).
  static constexpr std::size_t kTypes = static_cast<std::size_t>(DataType::BFloat16) + 1;

  std::shared_ptr<const DispatchTable> table_;
  bool reproducible_ = false;
  // [problem_slot(heads, shape)][type][op][kind][reverse]
  std::array<std::atomic<RouteSet*>, kProblemSlots * kTypes * 7 * 2 * 2> builtin_{};
  std::shared_mutex custom_mutex_;
  std::vector<CustomRoutes> custom_;
  std::mutex mutex_; // owned_, owned_sorts_ and kept_
  std::vector<std::unique_ptr<RouteSet>> owned_;
  // Per key type: keys, 4- and 8-byte values, 4- and 8-byte indices, widened 8-byte
  // indices (their own kernels).
  std::array<std::atomic<SortRouteSet*>, kTypes * 6> sorts_{};
  std::vector<std::unique_ptr<SortRouteSet>> owned_sorts_;
  std::vector<std::shared_ptr<const KernelSet>> kept_;
};

} // namespace scantune::detail

#include "route_cache.hpp"

#include "algorithms.hpp"
#include "base/size_bucket.hpp"
#include "default_policies.hpp"
#include "policy_fields.hpp"

namespace scantune::detail {

namespace {

// A suffix scan runs the forward plan's shape reversed; the algorithms that cannot run
// reversed (sequential, reduce-then-scan) give way to the default single-pass policy.
void reverse_plan(Choice& plan, DataType type) {
  if (!field_named("reverse").takes(describe(plan.policy.algorithm))) {
    plan.policy = default_policy(type, 0);
    plan.source += " (reverse: default single-pass policy)";
  }
  plan.policy.reverse = true;
}

} // namespace

std::unique_ptr<RouteCache::RouteSet> RouteCache::build(DataType type, const OpRef& op,
                                                        ScanKind kind, Heads heads, bool reverse,
                                                        const ScanTypes* converts,
                                                        int axis_class) const {
  auto set = std::make_unique<RouteSet>();
  ProblemName problem = ProblemName::of(type, op, kind, heads);
  if (converts) problem.converts = *converts;
  // Integer operators are exact in any order; float ones (built-in or custom) are not.
  const bool repro = reproducible_ && (type == DataType::Float32 || type == DataType::Float64);
  for (int b = 0; b < kBuckets; ++b) {
    // The bucket's largest n: one-block winners must cover all of it.
    Choice& plan = set->by_bucket[static_cast<std::size_t>(b)].plan;
    plan = table_->resolve(problem, db::bucket_size(b), axis_class_shape(axis_class));
    if (repro && field_named("reproducible").takes(describe(plan.policy.algorithm))) {
      plan.policy.reproducible = true;
      plan.source += " (reproducible)";
    }
    if (reverse) reverse_plan(plan, type);
    // A reversed plan may have fallen back to the accumulator's default shape.
    if (converts && plan.policy.invalid_reason(*converts))
      plan.policy = converted_policy(plan.policy, *converts, db::bucket_size(b));
  }
  return set;
}

Route& RouteCache::searched_route(DataType type, const OpRef& op, ScanKind kind, std::size_t bucket,
                                  Heads heads, bool reverse, const ScanTypes* converts,
                                  int axis_class) {
  const CustomOp* c = op.custom;
  const ScanTypes uniform{type, type, type};
  auto same = [&](const CustomRoutes& r) {
    return r.type == type && r.kind == kind && r.heads == heads && r.reverse == reverse &&
           r.axis_class == axis_class && r.custom == (c != nullptr) &&
           r.converts == (converts ? *converts : uniform) &&
           (c ? r.op.name == c->name && r.op.body == c->body && r.op.identity == c->identity &&
                    r.op.value_struct == c->value_struct && r.op.value_type == c->value_type &&
                    r.op.value_bytes == c->value_bytes
              : r.builtin == op.op);
  };
  {
    std::shared_lock<std::shared_mutex> lock(custom_mutex_);
    for (auto& r : custom_)
      if (same(r)) return r.routes->by_bucket[bucket];
  }
  auto built = build(type, op, kind, heads, reverse, converts, axis_class);
  std::unique_lock<std::shared_mutex> lock(custom_mutex_);
  for (auto& r : custom_)
    if (same(r)) return r.routes->by_bucket[bucket];
  custom_.push_back({type, kind, heads, reverse, op.op, c != nullptr, c ? *c : CustomOp{},
                     converts ? *converts : uniform, axis_class, std::move(built)});
  return custom_.back().routes->by_bucket[bucket];
}

Route& RouteCache::route(DataType type, const OpRef& op, ScanKind kind, std::uint64_t n,
                         Heads heads, bool reverse, const ScanTypes* converts, AxisShape axis) {
  const auto bucket = static_cast<std::size_t>(db::size_bucket(n));
  // The general class (long, wide or unknown columns) keeps the heads-indexed slots
  // that every other problem uses; the other axis classes have slots of their own.
  const int general = axis_shape_class({});
  const int cls = heads == Heads::Axis ? axis_shape_class(axis) : general;
  if (op.custom || converts)
    return searched_route(type, op, kind, bucket, heads, reverse, converts, cls);
  const std::size_t by_type = static_cast<std::size_t>(type) * 7 + static_cast<std::size_t>(op.op);
  std::atomic<RouteSet*>* slot = nullptr;
  if (cls == general) {
    const std::size_t by_op = static_cast<std::size_t>(heads) * 6 * 7 + by_type;
    slot = &builtin_[(by_op * 2 + static_cast<std::size_t>(kind)) * 2 + (reverse ? 1 : 0)];
  } else { // axis scans are never reversed
    const std::size_t by_class = static_cast<std::size_t>(cls < general ? cls : cls - 1);
    slot = &axis_classes_[(by_class * 6 * 7 + by_type) * 2 + static_cast<std::size_t>(kind)];
  }
  RouteSet* set = slot->load(std::memory_order_acquire);
  if (!set) {
    auto built = build(type, op, kind, heads, reverse, nullptr, cls);
    std::lock_guard<std::mutex> lock(mutex_);
    set = slot->load(std::memory_order_acquire);
    if (!set) {
      set = built.get();
      owned_.push_back(std::move(built));
      slot->store(set, std::memory_order_release);
    }
  }
  return set->by_bucket[bucket];
}

SortRoute& RouteCache::sort_route(DataType key, std::size_t value_bytes, std::uint64_t n) {
  const auto bucket = static_cast<std::size_t>(db::size_bucket(n));
  const std::size_t slot = static_cast<std::size_t>(key) * 3 + value_bytes / 4;
  SortRouteSet* set = sorts_.at(slot).load(std::memory_order_acquire);
  if (!set) {
    auto built = std::make_unique<SortRouteSet>();
    for (int b = 0; b < kBuckets; ++b)
      built->by_bucket[static_cast<std::size_t>(b)].plan =
          table_->resolve_sort(key, value_bytes, db::bucket_size(b));
    std::lock_guard<std::mutex> lock(mutex_);
    set = sorts_[slot].load(std::memory_order_acquire);
    if (!set) {
      set = built.get();
      owned_sorts_.push_back(std::move(built));
      sorts_[slot].store(set, std::memory_order_release);
    }
  }
  return set->by_bucket[bucket];
}

const KernelSet* RouteCache::keep(std::shared_ptr<const KernelSet> set) {
  std::lock_guard<std::mutex> lock(mutex_);
  kept_.push_back(std::move(set));
  return kept_.back().get();
}

} // namespace scantune::detail

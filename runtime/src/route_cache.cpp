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
                                                        ScanKind kind, Heads heads,
                                                        ShapeClass shape, bool reverse,
                                                        const ScanTypes* converts) const {
  auto set = std::make_unique<RouteSet>();
  ProblemName problem = ProblemName::of(type, op, kind, heads, shape);
  if (converts) problem.converts = *converts;
  // Integer operators are exact in any order; float ones (built-in or custom) are not.
  const bool repro = reproducible_ && (type == DataType::Float32 || type == DataType::Float64);
  const auto resolve = [&](Choice& plan, std::uint64_t n) {
    plan = table_->resolve(problem, n);
    if (repro && field_named("reproducible").takes(describe(plan.policy.algorithm))) {
      plan.policy.reproducible = true;
      plan.source += " (reproducible)";
    }
    if (reverse) reverse_plan(plan, type);
    // A reversed plan may have fallen back to the accumulator's default shape.
    if (converts && plan.policy.invalid_reason(*converts))
      plan.policy = converted_policy(plan.policy, *converts, n);
  };
  for (std::size_t b = 0; b < set->by_bucket.size(); ++b) {
    // The bucket's largest n: one-block winners must cover all of it.
    Choice& plan = set->by_bucket[b].plan;
    resolve(plan, db::bucket_size(static_cast<int>(b)));
    if (plan.split_upto) resolve(set->lower[b].plan, plan.split_upto);
  }
  return set;
}

Route& RouteCache::searched_route(DataType type, const OpRef& op, ScanKind kind, std::uint64_t n,
                                  Heads heads, ShapeClass shape, bool reverse,
                                  const ScanTypes* converts) {
  const CustomOp* c = op.custom;
  const ScanTypes uniform{type, type, type};
  auto same = [&](const CustomRoutes& r) {
    return r.type == type && r.kind == kind && r.heads == heads && r.shape == shape &&
           r.reverse == reverse && r.custom == (c != nullptr) &&
           r.converts == (converts ? *converts : uniform) &&
           (c ? r.op.name == c->name && r.op.body == c->body && r.op.identity == c->identity &&
                    r.op.value_struct == c->value_struct && r.op.value_type == c->value_type &&
                    r.op.value_bytes == c->value_bytes
              : r.builtin == op.op);
  };
  {
    std::shared_lock<std::shared_mutex> lock(custom_mutex_);
    for (auto& r : custom_)
      if (same(r)) return r.routes->of(n);
  }
  auto built = build(type, op, kind, heads, shape, reverse, converts);
  std::unique_lock<std::shared_mutex> lock(custom_mutex_);
  for (auto& r : custom_)
    if (same(r)) return r.routes->of(n);
  custom_.push_back({type, kind, heads, shape, reverse, op.op, c != nullptr, c ? *c : CustomOp{},
                     converts ? *converts : uniform, std::move(built)});
  return custom_.back().routes->of(n);
}

Route& RouteCache::route(DataType type, const OpRef& op, ScanKind kind, std::uint64_t n,
                         Heads heads, bool reverse, const ScanTypes* converts, ShapeClass shape) {
  if (op.custom || converts)
    return searched_route(type, op, kind, n, heads, shape, reverse, converts);
  const std::size_t by_op =
      (problem_slot(heads, shape) * kTypes + static_cast<std::size_t>(type)) * 7 +
      static_cast<std::size_t>(op.op);
  const std::size_t slot = (by_op * 2 + static_cast<std::size_t>(kind)) * 2 + (reverse ? 1 : 0);
  RouteSet* set = builtin_[slot].load(std::memory_order_acquire);
  if (!set) {
    auto built = build(type, op, kind, heads, shape, reverse, nullptr);
    std::lock_guard<std::mutex> lock(mutex_);
    set = builtin_[slot].load(std::memory_order_acquire);
    if (!set) {
      set = built.get();
      owned_.push_back(std::move(built));
      builtin_[slot].store(set, std::memory_order_release);
    }
  }
  return set->of(n);
}

SortRoute& RouteCache::sort_route(DataType key, std::size_t value_bytes, std::uint64_t n,
                                  bool indices, bool widened) {
  const auto bucket = static_cast<std::size_t>(db::size_bucket(n));
  const std::size_t kind = widened ? 5 : indices ? 2 + value_bytes / 4 : value_bytes / 4;
  const std::size_t slot = static_cast<std::size_t>(key) * 6 + kind;
  SortRouteSet* set = sorts_.at(slot).load(std::memory_order_acquire);
  if (!set) {
    auto built = std::make_unique<SortRouteSet>();
    for (int b = 0; b < kBuckets; ++b)
      built->by_bucket[static_cast<std::size_t>(b)].plan =
          table_->resolve_sort(key, widened ? 4 : value_bytes, db::bucket_size(b));
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

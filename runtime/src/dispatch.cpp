#include "dispatch.hpp"

#include <regex>

#include <fmt/format.h>

#include "algorithms.hpp"
#include "base/size_bucket.hpp"
#include "builtin_table.hpp"
#include "codegen.hpp"
#include "default_policies.hpp"
#include "log.hpp"
#include "struct_values.hpp"

namespace scantune::detail {
namespace {

std::string key_of(const ProblemName& p) {
  return fmt::format("{}|{}|{}|{}|{}", to_string(p.type), p.op, p.op_hash, to_string(p.kind),
                     p.problem_text());
}

bool is_integer_type(DataType t) {
  return t != DataType::Float32 && t != DataType::Float64;
}

} // namespace

ProblemName ProblemName::of(DataType type, const OpRef& op, ScanKind kind, Heads heads,
                            ShapeClass shape) {
  ProblemName p;
  p.type = type;
  p.kind = kind;
  p.heads = heads;
  if (takes_shape_class(heads)) p.shape = shape;
  if (op.custom) {
    p.custom = true;
    p.op = op.custom->name;
    p.op_hash = custom_op_hash(*op.custom);
    static const std::regex transcendental(
        R"(\b(exp|exp2|exp10|expm1|log|log1p|log2|log10|pow|sin|cos|tan|sinh|cosh|tanh|asin|)"
        R"(acos|atan|atan2|erf|erfc|tgamma|lgamma)f?\s*\()");
    p.costly = std::regex_search(op.custom->body, transcendental);
    if (op.custom->is_struct()) p.struct_bytes = op.custom->value_bytes;
  } else {
    p.op = std::string(to_string(op.op));
  }
  return p;
}

ProblemName ProblemName::sort(DataType key, std::size_t value_bytes) {
  ProblemName p = of(key, Op::Sum, ScanKind::Inclusive);
  p.sorts = value_bytes;
  return p;
}

ProblemName ProblemName::of(const ScanTypes& types, const OpRef& op, ScanKind kind) {
  ProblemName p = of(types.acc, op, kind);
  if (!types.uniform()) p.converts = types;
  return p;
}

std::string ProblemName::label() const {
  if (sorts) return fmt::format("{} {}", to_string(type), problem_text());
  const std::string types = struct_bytes ? struct_type_text(struct_bytes)
                            : converts   ? to_string(*converts)
                                         : std::string(to_string(type));
  const std::string flat = fmt::format("{} {} {}", types, op, to_string(kind));
  return heads == Heads::None ? flat
                              : fmt::format("{} {}", flat, classed_problem_text(heads, shape));
}

std::string ProblemName::problem_text() const {
  if (sorts) return sort_problem(*sorts);
  if (struct_bytes) return "@" + struct_type_text(struct_bytes);
  return converts ? "@" + to_string(*converts) : classed_problem_text(heads, shape);
}

bool ProblemName::set_problem_text(std::string_view text) {
  heads = Heads::None;
  shape = {};
  converts.reset();
  struct_bytes = 0;
  sorts = parse_sort_problem(text);
  if (sorts) return true;
  if (!text.empty() && text[0] == '@') {
    if (const int bytes = struct_type_bytes(text.substr(1))) {
      if (type != kStructStandIn) return false;
      struct_bytes = bytes;
      return true;
    }
    const ScanTypes t = parse_scan_types(text.substr(1));
    if (t.acc != type) return false;
    converts = t;
    return true;
  }
  const std::optional<ClassedHeads> h = parse_classed_heads(text);
  if (!h) return false;
  heads = h->heads;
  shape = h->shape;
  return true;
}

namespace {
// Sorts and structs have rules of their own; else the problem text's (a converting
// problem's vectors count elements of its wider side). `p`: the entry's policy or its
// lower winner.
std::optional<std::string> invalid_reason(const TunedEntry& e, const Policy& p) {
  if (e.problem.sorts)
    return e.sort_policy.invalid_reason(size_of(e.problem.type), *e.problem.sorts);
  if (e.problem.struct_bytes)
    return struct_invalid_reason(p, static_cast<std::size_t>(e.problem.struct_bytes));
  return stored_problem_invalid_reason(p, e.problem.type, e.problem.problem_text());
}
} // namespace

bool applies_to(const Policy& p, std::uint64_t tuned_size, std::uint64_t n) {
  const bool one_block =
      p.algorithm == Algorithm::Sequential || p.algorithm == Algorithm::SingleBlock;
  return !one_block || db::size_bucket(n) <= db::size_bucket(tuned_size);
}

DispatchTable::DispatchTable(int arch, std::string model, const std::vector<TunedEntry>& db_entries,
                             std::string db_path, const BuiltinTable& builtin)
    : arch_(arch), model_(std::move(model)), db_path_(std::move(db_path)) {
  for (TunedEntry e : db_entries) {
    if (e.arch != arch_) continue; // never another compute capability's winner
    if (const auto why = invalid_reason(e, e.policy)) {
      log(LogLevel::Warn, "tuning DB {}: ignoring {} for {} on {}: {}", db_path_, e.policy_key(),
          e.problem.label(), e.model, *why);
      continue;
    }
    if (e.lower) {
      const auto why = invalid_reason(e, *e.lower);
      if (why || e.lower_upto >= e.size || db::size_bucket(e.lower_upto) != e.bucket) {
        log(LogLevel::Warn, "tuning DB {}: ignoring the lower winner {} for {} on {}: {}", db_path_,
            e.lower->key(), e.problem.label(), e.model,
            why ? *why : "its sizes are not the lower part of the bucket");
        e.lower.reset();
        e.lower_upto = 0;
      }
    }
    db_[key_of(e.problem)].push_back(std::move(e));
  }
  for (const BuiltinEntry& b : builtin) {
    if (b.arch != arch_) continue;
    TunedEntry e;
    e.arch = b.arch;
    e.model = b.model;
    e.problem = ProblemName::of(b.type, b.op, b.kind);
    if (!e.problem.set_problem_text(b.problem)) continue; // the generator checked every row
    e.size = b.size;
    e.bucket = db::size_bucket(b.size);
    if (e.problem.sorts)
      e.sort_policy = SortPolicy::parse(b.policy);
    else
      e.policy = Policy::parse(b.policy);
    if (*b.lower_policy) {
      e.lower = Policy::parse(b.lower_policy);
      e.lower_upto = b.lower_upto;
    }
    builtin_[key_of(e.problem)].push_back(std::move(e));
  }
}

std::size_t DispatchTable::own_entries() const {
  std::size_t count = 0;
  for (const auto& kv : db_)
    for (const auto& e : kv.second)
      count += e.model == model_;
  return count;
}
std::size_t DispatchTable::same_arch_entries() const {
  std::size_t count = 0;
  for (const auto& kv : db_)
    count += kv.second.size();
  return count - own_entries();
}
std::size_t DispatchTable::builtin_entries() const {
  std::size_t count = 0;
  for (const auto& kv : builtin_)
    count += kv.second.size();
  return count;
}

const TunedEntry* DispatchTable::nearest(const Entries& entries, std::uint64_t n,
                                         Models which) const {
  const int target = db::size_bucket(n);
  const TunedEntry* best = nullptr;
  for (const TunedEntry& e : entries) {
    if ((which == Models::Own && e.model != model_) ||
        (which == Models::Others && e.model == model_))
      continue;
    if (!e.problem.sorts && !applies_to(e.policy, e.size, n)) continue;
    if (!best || db::nearer_bucket(e.bucket, best->bucket, target)) best = &e;
  }
  return best;
}

const DispatchTable::Entries* DispatchTable::most_similar_builtin(const ProblemName& p,
                                                                  Models which) const {
  // Same element size (vector widths and shared memory depend on it), then the
  // closest problem: same type, same operator, same kind, same integer-ness. Min, max
  // and custom operators count as close: their combine costs more than an add, and
  // sum exclusive's shapes ran 64-bit custom exclusive scans below CUB. The operator
  // outranks the kind: on the H100, 32-bit max exclusive ran at 70% of memcpy with sum
  // exclusive's winner at 2^28, while max inclusive's own winner reaches 80%
  // (docs/performance.md).
  auto costly_op = [](const ProblemName& x) { return x.custom || x.op == "min" || x.op == "max"; };
  const Entries* best = nullptr;
  int best_score = -1;
  for (const auto& kv : builtin_) {
    const ProblemName& q = kv.second.front().problem;
    if (which == Models::Own &&
        std::none_of(kv.second.begin(), kv.second.end(),
                     [&](const TunedEntry& e) { return e.model == model_; }))
      continue;
    if (size_of(q.type) != size_of(p.type) || q.heads != p.heads || q.shape != p.shape ||
        q.converts != p.converts || q.sorts != p.sorts || q.struct_bytes != p.struct_bytes)
      continue;
    const int op_score = q.op == p.op && q.op_hash == p.op_hash ? 2
                         : costly_op(q) && costly_op(p)         ? 1
                                                                : 0;
    const int score = (q.type == p.type) * 16 + op_score * 4 + (q.kind == p.kind) * 2 +
                      (is_integer_type(q.type) == is_integer_type(p.type));
    if (score > best_score) {
      best = &kv.second;
      best_score = score;
    }
  }
  return best;
}

const TunedEntry* DispatchTable::nearest_type_twin(const ProblemName& p, std::uint64_t n,
                                                   Models which) const {
  const int target = db::size_bucket(n);
  const TunedEntry* best = nullptr;
  for (const auto& kv : builtin_) {
    const ProblemName& q = kv.second.front().problem;
    if (q.type == p.type || size_of(q.type) != size_of(p.type)) continue;
    ProblemName same = q;
    same.type = p.type;
    if (key_of(same) != key_of(p)) continue;
    const TunedEntry* e = nearest(kv.second, n, which);
    if (e && (!best || db::nearer_bucket(e->bucket, best->bucket, target))) best = e;
  }
  return best;
}

Choice DispatchTable::resolve(const ProblemName& problem, std::uint64_t n, AxisShape axis) const {
  if (problem.heads == Heads::Reduce) { // untuned as a problem: the flat scan's tile shape
    ProblemName flat = problem;
    flat.heads = Heads::None;
    Choice plan = resolve(flat, n);
    plan.policy = reduce_policy_of(plan.policy);
    plan.source += " (its tile shape, for the reduction)";
    return plan;
  }
  const bool tuned = db_.count(key_of(problem)) || builtin_.count(key_of(problem));
  if (problem.converts && !tuned) { // untuned: the accumulator's shape
    ProblemName same = problem;
    same.converts.reset();
    Choice plan = resolve(same, n);
    plan.policy = converted_policy(plan.policy, *problem.converts, n);
    plan.source += fmt::format(" (its shape, for {})", to_string(*problem.converts));
    return plan;
  }
  const Pick pk = pick(problem, n);
  if (!pk.entry && problem.shape.classed()) { // nothing of its class: the unclassed chain
    ProblemName plain = problem;
    plain.shape = {};
    Choice plan =
        resolve(plain, n, axis.len || axis.inner ? axis : axis_class_shape(problem.shape));
    plan.source += fmt::format(" (nothing tuned for {})", problem.problem_text());
    return plan;
  }
  Choice plan;
  plan.match = pk.match;
  plan.source = pk.source;
  if (pk.entry) {
    plan.policy = pk.entry->policy;
    plan.tuned_size = pk.entry->size;
    if (pk.entry->lower && pk.entry->bucket == db::size_bucket(n)) {
      plan.split_upto = pk.entry->lower_upto;
      if (n <= pk.entry->lower_upto) {
        plan.policy = *pk.entry->lower;
        plan.source += fmt::format(" (its lower winner, n <= {})", pk.entry->lower_upto);
      }
    }
    // lookback_bulk reduces each tile in one warp: with a costly operator that chain
    // bounds the scan (H100, 2^28 float32: logcumsumexp 18.1 ms on bulk, 1.66 ms on the
    // default shape; absmax, cheap, 98% of memcpy on bulk and 86% on the default).
    if (pk.match == Match::BuiltIn && problem.costly &&
        plan.policy.algorithm == Algorithm::LookbackBulk) {
      plan.policy = default_policy(problem.type, n);
      plan.source += " (a costly operator: the default, not bulk)";
    }
    return plan;
  }
  if (problem.struct_bytes) { // no built-in table row is a struct's: the default shape
    plan.policy = default_struct_policy(static_cast<std::size_t>(problem.struct_bytes), n);
    plan.source = fmt::format("built-in default for {}-byte struct values", problem.struct_bytes);
    return plan;
  }
  if (!axis.len && !axis.inner) axis = axis_class_shape(problem.shape);
  plan.policy = problem.heads == Heads::Axis   ? default_axis_policy(problem.type, axis)
                : is_compaction(problem.heads) ? default_select_policy(problem.type)
                                               : default_policy(problem.type, n);
  return plan;
}

SortChoice DispatchTable::resolve_sort(DataType key, std::size_t value_bytes,
                                       std::uint64_t n) const {
  const Pick pk = pick(ProblemName::sort(key, value_bytes), n);
  SortChoice c;
  c.match = pk.match;
  c.source = pk.source;
  c.policy = pk.entry ? pk.entry->sort_policy : default_sort_policy(key, value_bytes);
  c.tuned_size = pk.entry ? pk.entry->size : 0;
  return c;
}

DispatchTable::Pick DispatchTable::pick(const ProblemName& problem, std::uint64_t n) const {
  if (auto it = db_.find(key_of(problem)); it != db_.end()) {
    if (const TunedEntry* e = nearest(it->second, n, Models::Own))
      return {e, e->bucket == db::size_bucket(n) ? Match::Exact : Match::NearestSize,
              fmt::format("tuning DB {}: {}, tuned at n = {}", db_path_, e->model,
                          db::size_label(e->size))};
    if (const TunedEntry* e = nearest(it->second, n, Models::Others))
      return {e, Match::SameArch,
              fmt::format("tuning DB {}: {} (also sm_{}), tuned at n = {}", db_path_, e->model,
                          arch_, db::size_label(e->size))};
  }
  // Built-in tables: this GPU model's own rows first, its nearest tuned problem
  // included (what it was measured with), then any table of its architecture.
  for (Models which : {Models::Own, Models::Any}) {
    const Entries* entries = most_similar_builtin(problem, which);
    if (!entries) continue;
    if (const TunedEntry* e = nearest(*entries, n, which)) {
      // The same problem in a type of the same size (int32 for float32) stands in where
      // it was tuned nearer n: the kernels run both alike, and a far bucket's shape can
      // be far off (float32 axis columns of 64 rows x 2^20 at 2^26 on the H200: 38% of
      // memcpy on the 2^20 row's vector-1 shape, 88-91% on int32's 2^24 or 2^28 rows).
      if (const TunedEntry* t = nearest_type_twin(problem, n, which);
          t && db::nearer_bucket(t->bucket, e->bucket, db::size_bucket(n)))
        e = t;
      const std::string label = e->problem.label();
      return {e, Match::BuiltIn,
              fmt::format("built-in table: {}, {}{}, tuned at n = {}", e->model, label,
                          label == problem.label() ? "" : " (the nearest tuned problem)",
                          db::size_label(e->size))};
    }
  }
  return {nullptr, Match::BuiltIn,
          fmt::format("built-in heuristic (nothing tuned for sm_{})", arch_)};
}

} // namespace scantune::detail

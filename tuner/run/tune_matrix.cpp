// The standard matrix of `scantune tune --all` and the buckets a database already holds.
#include "tuner/run/tune_matrix.hpp"

#include <set>
#include <string>

namespace scantune::tuner {

StandardMatrix standard_matrix() {
  return {{DataType::Int32, DataType::UInt32, DataType::Int64, DataType::UInt64, DataType::Float32,
           DataType::Float64},
          {Op::Sum, Op::Min, Op::Max},
          {ScanKind::Inclusive, ScanKind::Exclusive}};
}

std::vector<std::uint64_t> untuned_sizes(const db::TuningDb& db, std::string_view model,
                                         const Problem& problem,
                                         const std::vector<std::uint64_t>& sizes) {
  db::BestFilter f;
  f.model = std::string(model);
  f.type = std::string(to_string(problem.type));
  f.op = problem.op_name();
  f.kind = std::string(to_string(problem.kind));
  f.problem = problem.problem();
  std::set<int> tuned;
  for (const db::BestEntry& e : db.list_best(f))
    if (e.op_hash == problem.op_hash()) tuned.insert(e.size_bucket);
  std::vector<std::uint64_t> out;
  for (std::uint64_t n : sizes)
    if (!tuned.count(db::size_bucket(n))) out.push_back(n);
  return out;
}

} // namespace scantune::tuner

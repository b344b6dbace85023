// Simulation mode: replays the recorded measurements of one problem on one device
// model as if they were being timed now.
#include "tuner/search/simulated_evaluator.hpp"

#include <set>

#include <fmt/format.h>

#include "errors.hpp"

namespace scantune::tuner {
namespace {

Result to_result(const db::Measurement& m) {
  Result r = from_measurement(m);
  // The DB keeps no quartiles; a quarter of the full range stands in for the IQR.
  if (r.median_ns > 0) r.noise = (r.max_ns - r.min_ns) / r.median_ns / 4;
  return r;
}

std::string join(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names)
    out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

} // namespace

SimulatedEvaluator::SimulatedEvaluator(const db::TuningDb& recorded, const Problem& problem,
                                       std::string model) {
  db::MeasurementFilter filter;
  filter.type = std::string(to_string(problem.type));
  filter.op = problem.op_name();
  filter.kind = std::string(to_string(problem.kind));
  const std::string op_hash = problem.op_hash();
  std::map<std::int64_t, db::DeviceInfo> devices;
  for (const db::DeviceInfo& d : recorded.list_devices())
    devices.emplace(d.id, d);

  std::vector<db::Measurement> rows;
  std::set<std::string> models; // of the devices that recorded this problem
  for (db::Measurement& m : recorded.list_measurements(filter)) {
    auto dev = devices.find(m.device_id);
    if (m.op_hash != op_hash || m.problem != problem.problem() || dev == devices.end()) continue;
    models.insert(dev->second.model());
    rows.push_back(std::move(m));
  }
  const std::string where = fmt::format("{} in {}", problem.label(), recorded.path().string());
  if (models.empty()) detail::fail("simulation: no recorded measurements of {}", where);
  if (model.empty()) {
    if (models.size() > 1)
      detail::fail("simulation: {} holds several device models ({}); choose one", where,
                   join(models));
    model = *models.begin();
  } else if (!models.count(model)) {
    detail::fail("simulation: no measurements of device model '{}' for {} (recorded: {})", model,
                 where, join(models));
  }

  std::map<std::pair<std::string, std::uint64_t>, std::pair<std::int64_t, int>>
      chosen; // id, samples
  for (const db::Measurement& m : rows) {
    const db::DeviceInfo& dev = devices.at(m.device_id);
    if (dev.model() != model) continue;
    if (device_.id == 0) device_ = dev;
    Result r;
    try {
      r = to_result(m);
    } catch (const Error&) {
      continue; // a key this version cannot parse: never a candidate here anyway
    }
    // The most samples is the most trustworthy timing; among equals, the latest.
    std::pair<std::string, std::uint64_t> key{r.policy.key(), m.size};
    auto it = chosen.find(key);
    if (it != chosen.end() &&
        std::make_pair(m.samples, m.id) < std::make_pair(it->second.second, it->second.first))
      continue;
    chosen[key] = {m.id, m.samples};
    recorded_[key] = std::move(r);
  }
}

Result SimulatedEvaluator::measure(const Policy& policy, std::uint64_t n, Effort /*effort*/,
                                   double limit_ns) {
  ++calls_;
  auto it = recorded_.find({policy.key(), n});
  if (it == recorded_.end()) {
    Result r;
    r.policy = policy;
    r.size = n;
    r.status = db::MeasurementStatus::Rejected;
    r.message = "not recorded";
    return r;
  }
  Result r = it->second;
  if (r.ok() && limit_ns > 0 && r.median_ns > limit_ns) {
    r.status = db::MeasurementStatus::Timeout;
    r.message = fmt::format("slower than the time limit of {:.0f} ns", limit_ns);
    simulated_ns_ += limit_ns; // the GPU evaluator gives up after about one call
  } else if (r.ok()) {
    simulated_ns_ += r.median_ns * r.samples;
  }
  return r;
}

std::optional<Result> SimulatedEvaluator::best_recorded(std::uint64_t n) const {
  std::optional<Result> best;
  for (const auto& [key, r] : recorded_)
    if (key.second == n && r.ok() && (!best || r.median_ns < best->median_ns)) best = r;
  return best;
}

std::vector<std::uint64_t> SimulatedEvaluator::recorded_sizes() const {
  std::set<std::uint64_t> sizes;
  for (const auto& entry : recorded_)
    sizes.insert(entry.first.second);
  return {sizes.begin(), sizes.end()};
}

} // namespace scantune::tuner

// The recorder of a tuning run, and the interrupt flag it stops on (tune.hpp).
#include "tuner/run/recorder.hpp"

#include <atomic>
#include <cstdlib>

#include "tuner/run/tune.hpp"

namespace scantune::tuner {
namespace {

std::atomic<bool> g_interrupt{false};
std::uint64_t g_new_measurements = 0; // across problems: the unit of the test hook

db::Measurement to_measurement(const Result& r, const Problem& p, std::int64_t run,
                               std::int64_t device) {
  db::Measurement m;
  m.run_id = run;
  m.device_id = device;
  m.type = std::string(to_string(p.type));
  m.op = p.op_name();
  m.op_hash = p.op_hash();
  m.kind = std::string(to_string(p.kind));
  m.problem = p.problem();
  m.size = r.size;
  m.policy = r.policy.key();
  m.status = r.status;
  if (r.samples > 0) {
    m.median_ns = r.median_ns;
    m.min_ns = r.min_ns;
    m.max_ns = r.max_ns;
    m.gbs = gbs_of(p, r.size, r.median_ns);
  }
  m.samples = r.samples;
  m.registers = r.registers;
  m.spill_bytes = r.spill_bytes;
  m.message = r.message;
  return m;
}

} // namespace

void request_interrupt() noexcept {
  g_interrupt.store(true);
}
bool interrupt_requested() noexcept {
  return g_interrupt.load();
}
void clear_interrupt() noexcept {
  g_interrupt.store(false);
  g_new_measurements = 0;
}

double gbs_of(const Problem& p, std::uint64_t n, double ns) {
  return ns > 0 ? p.bytes(n) / ns : 0; // read + write (+ head flags)
}

Recorder::Recorder(Evaluator& inner, db::TuningDb& db, std::int64_t run, std::int64_t device,
                   const Problem& problem, Progress& progress, Memo memo)
    : inner_(inner), db_(db), run_(run), device_(device), problem_(problem), progress_(progress),
      memo_(std::move(memo)) {
  // Test hook: behave as if Ctrl-C came after this many new measurements.
  if (const char* s = std::getenv("SCANTUNE_TEST_INTERRUPT_AFTER"))
    interrupt_after_ = std::strtoull(s, nullptr, 10);
}

Result Recorder::measure(const Policy& policy, std::uint64_t n, Effort effort, double limit_ns) {
  if (interrupt_requested()) throw Interrupted();
  if (auto it = memo_.find({policy.key(), n}); it != memo_.end() && !it->second.empty()) {
    Result r = std::move(it->second.front());
    it->second.pop_front();
    ++replayed_;
    progress_.step(r);
    return r;
  }
  Result r = inner_.measure(policy, n, effort, limit_ns);
  db_.add_measurement(to_measurement(r, problem_, run_, device_));
  ++measured_;
  progress_.step(r);
  if (interrupt_after_ && ++g_new_measurements >= interrupt_after_) request_interrupt();
  return r;
}

} // namespace scantune::tuner

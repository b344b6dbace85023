// Placeholder while the orchestrator is written.
#include "tuner/tune.hpp"

#include <atomic>

namespace scantune::tuner {
namespace {
std::atomic<bool> g_interrupt{false};
}
void request_interrupt() noexcept {
  g_interrupt.store(true);
}
bool interrupt_requested() noexcept {
  return g_interrupt.load();
}
int run_tune(const TuneOptions&, std::FILE*) {
  return 1;
}
} // namespace scantune::tuner

#include "tuner/search/residency.hpp"

#include <algorithm>

namespace scantune::tuner {

std::vector<Policy> residency_neighbours(const Policy& p, int registers, const ScanTypes& types,
                                         const detail::SmLimits& sm) {
  if (p.min_blocks != 0 || registers <= 0) return {};
  const std::size_t shared = p.shared_bytes(types.acc) + p.dynamic_shared_bytes(types);
  const detail::Residency r = detail::resident_blocks(sm, registers, shared, p.launch_threads());
  const int most = std::min({r.by_shared, r.by_threads, sm.blocks});
  std::vector<Policy> out;
  for (int blocks : {r.by_registers + 1, most}) {
    if (blocks <= r.by_registers || blocks > most) continue;
    Policy q = p;
    q.min_blocks = blocks;
    if (!q.invalid_reason(types) && (out.empty() || out.back() != q)) out.push_back(q);
  }
  return out;
}

} // namespace scantune::tuner

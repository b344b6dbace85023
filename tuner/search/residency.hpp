// Residency neighbours (`scantune tune --min-blocks auto`): a winner whose registers
// let fewer of its blocks onto an SM than its shared memory and threads would is timed
// again with a minimum of more blocks in its launch bounds, so ptxas budgets fewer
// registers for it. `scantune compile` shows which shapes registers bind (many of the
// H100 table's segmented and converting winners); whether more blocks pay is what the
// duel of the refinement decides.
#pragma once

#include <vector>

#include "kernel_resources.hpp"
#include "policy.hpp"
#include "scantune/scantune.hpp"

namespace scantune::tuner {

/// The min_blocks variants of `p` worth timing when its kernels use `registers`: one
/// block more than the registers hold, and as many as shared memory, threads and the
/// SM's block limit hold, if more (at most two, valid for `types`). None where the
/// registers do not bind, or `p` has a minimum already.
std::vector<Policy> residency_neighbours(const Policy& p, int registers, const ScanTypes& types,
                                         const detail::SmLimits& sm);

} // namespace scantune::tuner

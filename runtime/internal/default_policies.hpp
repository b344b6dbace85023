// The heuristic policy: the dispatcher's last fallback, for GPUs whose
// architecture has neither tuning-database entries nor a built-in table.
#pragma once

#include "policy.hpp"

namespace scantune::detail {

/// The policy a scan of `n` elements of `type` runs when nothing else is known.
Policy default_policy(DataType type, std::size_t n);

} // namespace scantune::detail

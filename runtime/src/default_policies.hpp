// Built-in policies, used where nothing was tuned (until the dispatcher reads
// the tuning database).
#pragma once

#include "scantune/policy.hpp"

namespace scantune::detail {

/// The policy a scan of `n` elements of `type` runs when nothing else is known.
Policy default_policy(DataType type, std::size_t n);

} // namespace scantune::detail

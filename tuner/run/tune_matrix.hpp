// `scantune tune --all`: the standard problem matrix, and what of it a database
// already holds, so that running the same command again resumes where it stopped.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "cache/tuning_db.hpp"
#include "scantune/scantune.hpp"
#include "tuner/search/problem.hpp"

namespace scantune::tuner {

/// The standard matrix's dimensions: every numeric type, sum/min/max, both kinds.
struct StandardMatrix {
  std::vector<DataType> types;
  std::vector<Op> ops;
  std::vector<ScanKind> kinds;
};
StandardMatrix standard_matrix();

/// The sizes of `sizes` whose bucket has no stored winner for `problem` on GPU
/// model `model`, in their order: what a resumed --all run still has to tune.
std::vector<std::uint64_t> untuned_sizes(const db::TuningDb& db, std::string_view model,
                                         const Problem& problem,
                                         const std::vector<std::uint64_t>& sizes);

} // namespace scantune::tuner

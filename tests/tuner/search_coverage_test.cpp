// The default search covers the built-in table: every policy the shipped table
// dispatches is a candidate of the default space at the size it won, so a
// from-scratch tune on a new GPU model can reach what the hand-tuned table reaches.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "builtin_table.hpp"
#include "common/spec_sets.hpp"
#include "default_policies.hpp"
#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "segments.hpp"
#include "sort_policy.hpp"
#include "tuner/search/primitive_space.hpp"
#include "tuner/search/residency.hpp"
#include "tuner/search/search_space.hpp"

namespace scantune::tuner {
namespace {

// A table row's scan types: its element type, or a converting problem's ("@int16:int32:int16").
ScanTypes row_types(const detail::BuiltinEntry& e) {
  const std::string_view problem = e.problem;
  const bool converts = !problem.empty() && problem.front() == '@';
  return converts ? parse_scan_types(problem.substr(1)) : scan_types(e.type);
}

// The candidate keys of the default space for a table row's problem (enumerated once
// per scan types).
const std::set<std::string>& default_keys(const detail::BuiltinEntry& e) {
  static std::map<std::string, std::set<std::string>> cache;
  const ScanTypes types = row_types(e);
  auto [it, fresh] = cache.try_emplace(to_string(types));
  if (fresh)
    for (const Policy& p : enumerate(types, default_space()))
      it->second.insert(p.key());
  return it->second;
}

// Whether a compaction or sort row's policy is a candidate of `scantune tune --select`
// or `--sort` with default settings; nothing for a scan row.
std::optional<bool> primitive_candidate(const detail::BuiltinEntry& e) {
  if (const auto values = detail::parse_sort_problem(e.problem)) {
    for (const detail::SortPolicy& p : sort_candidates(e.type, *values, default_sort_space()))
      if (p.key() == e.policy) return true;
    return false;
  }
  const auto heads = detail::parse_heads(e.problem);
  if (!heads || !detail::is_compaction(*heads)) return std::nullopt;
  for (const Policy& p : select_candidates(e.type, *heads, select_space()))
    if (p.key() == e.policy) return true;
  return false;
}

// A table key with a min_blocks bound the grid does not hold (.mb3 where the grid has
// 0) is reached as a residency neighbour: its shape without the bound is a default
// candidate, and some register count of that shape gives this bound on the row's GPU.
// Returns the key the grid must hold.
std::string grid_key(const detail::BuiltinEntry& e, const Policy& p, const SpaceOptions& space) {
  if (p.min_blocks == 0 || default_keys(e).count(p.key())) return p.key();
  Policy base = p;
  base.min_blocks = 0;
  const ScanTypes types = row_types(e);
  bool reached = false;
  const auto sm = detail::sm_limits(e.arch);
  for (int registers = 16; sm && space.residency_neighbours && registers <= 255 && !reached;
       ++registers)
    for (const Policy& q : residency_neighbours(base, registers, types, *sm))
      reached = reached || q == p;
  EXPECT_TRUE(reached) << "no residency neighbour of " << base.key() << ": " << p.key();
  return base.key();
}

// The sizes each problem of the table was tuned at (a row's model, type, op, kind and
// problem).
std::string problem_of(const detail::BuiltinEntry& e) {
  return std::string(e.model) + "|" + std::string(to_string(e.type)) + "|" +
         std::string(to_string(e.op)) + "|" + std::string(to_string(e.kind)) + "|" + e.problem;
}
std::map<std::string, std::set<std::uint64_t>> tuned_sizes() {
  std::map<std::string, std::set<std::uint64_t>> sizes;
  for (const detail::BuiltinEntry& e : detail::builtin_table())
    sizes[problem_of(e)].insert(e.size);
  return sizes;
}

TEST(SearchCoverage, DefaultSearchReachesEveryBuiltinPolicy) {
  const SpaceOptions space = default_space();
  const auto sizes = tuned_sizes();
  std::size_t entries = 0, lower = 0;
  for (const detail::BuiltinEntry& e : detail::builtin_table()) {
    ++entries;
    const std::string where = std::string(to_string(e.type)) + " " + std::string(to_string(e.op)) +
                              " " + std::string(to_string(e.kind)) + " " + e.problem +
                              " n=" + std::to_string(e.size) + " (" + e.model + "): " + e.policy;
    if (const auto found = primitive_candidate(e)) {
      EXPECT_TRUE(*found) << "not a default candidate of tune --select/--sort: " << where;
      continue;
    }
    const Policy p = Policy::parse(e.policy);
    EXPECT_EQ(p.key(), e.policy) << where;
    EXPECT_TRUE(default_keys(e).count(grid_key(e, p, space)))
        << "not in the default space: " << where;
    // A half-octave row may hold a winner of the whole octave above or below it (the
    // checks between sizes settle midpoints with those: docs/tuner.md), and any row a
    // winner of another size of its problem, which the tune times at each size (its
    // cross-check of neighbouring sizes' winners: a tile loop won at 2^24 may win 2^20).
    const bool midpoint = (e.size & (e.size - 1)) != 0;
    const std::uint64_t below = std::uint64_t{1} << (63 - __builtin_clzll(e.size));
    auto timed_at_another_size = [&](const Policy& q) {
      for (std::uint64_t n : sizes.at(problem_of(e)))
        if (applies_at(q, n, space)) return true;
      return false;
    };
    EXPECT_TRUE(applies_at(p, e.size, space) ||
                (midpoint && (applies_at(p, below, space) || applies_at(p, 2 * below, space))) ||
                timed_at_another_size(p))
        << "not timed at its size: " << where;
    // A bucket's lower winner: a default candidate timed at the bucket's sizes below.
    if (*e.lower_policy) {
      ++lower;
      const Policy q = Policy::parse(e.lower_policy);
      EXPECT_EQ(q.key(), e.lower_policy) << where;
      EXPECT_TRUE(default_keys(e).count(grid_key(e, q, space)))
          << "lower winner not in the default space: " << where << ", lower " << e.lower_policy;
      EXPECT_TRUE(applies_at(q, e.lower_upto, space) || timed_at_another_size(q))
          << where << ", lower " << e.lower_policy;
    }
  }
  // A table that failed to embed would pass vacuously.
  EXPECT_GT(entries, 200u);
  EXPECT_GT(lower, 0u);
}

// Untuned converting scans run converted_policy's shapes: a tune of the converting
// problem must be able to reach them (here from a bulk accumulator shape, which
// gives the bulk converting shapes at large n).
TEST(SearchCoverage, DefaultSearchReachesConvertedShapes) {
  const SpaceOptions space = default_space();
  const Policy tuned = Policy::parse("lookback_bulk.tpb256.ipt32.vec4.warp_scans.st7");
  for (const ScanTypes& t : test::converting_types())
    for (std::size_t n : {std::size_t{1} << 22, std::size_t{1} << 28}) {
      const Policy p = detail::converted_policy(tuned, t, n);
      std::set<std::string> keys;
      for (const Policy& q : enumerate(t, space))
        keys.insert(q.key());
      EXPECT_TRUE(keys.count(p.key())) << to_string(t) << " n=" << n << ": " << p.key();
      EXPECT_TRUE(applies_at(p, n, space)) << to_string(t) << " n=" << n << ": " << p.key();
    }
}

TEST(SearchCoverage, PipelinedShapesAreLookbackPipelinedOnly) {
  const auto pipelined_only = [](const Policy& p) {
    return p.block_threads == 384 || p.items_per_thread == 10;
  };
  std::size_t pipelined = 0;
  for (const Policy& p : enumerate(DataType::Int64, default_space()))
    if (pipelined_only(p)) {
      EXPECT_EQ(p.algorithm, Algorithm::LookbackPipelined) << p.key();
      ++pipelined;
    }
  EXPECT_GT(pipelined, 0u);
}

TEST(SearchCoverage, AGivenListReplacesThePipelinedShapes) {
  SpaceOptions space = default_space();
  for (const SpaceField& f : space_fields()) {
    if (f.option == "--block-threads") f.apply(space, "256,512", f.option);
    if (f.option == "--items-per-thread") f.apply(space, "6,12", f.option);
  }
  for (const Policy& p : enumerate(DataType::Float32, space)) {
    EXPECT_TRUE(p.block_threads == 256 || p.block_threads == 512) << p.key();
    EXPECT_TRUE(p.items_per_thread == 6 || p.items_per_thread == 12) << p.key();
  }
}

} // namespace
} // namespace scantune::tuner

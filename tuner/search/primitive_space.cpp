#include "tuner/search/primitive_space.hpp"

#include <algorithm>

#include "algorithms.hpp"

namespace scantune::tuner {

SpaceOptions select_space() {
  SpaceOptions s = default_space();
  // lookback_bulk selects and partitions by flags only (select_bulk_kernel);
  // problem_invalid_reason drops its shapes for the other compactions.
  s.algorithms = {Algorithm::LookbackWarp, Algorithm::LookbackBulk};
  s.block_scans = {BlockScan::WarpScans};
  s.block_threads = {64, 128, 256, 512};
  s.items_per_thread = {8, 12, 16, 24};
  s.vector_bytes = {16};
  s.ios = {TileIO::Transpose, TileIO::WarpTranspose};
  s.streaming = {false};
  s.backoffs_ns = {0};
  s.tile_loops = {false};
  // The compaction tile waits at block barriers around its look-back (half its stall
  // cycles at 2^28 int32) and 56 registers hold 4 blocks of 256 an SM where shared
  // memory holds 5: a bound of 5 blocks is timed beside the compiler's choice. The
  // tune times no residency neighbours (it reads no register counts).
  s.other_fields["min_blocks"] = {0, 5};
  s.residency_neighbours = false;
  return s;
}

std::vector<Policy> select_candidates(DataType type, detail::Heads how, SpaceOptions space) {
  // Narrow items' 16-byte vectors hold 8 or 16 of them: 32 a thread (a thread's
  // selection mask's bits) makes their 8 or 16 KB tiles.
  if (size_of(type) < 4 && std::find(space.items_per_thread.begin(), space.items_per_thread.end(),
                                     32) == space.items_per_thread.end())
    space.items_per_thread.push_back(32);
  std::vector<Policy> out;
  for (const Policy& p : enumerate(type, space)) // staged flags within shared memory too
    if (!detail::stored_problem_invalid_reason(p, type, detail::to_string(how))) out.push_back(p);
  return out;
}

SortSpace default_sort_space() {
  SortSpace s;
  for (const detail::SortField& f : detail::sort_fields())
    s[std::string(f.name)] = f.search;
  return s;
}

bool apply_sort_option(SortSpace& space, std::string_view option, std::string_view text) {
  for (const detail::SortField& f : detail::sort_fields())
    if (f.option == option) {
      space[std::string(f.name)] = parse_int_list(text, option);
      return true;
    }
  return false;
}

std::vector<detail::SortPolicy> sort_candidates(DataType key, std::size_t value_bytes,
                                                const SortSpace& space) {
  std::vector<detail::SortPolicy> out{detail::SortPolicy{}};
  for (const detail::SortField& f : detail::sort_fields()) {
    const auto it = space.find(f.name);
    const std::vector<int>& values = it != space.end() ? it->second : f.search;
    std::vector<detail::SortPolicy> next;
    for (const detail::SortPolicy& p : out)
      for (int v : values) {
        detail::SortPolicy q = p;
        q.*f.member = v;
        next.push_back(q);
      }
    out = std::move(next);
  }
  std::vector<detail::SortPolicy> valid;
  for (const detail::SortPolicy& p : out)
    if (!p.invalid_reason(size_of(key), value_bytes)) valid.push_back(p);
  return valid;
}

} // namespace scantune::tuner

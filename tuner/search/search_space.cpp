// The search space: the default grid, its enumeration, size limits, post-compile
// constraints, grid neighbours, and the parsers of the CLI's size and value lists.
#include "tuner/search/search_space.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "errors.hpp"
#include "policy_fields.hpp"
#include "strings.hpp"

namespace scantune::tuner {
namespace {

constexpr std::array kAllAlgorithms{Algorithm::Sequential,        Algorithm::SingleBlock,
                                    Algorithm::ReduceThenScan,    Algorithm::Chained,
                                    Algorithm::LookbackThread,    Algorithm::LookbackWarp,
                                    Algorithm::LookbackPipelined, Algorithm::LookbackBulk};
constexpr std::array kAllBlockScans{BlockScan::WarpScans, BlockScan::HillisSteele,
                                    BlockScan::Blelloch, BlockScan::BlellochPadded};
constexpr std::uint64_t kMaxSize = std::uint64_t{1} << 40;
constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();

// A whole-token unsigned decimal number, or nothing.
std::optional<std::uint64_t> to_uint(std::string_view s) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// The exponent of "2^k", or nothing for other text.
std::optional<std::uint64_t> power_exponent(std::string_view s) {
  if (s.substr(0, 2) != "2^") return std::nullopt;
  return to_uint(s.substr(2));
}

bool is_pow2(std::uint64_t n) {
  return n != 0 && (n & (n - 1)) == 0;
}

int log2_of(std::uint64_t pow2) {
  int k = 0;
  while ((std::uint64_t{1} << k) < pow2)
    ++k;
  return k;
}

// The vector widths (elements) of the grid for `types`: each byte width that holds
// at least one element of the wider of input and output (vectors move elements as
// they are in memory), plus 1 element (always loadable). lookback_bulk copies byte
// ranges; its vector is only the row layout of a segment: 16 bytes of the wider side.
std::vector<int> vector_widths(const ScanTypes& types, const SpaceOptions& space,
                               Algorithm algorithm = Algorithm::LookbackWarp) {
  const int size = static_cast<int>(std::max(size_of(types.in), size_of(types.out)));
  if (algorithm == Algorithm::LookbackBulk) return {16 / size};
  std::set<int> widths{1};
  for (int bytes : space.vector_bytes) {
    const int w = bytes / size;
    if (w >= 1) widths.insert(w);
  }
  return {widths.begin(), widths.end()};
}

// `list` with the values of `extra` it lacks after it, where `adds`.
std::vector<int> with_extra(std::vector<int> list, const std::vector<int>& extra, bool adds) {
  if (!adds) return list;
  for (int v : extra)
    if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
  return list;
}

// Items per thread of `algorithm`'s grid: lookback_pipelined adds its own, and so does
// lookback_bulk over elements of at most 2 bytes (wider ones would stage 32 KB and more
// per tile).
std::vector<int> items_per_thread(const SpaceOptions& space, Algorithm algorithm,
                                  const ScanTypes& types) {
  const bool narrow = std::max(size_of(types.in), size_of(types.out)) <= 2;
  return with_extra(with_extra(space.items_per_thread, space.pipelined_items_per_thread,
                               algorithm == Algorithm::LookbackPipelined),
                    space.bulk_items_per_thread, algorithm == Algorithm::LookbackBulk && narrow);
}

// The values of a dimension next to `value` (one step down and up in the sorted list).
std::vector<int> adjacent(std::vector<int> list, int value) {
  std::sort(list.begin(), list.end());
  std::vector<int> out;
  auto up = std::upper_bound(list.begin(), list.end(), value);
  auto down = std::lower_bound(list.begin(), list.end(), value);
  if (down != list.begin()) out.push_back(*std::prev(down));
  if (up != list.end()) out.push_back(*up);
  return out;
}

// The stage counts of the grid for `algorithm` (one, unused, where it has none).
const std::vector<int>& stage_counts(Algorithm algorithm, const SpaceOptions& space) {
  static const std::vector<int> none{3};
  if (algorithm == Algorithm::LookbackPipelined) return space.stages;
  if (algorithm == Algorithm::LookbackBulk) return space.bulk_stages;
  return none;
}

template <class T>
bool contains(const std::vector<T>& v, const T& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// A dimension's list as the ints FieldDesc::set takes (enums and flags by number).
template <class T>
std::vector<int> ints(const std::vector<T>& values) {
  std::vector<int> out;
  for (const T v : values)
    out.push_back(static_cast<int>(v));
  return out;
}

// A field's values: a list of `space` as ints.
#define SCANTUNE_SPACE_VALUES(expr)                                                                \
  [](const SpaceOptions& space, [[maybe_unused]] Algorithm algorithm,                              \
     [[maybe_unused]] const ScanTypes& types) { return ints(expr); }
// The parser of a field's option: `space.member = expr`.
#define SCANTUNE_SPACE_PARSE(assignment)                                                           \
  [](SpaceOptions& space, [[maybe_unused]] std::string_view text,                                  \
     [[maybe_unused]] std::string_view option) { assignment; }

// The values of a field kept in SpaceOptions::other_fields, or its defaults.
std::vector<int> other_values(const SpaceOptions& space, std::string_view field) {
  if (auto it = space.other_fields.find(field); it != space.other_fields.end()) return it->second;
  for (const SpaceField& f : space_fields())
    if (f.field == field) return f.default_values;
  return {};
}

// --min-blocks: a list of counts, where "auto" keeps the residency neighbours (the counts,
// 0 when none is given, are still the grid's); a list without it turns them off.
void parse_min_blocks(SpaceOptions& space, std::string_view text, std::string_view option) {
  std::string counts;
  space.residency_neighbours = false;
  for (std::string_view item : detail::split(text, ',', true)) {
    if (item == "auto") {
      space.residency_neighbours = true;
      continue;
    }
    counts += (counts.empty() ? "" : ",") + std::string(item);
  }
  space.other_fields["min_blocks"] =
      counts.empty() ? std::vector<int>{0} : parse_int_list(counts, option);
}

// Enumeration order. Columns: field, values, adjacent steps only (neighbours),
// neighbour order, option, help, parser.
// clang-format off
const std::vector<SpaceField> kSpaceFields{
    {"block_scan", SCANTUNE_SPACE_VALUES(space.block_scans), false, 3, "", "", nullptr, {}},
    {"block_threads",
     SCANTUNE_SPACE_VALUES(with_extra(space.block_threads, space.pipelined_block_threads,
                                      algorithm == Algorithm::LookbackPipelined)),
     true, 0, "--block-threads",
     "Threads per block: A,B,C or A:B (every value) or A:B:x2\n"
     "(geometric). Default: 64,128,256,512,1024 (and 384 for\n"
     "lookback_pipelined). Example: --block-threads 128:512:x2",
     SCANTUNE_SPACE_PARSE(space.block_threads = parse_int_list(text, option);
                          space.pipelined_block_threads.clear()), {}},
    {"items_per_thread",
     SCANTUNE_SPACE_VALUES(items_per_thread(space, algorithm, types)), true, 1,
     "--items-per-thread",
     "Items per thread (1..32; 64 for lookback_bulk), same syntax.\n"
     "Default: 1,2,4,6,8,12,16,20,24,32 (and 10 for lookback_pipelined,\n"
     "64 for lookback_bulk of 1- and 2-byte elements).\n"
     "Example: --items-per-thread 8,12,16",
     SCANTUNE_SPACE_PARSE(space.items_per_thread = parse_int_list(text, option);
                          space.pipelined_items_per_thread.clear();
                          space.bulk_items_per_thread.clear()), {}},
    {"vector_width", SCANTUNE_SPACE_VALUES(vector_widths(types, space, algorithm)), false, 2,
     "--vector-bytes",
     "Bytes per vector load/store (lookback_bulk: always 16).\n"
     "Default: 4,8,16.\n"
     "Example: --vector-bytes 16",
     SCANTUNE_SPACE_PARSE(space.vector_bytes = parse_int_list(text, option)), {}},
    {"tile_io", SCANTUNE_SPACE_VALUES(space.ios), false, 4, "--tile-io",
     "Tile I/O: xpose (block transpose), direct, wxpose (warp transpose);\n"
     "lookback_bulk: xpose (a lane per vector of each row) or direct\n"
     "(a lane per run of vectors). Default: xpose,direct,wxpose.\n"
     "Example: --tile-io wxpose",
     SCANTUNE_SPACE_PARSE(space.ios = parse_tile_ios(text)), {}},
    {"cache", SCANTUNE_SPACE_VALUES(space.streaming), false, 5, "--cache",
     "Cache hints of full-tile accesses: default, streaming (.cs).\n"
     "Default: default,streaming. Example: --cache streaming",
     SCANTUNE_SPACE_PARSE(space.streaming = parse_cache_hints(text)), {}},
    {"backoff_ns", SCANTUNE_SPACE_VALUES(space.backoffs_ns), false, 8, "--backoff",
     "Look-back poll backoff in ns (look-back and chained algorithms).\n"
     "Default: 0,200. Example: --backoff 0,100,400",
     SCANTUNE_SPACE_PARSE(space.backoffs_ns = parse_int_list(text, option)), {}},
    {"lookback_span", SCANTUNE_SPACE_VALUES(space.lookback_spans), false, 6, "--lookback-span",
     "Tiles each lane inspects per warp look-back step (lookback_warp,\n"
     "lookback_pipelined, lookback_bulk), 1..8. Default: 1.\n"
     "Example: --lookback-span 1,2,4",
     SCANTUNE_SPACE_PARSE(space.lookback_spans = parse_int_list(text, option)), {}},
    {"stages", SCANTUNE_SPACE_VALUES(stage_counts(algorithm, space)), false, 7, "--stages",
     "Shared-memory tile stages of lookback_pipelined (stages - 2 copies\n"
     "in flight) and lookback_bulk, 3..8. Default: 3 (pipelined), 4,6,7,8\n"
     "(bulk). Example: --stages 3,4",
     SCANTUNE_SPACE_PARSE(space.stages = space.bulk_stages = parse_int_list(text, option)), {}},
    {"tile_loop", SCANTUNE_SPACE_VALUES(space.tile_loops), false, 9, "--tile-loop",
     "One wave of blocks looping over the tiles (.loop) instead of one\n"
     "block per tile (chained, lookback_thread, lookback_warp): off, on.\n"
     "Default: off,on (on timed from 2^21 up). Example: --tile-loop off",
     SCANTUNE_SPACE_PARSE(space.tile_loops = parse_tile_loops(text)), {}},
    {"min_blocks", SCANTUNE_SPACE_VALUES(other_values(space, "min_blocks")), false, 10,
     "--min-blocks",
     "Minimum resident blocks per SM the compiler budgets registers for\n"
     "(__launch_bounds__), 0..32; 0 leaves it to the compiler. 'auto': also\n"
     "time each winner whose registers bind the blocks an SM holds with more\n"
     "of them (after the search); a list without it does not. Default: 0,auto.\n"
     "Example: --min-blocks 0,2",
     SCANTUNE_SPACE_PARSE(parse_min_blocks(space, text, option)), {0}},
    {"early_release", SCANTUNE_SPACE_VALUES(other_values(space, "early_release")), false, 11,
     "--early-release",
     "lookback_bulk's consumers hand a stage back once they hold their\n"
     "segment in registers, before its prefix comes (.early): off, on.\n"
     "Default: off,on. Example: --early-release on",
     SCANTUNE_SPACE_PARSE(space.other_fields["early_release"] = ints(parse_early_release(text))),
     {0, 1}},
    {"tiles_per_ticket", SCANTUNE_SPACE_VALUES(other_values(space, "tiles_per_ticket")), false, 12,
     "--tiles-per-ticket",
     "Consecutive tiles a lookback_bulk ticket gives a block (.tk<N>), 1..8:\n"
     "only the first looks back. Default: 1,2. Example: --tiles-per-ticket 1",
     SCANTUNE_SPACE_PARSE(space.other_fields["tiles_per_ticket"] = parse_int_list(text, option)),
     {1, 2}},
};
// clang-format on

#undef SCANTUNE_SPACE_VALUES
#undef SCANTUNE_SPACE_PARSE

} // namespace

const std::vector<SpaceField>& space_fields() {
  return kSpaceFields;
}

namespace {

const detail::FieldDesc& field_of(const SpaceField& f) {
  return detail::field_named(f.field);
}

// Each dimension's values for `algorithm`: its list where the algorithm takes the
// field, else just the field's default.
std::vector<std::vector<int>> dimension_values(Algorithm algorithm, const ScanTypes& types,
                                               const SpaceOptions& space) {
  std::vector<std::vector<int>> lists;
  for (const SpaceField& sf : space_fields()) {
    const detail::FieldDesc& f = field_of(sf);
    lists.push_back(f.takes(detail::describe(algorithm)) ? sf.values(space, algorithm, types)
                                                         : std::vector<int>{f.default_value});
  }
  return lists;
}

} // namespace

SpaceOptions default_space() {
  SpaceOptions s;
  s.algorithms = {Algorithm::SingleBlock,  Algorithm::ReduceThenScan,    Algorithm::LookbackThread,
                  Algorithm::LookbackWarp, Algorithm::LookbackPipelined, Algorithm::LookbackBulk};
  s.block_scans = {kAllBlockScans.begin(), kAllBlockScans.end()};
  s.block_threads = {64, 128, 256, 512, 1024};
  s.items_per_thread = {1, 2, 4, 6, 8, 12, 16, 20, 24, 32};
  s.pipelined_block_threads = {384};
  s.pipelined_items_per_thread = {10};
  s.bulk_items_per_thread = {64};
  s.vector_bytes = {4, 8, 16};
  s.ios = {TileIO::Transpose, TileIO::Direct, TileIO::WarpTranspose};
  s.streaming = {false, true};
  s.lookback_spans = {1}; // wider steps measured slower on the H100 (docs/performance.md)
  s.stages = {3};
  s.bulk_stages = {4, 6, 7, 8};
  s.backoffs_ns = {0, 200};
  s.tile_loops = {false, true};
  return s;
}

void apply_algorithms(SpaceOptions& options, std::string_view list) {
  SpaceOptions space = options; // assigned back only when the whole list parses
  std::vector<Algorithm> algorithms;
  std::vector<BlockScan> block_scans;
  for (std::string_view name : detail::split(list, ',', true)) {
    if (name == "default") {
      const SpaceOptions d = default_space();
      space.algorithms = d.algorithms;
      space.block_scans = d.block_scans;
      space.single_block_max_n = d.single_block_max_n;
      space.hillis_steele_max_n = d.hillis_steele_max_n;
      space.pipelined_min_n = d.pipelined_min_n;
      space.bulk_min_n = d.bulk_min_n;
      space.tile_loop_min_n = d.tile_loop_min_n;
      continue;
    }
    if (name == "all") {
      space.algorithms = {kAllAlgorithms.begin(), kAllAlgorithms.end()};
      space.block_scans = {kAllBlockScans.begin(), kAllBlockScans.end()};
      space.single_block_max_n = space.hillis_steele_max_n = kNoLimit;
      space.pipelined_min_n = space.bulk_min_n = space.tile_loop_min_n = 0;
      continue;
    }
    auto a = std::find_if(kAllAlgorithms.begin(), kAllAlgorithms.end(),
                          [&](Algorithm x) { return to_string(x) == name; });
    auto b = std::find_if(kAllBlockScans.begin(), kAllBlockScans.end(),
                          [&](BlockScan x) { return to_string(x) == name; });
    if (a != kAllAlgorithms.end()) {
      if (!contains(algorithms, *a)) algorithms.push_back(*a);
      // Asking for it by name means wanting it timed at every size.
      if (*a == Algorithm::SingleBlock) space.single_block_max_n = kNoLimit;
      if (*a == Algorithm::LookbackPipelined) space.pipelined_min_n = 0;
      if (*a == Algorithm::LookbackBulk) space.bulk_min_n = 0;
    } else if (b != kAllBlockScans.end()) {
      if (!contains(block_scans, *b)) block_scans.push_back(*b);
      if (*b == BlockScan::HillisSteele) space.hillis_steele_max_n = kNoLimit;
    } else {
      std::string names = "default, all";
      for (Algorithm x : kAllAlgorithms)
        names += fmt::format(", {}", to_string(x));
      for (BlockScan x : kAllBlockScans)
        names += fmt::format(", {}", to_string(x));
      detail::fail("--algorithms: unknown algorithm or block scan '{}' in '{}' (expected: {})",
                   name, list, names);
    }
  }
  if (!algorithms.empty()) space.algorithms = algorithms;
  if (!block_scans.empty()) space.block_scans = block_scans;
  options = space;
}

std::vector<Policy> enumerate(const ScanTypes& types, const SpaceOptions& space) {
  std::vector<Policy> out;
  std::set<std::string> seen;
  auto add = [&](const Policy& p) {
    if (!p.invalid_reason(types) && seen.insert(p.key()).second) out.push_back(p);
  };
  for (Algorithm algorithm : space.algorithms) {
    if (!detail::describe(algorithm).tiles) {
      add(Policy::sequential());
      continue;
    }
    Policy p;
    p.algorithm = algorithm;
    const auto lists = dimension_values(algorithm, types, space);
    // An odometer over the dimensions, the last one turning fastest.
    std::vector<std::size_t> at(lists.size(), 0);
    if (std::any_of(lists.begin(), lists.end(), [](const auto& l) { return l.empty(); })) continue;
    for (;;) {
      for (std::size_t d = 0; d < lists.size(); ++d)
        field_of(space_fields()[d]).set(p, lists[d][at[d]]);
      add(p);
      std::size_t d = lists.size();
      while (d > 0 && ++at[d - 1] == lists[d - 1].size())
        at[--d] = 0;
      if (d == 0) break;
    }
  }
  return out;
}

bool applies_at(const Policy& policy, std::uint64_t n, const SpaceOptions& space) {
  if (policy.algorithm == Algorithm::SingleBlock && n > space.single_block_max_n) return false;
  if (policy.algorithm == Algorithm::LookbackPipelined && n < space.pipelined_min_n) return false;
  if (policy.algorithm == Algorithm::LookbackBulk && n < space.bulk_min_n) return false;
  if (policy.tile_loop && n < space.tile_loop_min_n) return false;
  if (policy.algorithm != Algorithm::Sequential && policy.block_scan == BlockScan::HillisSteele &&
      n > space.hillis_steele_max_n)
    return false;
  return true;
}

std::optional<std::string> kernel_constraint(const Policy& policy,
                                             const std::vector<cudaFuncAttributes>& kernels,
                                             std::size_t dynamic_bytes, std::size_t shared_limit) {
  constexpr long kRegistersPerBlock = 65536;
  const long threads = policy.launch_threads();
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const cudaFuncAttributes& a = kernels[i];
    if (a.maxThreadsPerBlock < threads)
      return fmt::format("kernel {}: launches at most {} threads per block, the policy needs {}", i,
                         a.maxThreadsPerBlock, threads);
    if (static_cast<long>(a.numRegs) * threads > kRegistersPerBlock)
      return fmt::format("kernel {}: {} registers x {} threads exceed the {} registers of a block",
                         i, a.numRegs, threads, kRegistersPerBlock);
    if (a.localSizeBytes > kMaxTimedSpillBytes)
      return fmt::format("kernel {}: spills {} bytes per thread to local memory (more than {})", i,
                         a.localSizeBytes, kMaxTimedSpillBytes);
    if (i == 0 && a.sharedSizeBytes + dynamic_bytes > shared_limit)
      return fmt::format("kernel {}: needs {} bytes of shared memory per block, the device "
                         "allows {}",
                         i, a.sharedSizeBytes + dynamic_bytes, shared_limit);
  }
  return std::nullopt;
}

std::vector<Policy> neighbours(const Policy& policy, const ScanTypes& types,
                               const SpaceOptions& space) {
  std::vector<Policy> out;
  if (policy.algorithm == Algorithm::Sequential) return out;
  std::set<std::string> seen{policy.key()};
  auto add = [&](const Policy& p) {
    if (!p.invalid_reason(types) && seen.insert(p.key()).second) out.push_back(p);
  };
  // One dimension at a time: its neighbouring values (or all), in neighbour order.
  std::vector<std::size_t> order(space_fields().size());
  for (std::size_t d = 0; d < order.size(); ++d)
    order[static_cast<std::size_t>(space_fields()[d].neighbour_rank)] = d;
  const auto lists = dimension_values(policy.algorithm, types, space);
  for (std::size_t d : order) {
    const detail::FieldDesc& f = field_of(space_fields()[d]);
    if (!f.takes(detail::describe(policy.algorithm))) continue;
    Policy p = policy;
    for (int v : space_fields()[d].adjacent ? adjacent(lists[d], f.get(policy)) : lists[d]) {
      f.set(p, v);
      add(p);
    }
  }
  // The other look-back variants of the same shape.
  const std::vector<Algorithm> lookbacks{Algorithm::LookbackThread, Algorithm::LookbackWarp,
                                         Algorithm::LookbackPipelined, Algorithm::LookbackBulk};
  if (contains(lookbacks, policy.algorithm)) {
    std::vector<Algorithm> listed;
    for (Algorithm a : lookbacks)
      if (contains(space.algorithms, a)) listed.push_back(a);
    Policy p = policy;
    for (Algorithm a : listed) {
      p.algorithm = a;
      add(p);
    }
  }
  return out;
}

std::vector<TileIO> parse_tile_ios(std::string_view text) {
  std::vector<TileIO> out;
  for (std::string_view name : detail::split(text, ',', true))
    if (!contains(out, parse_tile_io(name))) out.push_back(parse_tile_io(name));
  return out;
}

namespace {
// A list of two names for a flag's values ("default,streaming"); `what` names an entry.
std::vector<bool> parse_flag_list(std::string_view text, std::string_view what,
                                  std::string_view off, std::string_view on) {
  std::vector<bool> out;
  for (std::string_view name : detail::split(text, ',', true)) {
    if (name != off && name != on)
      detail::fail("unknown {} '{}' (expected one of: {}, {})", what, name, off, on);
    if (!contains(out, name == on)) out.push_back(name == on);
  }
  return out;
}
} // namespace

std::vector<bool> parse_cache_hints(std::string_view text) {
  return parse_flag_list(text, "cache hint", "default", "streaming");
}

std::vector<bool> parse_tile_loops(std::string_view text) {
  return parse_flag_list(text, "tile loop", "off", "on");
}

std::vector<bool> parse_early_release(std::string_view text) {
  return parse_flag_list(text, "early stage release", "off", "on");
}

std::vector<std::uint64_t> parse_sizes(std::string_view text) {
  auto bad = [&](std::string_view why) -> std::uint64_t {
    detail::fail("bad size list '{}': {}", text, why);
  };
  // One size: "2^k", "1.5x2^k" or a decimal number, within [1, 2^40].
  auto size_of_text = [&](std::string_view s) -> std::uint64_t {
    const bool half = s.substr(0, 4) == "1.5x";
    if (auto k = power_exponent(half ? s.substr(4) : s)) {
      if (*k > (half ? 39 : 40)) bad(fmt::format("'{}' is above 2^40", s));
      if (half && *k < 1) bad(fmt::format("'{}' is not a whole number", s));
      return half ? std::uint64_t{3} << (*k - 1) : std::uint64_t{1} << *k;
    }
    auto v = to_uint(s);
    if (!v) bad(fmt::format("'{}' is not a size (2^K, 1.5x2^K or a number)", s));
    if (*v < 1 || *v > kMaxSize) bad(fmt::format("'{}' is outside [1, 2^40]", s));
    return *v;
  };
  std::set<std::uint64_t> sizes;
  for (std::string_view item : detail::split(text, ',', true)) {
    if (item.empty()) bad("empty entry");
    const auto f = detail::split(item, ':', true);
    if (f.size() == 1) {
      sizes.insert(size_of_text(item));
      continue;
    }
    if (f.size() > 3) bad(fmt::format("'{}' is not A:B or A:B:STEP", item));
    const std::uint64_t a = size_of_text(f[0]), b = size_of_text(f[1]);
    if (!is_pow2(a) || !is_pow2(b))
      bad(fmt::format("range '{}' needs powers of two as bounds", item));
    if (a > b) bad(fmt::format("range '{}' runs backwards", item));
    // In half octaves: step 0.5 adds the 1.5 x 2^k sizes (the odd size buckets).
    int half_steps = 2;
    if (f.size() == 3) {
      auto s = to_uint(f[2]);
      if (f[2] == "0.5")
        half_steps = 1;
      else if (!s || *s < 1 || *s > 40)
        bad(fmt::format("step '{}' is not an exponent step in [1, 40] or 0.5", f[2]));
      else
        half_steps = static_cast<int>(2 * *s);
    }
    for (int h = 2 * log2_of(a); h <= 2 * log2_of(b); h += half_steps)
      if (h != 1) // 1.5 is no size
        sizes.insert(h % 2 == 0 ? std::uint64_t{1} << (h / 2) : std::uint64_t{3} << (h / 2 - 1));
  }
  return {sizes.begin(), sizes.end()};
}

std::vector<int> parse_int_list(std::string_view text, std::string_view what) {
  auto bad = [&](std::string_view why) -> int {
    detail::fail("bad {} list '{}': {}", what, text, why);
  };
  auto value = [&](std::string_view s) -> int {
    auto v = to_uint(s);
    if (!v || *v > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
      bad(fmt::format("'{}' is not a non-negative integer", s));
    return static_cast<int>(*v);
  };
  std::set<int> values;
  for (std::string_view item : detail::split(text, ',', true)) {
    if (item.empty()) bad("empty entry");
    const auto f = detail::split(item, ':', true);
    if (f.size() == 1) {
      values.insert(value(item));
      continue;
    }
    if (f.size() > 3) bad(fmt::format("'{}' is not A:B, A:B:STEP or A:B:xFACTOR", item));
    const long a = value(f[0]), b = value(f[1]);
    if (a > b) bad(fmt::format("range '{}' runs backwards", item));
    long step = 1, factor = 1;
    if (f.size() == 3) {
      const bool geometric = !f[2].empty() && f[2][0] == 'x';
      const long s = value(geometric ? f[2].substr(1) : f[2]);
      if (geometric ? s < 2 : s < 1) bad(fmt::format("bad step '{}' in '{}'", f[2], item));
      (geometric ? factor : step) = s;
    }
    if (factor > 1 && a == 0) bad(fmt::format("geometric range '{}' starts at 0", item));
    for (long v = a; v <= b; v = factor > 1 ? v * factor : v + step) {
      values.insert(static_cast<int>(v));
      if (values.size() > 4096) bad("more than 4096 values");
    }
  }
  return {values.begin(), values.end()};
}

} // namespace scantune::tuner

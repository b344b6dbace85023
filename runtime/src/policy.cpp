// Names of the public enums, policy keys, parsing and validation. Free of CUDA
// calls: the build-time table generator (runtime/builtin/) compiles it too.
#include "policy.hpp"

#include <array>
#include <charconv>
#include <vector>

#include <fmt/format.h>

#include "errors.hpp"
#include "strings.hpp"

namespace scantune {
namespace {

template <class E, std::size_t N>
std::string_view name_of(const std::array<std::string_view, N>& names, E e) {
  return names.at(static_cast<std::size_t>(e));
}
template <class E, std::size_t N>
E parse_name(const std::array<std::string_view, N>& names, std::string_view s, const char* what) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<E>(i);
  std::string choices;
  for (auto n : names)
    choices += fmt::format("{}{}", choices.empty() ? "" : ", ", n);
  detail::fail("unknown {} '{}' (expected one of: {})", what, s, choices);
}

constexpr std::array<std::string_view, 6> kTypeNames{"int32",  "uint32",  "int64",
                                                     "uint64", "float32", "float64"};
constexpr std::array<std::string_view, 7> kOpNames{"sum",     "product", "min",    "max",
                                                   "bit_and", "bit_or",  "bit_xor"};
constexpr std::array<std::string_view, 4> kMatchNames{"exact", "nearest_size", "same_arch",
                                                      "builtin"};
constexpr std::array<std::string_view, 2> kKindNames{"inclusive", "exclusive"};
constexpr std::array<std::string_view, 8> kAlgorithmNames{
    "sequential",      "single_block",  "reduce_then_scan",   "chained",
    "lookback_thread", "lookback_warp", "lookback_pipelined", "lookback_bulk"};
constexpr std::array<std::string_view, 3> kTileIONames{"xpose", "direct", "wxpose"};
constexpr std::array<std::string_view, 4> kBlockScanNames{"warp_scans", "hillis_steele", "blelloch",
                                                          "blelloch_padded"};

// Parses "<prefix><integer>", e.g. "tpb256".
int prefixed_int(std::string_view token, std::string_view prefix, std::string_view key) {
  int value = 0;
  if (token.substr(0, prefix.size()) == prefix) {
    auto digits = token.substr(prefix.size());
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc() && end == digits.data() + digits.size() && !digits.empty()) return value;
  }
  detail::fail("policy key '{}': expected '{}<number>' but found '{}'", key, prefix, token);
}

std::size_t next_pow2(std::size_t n) {
  std::size_t p = 1;
  while (p < n)
    p <<= 1;
  return p;
}

} // namespace

std::size_t size_of(DataType t) {
  return (t == DataType::Int32 || t == DataType::UInt32 || t == DataType::Float32) ? 4 : 8;
}
std::string_view to_string(DataType t) {
  return name_of(kTypeNames, t);
}
std::string_view to_string(ScanKind k) {
  return name_of(kKindNames, k);
}
std::string_view to_string(Algorithm a) {
  return name_of(kAlgorithmNames, a);
}
std::string_view to_string(BlockScan b) {
  return name_of(kBlockScanNames, b);
}
std::string_view to_string(Op op) {
  return name_of(kOpNames, op);
}
std::string_view to_string(Match m) {
  return name_of(kMatchNames, m);
}
std::string_view to_string(TileIO io) {
  return name_of(kTileIONames, io);
}
TileIO parse_tile_io(std::string_view s) {
  return parse_name<TileIO>(kTileIONames, s, "tile I/O");
}
Op parse_op(std::string_view s) {
  return parse_name<Op>(kOpNames, s, "operator");
}
DataType parse_data_type(std::string_view s) {
  return parse_name<DataType>(kTypeNames, s, "element type");
}
ScanKind parse_scan_kind(std::string_view s) {
  return parse_name<ScanKind>(kKindNames, s, "scan kind");
}
Algorithm parse_algorithm(std::string_view s) {
  return parse_name<Algorithm>(kAlgorithmNames, s, "algorithm");
}
BlockScan parse_block_scan(std::string_view s) {
  return parse_name<BlockScan>(kBlockScanNames, s, "block-scan algorithm");
}

Policy Policy::sequential() {
  Policy p;
  p.algorithm = Algorithm::Sequential;
  p.block_threads = 1;
  p.items_per_thread = 1;
  p.vector_width = 1;
  p.block_scan = BlockScan::WarpScans;
  p.io = TileIO::Direct;
  p.backoff_ns = 0;
  p.streaming = false;
  p.lookback_span = 1;
  p.stages = 3;
  p.tile_loop = false;
  return p;
}

std::string Policy::key() const {
  if (algorithm == Algorithm::Sequential) return "sequential";
  std::string k = fmt::format("{}.tpb{}.ipt{}.vec{}.{}", to_string(algorithm), block_threads,
                              items_per_thread, vector_width, to_string(block_scan));
  if (io != TileIO::Transpose) k += fmt::format(".{}", to_string(io));
  if (streaming) k += ".cs";
  if (backoff_ns != 0) k += fmt::format(".bo{}", backoff_ns);
  if (lookback_span != 1) k += fmt::format(".span{}", lookback_span);
  if (stages != 3) k += fmt::format(".st{}", stages);
  if (tile_loop) k += ".loop";
  return k;
}

Policy Policy::parse(std::string_view key) {
  auto parts = detail::split(key, '.');
  Policy p;
  p.algorithm = parse_algorithm(parts[0]);
  if (p.algorithm == Algorithm::Sequential) {
    if (parts.size() != 1)
      detail::fail("policy key '{}': 'sequential' takes no tile parameters", key);
    return sequential();
  }
  if (parts.size() < 5 || parts.size() > 11)
    detail::fail("policy key '{}': expected "
                 "<algorithm>.tpb<N>.ipt<N>.vec<N>.<block_scan>[.xpose|.direct|.wxpose][.cs][.bo<"
                 "ns>][.span<N>][.st<N>][.loop]",
                 key);
  p.block_threads = prefixed_int(parts[1], "tpb", key);
  p.items_per_thread = prefixed_int(parts[2], "ipt", key);
  p.vector_width = prefixed_int(parts[3], "vec", key);
  p.block_scan = parse_block_scan(parts[4]);
  for (std::size_t i = 5; i < parts.size(); ++i) {
    if (parts[i] == "xpose" || parts[i] == "direct" || parts[i] == "wxpose")
      p.io = parse_tile_io(parts[i]);
    else if (parts[i] == "cs")
      p.streaming = true;
    else if (parts[i] == "loop")
      p.tile_loop = true;
    else if (parts[i].substr(0, 4) == "span")
      p.lookback_span = prefixed_int(parts[i], "span", key);
    else if (parts[i].substr(0, 2) == "st")
      p.stages = prefixed_int(parts[i], "st", key);
    else
      p.backoff_ns = prefixed_int(parts[i], "bo", key);
  }
  return p;
}

std::size_t Policy::tile_items() const {
  return static_cast<std::size_t>(block_threads) * static_cast<std::size_t>(items_per_thread);
}

bool Policy::uses_tile_status() const {
  return algorithm == Algorithm::Chained || algorithm == Algorithm::LookbackThread ||
         algorithm == Algorithm::LookbackWarp || algorithm == Algorithm::LookbackPipelined ||
         algorithm == Algorithm::LookbackBulk;
}

bool Policy::one_tile_per_block() const {
  return algorithm == Algorithm::Chained || algorithm == Algorithm::LookbackThread ||
         algorithm == Algorithm::LookbackWarp;
}

bool Policy::stages_tiles() const {
  return algorithm == Algorithm::LookbackPipelined || algorithm == Algorithm::LookbackBulk;
}

int Policy::launch_threads() const {
  return block_threads + (algorithm == Algorithm::LookbackBulk ? 96 : 0);
}

int Policy::min_arch() const {
  return algorithm == Algorithm::LookbackBulk ? 90 : 80;
}

std::size_t Policy::shared_bytes(DataType t) const {
  if (algorithm == Algorithm::Sequential) return 0;
  const std::size_t size = size_of(t), tpb = static_cast<std::size_t>(block_threads);
  if (algorithm == Algorithm::LookbackBulk) {
    // Per stage: 4 mbarriers, the tile index, each consumer's prefix, aggregate and prefix.
    const std::size_t per_stage = 4 * 8 + 4 + (tpb / 32 + 2) * size;
    return static_cast<std::size_t>(stages) * per_stage + 16;
  }
  // lookback_pipelined's tiles are dynamic (dynamic_shared_bytes).
  std::size_t bytes =
      io != TileIO::Direct && algorithm != Algorithm::LookbackPipelined ? tile_items() * size : 16;
  switch (block_scan) {
  case BlockScan::WarpScans:
    // lookback_pipelined: a second set of warp prefixes (two call sites) and the tile prefix.
    bytes += (algorithm == Algorithm::LookbackPipelined ? 2 * (tpb / 32) + 1 : tpb / 32) * size;
    break;
  case BlockScan::HillisSteele:
    bytes += 2 * tpb * size;
    break;
  case BlockScan::Blelloch:
    bytes += (next_pow2(tpb) + 1) * size;
    break;
  case BlockScan::BlellochPadded:
    bytes += (next_pow2(tpb) + next_pow2(tpb) / 32 + 1) * size;
    break;
  }
  return bytes + 16 + size; // ticket, generation and the broadcast prefix
}

std::size_t Policy::dynamic_shared_bytes(DataType t) const {
  if (!stages_tiles()) return 0;
  return static_cast<std::size_t>(stages) * tile_items() * size_of(t);
}

std::optional<std::string> Policy::invalid_reason(DataType t) const {
  if (algorithm == Algorithm::Sequential) {
    if (block_threads == 1 && items_per_thread == 1 && vector_width == 1 && io == TileIO::Direct &&
        backoff_ns == 0 && !streaming && lookback_span == 1 && stages == 3 && !tile_loop &&
        block_scan == BlockScan::WarpScans)
      return std::nullopt;
    return std::string("sequential takes no tile parameters (use Policy::sequential())");
  }
  if (block_threads < 32 || block_threads > 1024 || block_threads % 32 != 0)
    return fmt::format("block threads {} is not a multiple of 32 in [32, 1024]", block_threads);
  if (items_per_thread < 1 || items_per_thread > 32)
    return fmt::format("items per thread {} is outside [1, 32]", items_per_thread);
  const std::size_t size = size_of(t);
  if (vector_width < 1 || (vector_width & (vector_width - 1)) != 0)
    return fmt::format("vector width {} is not a power of two", vector_width);
  if (static_cast<std::size_t>(vector_width) * size > 16)
    return fmt::format("vector width {} x {} bytes exceeds 16 bytes", vector_width, size);
  if (items_per_thread % vector_width != 0)
    return fmt::format("items per thread {} is not a multiple of the vector width {}",
                       items_per_thread, vector_width);
  if (backoff_ns < 0 || backoff_ns > 1000000)
    return fmt::format("backoff {} ns is outside [0, 1000000]", backoff_ns);
  if (backoff_ns != 0 && !uses_tile_status())
    return fmt::format("a backoff applies only to chained and look-back algorithms, not {}",
                       to_string(algorithm));
  if (lookback_span < 1 || lookback_span > 8)
    return fmt::format("look-back span {} is outside [1, 8]", lookback_span);
  if (lookback_span != 1 && algorithm != Algorithm::LookbackWarp && !stages_tiles())
    return fmt::format("a look-back span applies only to lookback_warp, lookback_pipelined and "
                       "lookback_bulk, not {}",
                       to_string(algorithm));
  if (algorithm == Algorithm::LookbackPipelined && io == TileIO::Direct)
    return std::string("lookback_pipelined stages tiles in shared memory: it needs the xpose or "
                       "wxpose tile I/O, not direct");
  if (stages < 3 || stages > 8)
    return fmt::format("{} shared-memory stages is outside [3, 8]", stages);
  if (stages != 3 && !stages_tiles())
    return fmt::format("shared-memory stages apply only to lookback_pipelined and lookback_bulk, "
                       "not {}",
                       to_string(algorithm));
  if (tile_loop && !one_tile_per_block())
    return fmt::format("a tile loop applies only to chained, lookback_thread and lookback_warp "
                       "(one tile per block), not {}",
                       to_string(algorithm));
  if (algorithm == Algorithm::LookbackBulk) {
    // Its consumers scan rows of shared memory and its copies bypass registers, so
    // the block scan, the tile I/O and the cache hints are not choices.
    if (block_scan != BlockScan::WarpScans || io != TileIO::Transpose || streaming)
      return std::string("lookback_bulk takes the default block scan and tile I/O "
                         "(warp_scans, xpose) without cache hints");
    if (launch_threads() > 1024)
      return fmt::format("lookback_bulk runs block threads + 96 = {} threads per block, more "
                         "than 1024",
                         launch_threads());
  }
  if (shared_bytes(t) > kMaxStaticSharedBytes)
    return fmt::format("needs {} bytes of shared memory for {} (limit {})", shared_bytes(t),
                       to_string(t), kMaxStaticSharedBytes);
  if (shared_bytes(t) + dynamic_shared_bytes(t) > kMaxDynamicSharedBytes)
    return fmt::format("needs {} bytes of shared memory for {} ({} tile stages; the largest "
                       "any GPU allows one block is {})",
                       shared_bytes(t) + dynamic_shared_bytes(t), to_string(t), stages,
                       kMaxDynamicSharedBytes);
  return std::nullopt;
}

} // namespace scantune

// Names of the public enums, and Policy: keys, parsing and validation read from the
// algorithm and field descriptors (algorithms.hpp, policy_fields.hpp). Free of CUDA
// calls: the build-time table generator (runtime/builtin/) compiles it too.
#include "policy.hpp"

#include <array>
#include <charconv>
#include <vector>

#include <fmt/format.h>

#include "algorithms.hpp"
#include "errors.hpp"
#include "policy_fields.hpp"
#include "strings.hpp"

namespace scantune {
namespace {

template <class E, std::size_t N>
std::string_view name_of(const std::array<std::string_view, N>& names, E e) {
  return names.at(static_cast<std::size_t>(e));
}
template <class E>
E parse_name(const std::string_view* names, std::size_t n, std::string_view s,
             std::string_view what) {
  for (std::size_t i = 0; i < n; ++i)
    if (names[i] == s) return static_cast<E>(i);
  std::string choices;
  for (std::size_t i = 0; i < n; ++i)
    choices += fmt::format("{}{}", choices.empty() ? "" : ", ", names[i]);
  detail::fail("unknown {} '{}' (expected one of: {})", what, s, choices);
}
template <class E, std::size_t N>
E parse_name(const std::array<std::string_view, N>& names, std::string_view s, const char* what) {
  return parse_name<E>(names.data(), N, s, what);
}

const std::array<std::string_view, detail::kAlgorithmCount>& algorithm_names() {
  static const auto names = [] {
    std::array<std::string_view, detail::kAlgorithmCount> n;
    for (const auto& a : detail::algorithms())
      n[static_cast<std::size_t>(a.id)] = a.name;
    return n;
  }();
  return names;
}

// The names of an enum field's values (block scan, tile I/O).
std::string_view enum_value_name(std::string_view field, int value) {
  return detail::field_named(field).names[value];
}
int parse_enum_value(const detail::FieldDesc& f, std::string_view s) {
  return parse_name<int>(f.names, static_cast<std::size_t>(f.max + 1), s, f.what);
}
template <class E>
E parse_enum_field(std::string_view field, std::string_view s) {
  return static_cast<E>(parse_enum_value(detail::field_named(field), s));
}

constexpr std::array<std::string_view, 12> kTypeNames{"int32",   "uint32",  "int64",   "uint64",
                                                      "float32", "float64", "int8",    "uint8",
                                                      "int16",   "uint16",  "float16", "bfloat16"};
constexpr std::array<std::string_view, 7> kOpNames{"sum",     "product", "min",    "max",
                                                   "bit_and", "bit_or",  "bit_xor"};
constexpr std::array<std::string_view, 4> kMatchNames{"exact", "nearest_size", "same_arch",
                                                      "builtin"};
constexpr std::array<std::string_view, 2> kKindNames{"inclusive", "exclusive"};

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

} // namespace

std::size_t size_of(DataType t) {
  constexpr std::array<std::size_t, 12> kSizes{4, 4, 8, 8, 4, 8, 1, 1, 2, 2, 2, 2};
  return kSizes.at(static_cast<std::size_t>(t));
}
std::string_view to_string(DataType t) {
  return name_of(kTypeNames, t);
}
std::string_view to_string(ScanKind k) {
  return name_of(kKindNames, k);
}
std::string_view to_string(Algorithm a) {
  return name_of(algorithm_names(), a);
}
std::string_view to_string(BlockScan b) {
  return enum_value_name("block_scan", static_cast<int>(b));
}
std::string_view to_string(Op op) {
  return name_of(kOpNames, op);
}
std::string_view to_string(Match m) {
  return name_of(kMatchNames, m);
}
std::string_view to_string(TileIO io) {
  return enum_value_name("tile_io", static_cast<int>(io));
}
TileIO parse_tile_io(std::string_view s) {
  return parse_enum_field<TileIO>("tile_io", s);
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
  return parse_name<Algorithm>(algorithm_names(), s, "algorithm");
}
BlockScan parse_block_scan(std::string_view s) {
  return parse_enum_field<BlockScan>("block_scan", s);
}

Policy Policy::sequential() {
  Policy p;
  p.algorithm = Algorithm::Sequential;
  for (const detail::FieldDesc& f : detail::policy_fields())
    f.set(p, f.sequential_value);
  return p;
}

std::string Policy::key() const {
  const detail::AlgorithmDesc& a = detail::describe(algorithm);
  std::string k(a.name);
  if (!a.tiles) return k;
  for (const detail::FieldDesc& f : detail::policy_fields()) {
    const int v = f.get(*this);
    const bool shown = f.form == detail::KeyForm::Always ||
                       (f.form == detail::KeyForm::Flag ? v != 0 : v != f.default_value);
    if (!shown) continue;
    k += '.';
    k += f.token;
    if (f.form != detail::KeyForm::Flag) k += detail::key_value(f, v);
  }
  return k;
}

namespace {

// The key syntax of parse errors: "<algorithm>.tpb<N>...<block_scan>[.xpose|...]...".
std::string key_syntax() {
  std::string s = "<algorithm>";
  for (const detail::FieldDesc& f : detail::policy_fields())
    s += f.form != detail::KeyForm::Always ? std::string(f.usage)
         : f.names                         ? fmt::format(".<{}>", f.name)
                                           : fmt::format(".{}<N>", f.token);
  return s;
}

// Sets the optional field that `part` spells; false if none does.
bool parse_optional(Policy& p, std::string_view part, std::string_view key) {
  for (const detail::FieldDesc& f : detail::policy_fields()) {
    if (f.form == detail::KeyForm::EnumName)
      for (int v = f.min; v <= f.max; ++v)
        if (f.names[v] == part) {
          f.set(p, v);
          return true;
        }
    if (f.form == detail::KeyForm::Flag && part == f.token) {
      f.set(p, 1);
      return true;
    }
  }
  for (const detail::FieldDesc& f : detail::policy_fields())
    if (f.form == detail::KeyForm::Number && part.substr(0, f.token.size()) == f.token) {
      f.set(p, prefixed_int(part, f.token, key));
      return true;
    }
  return false;
}

} // namespace

Policy Policy::parse(std::string_view key) {
  auto parts = detail::split(key, '.');
  Policy p;
  p.algorithm = parse_algorithm(parts[0]);
  if (!detail::describe(p.algorithm).tiles) {
    if (parts.size() != 1)
      detail::fail("policy key '{}': '{}' takes no tile parameters", key, parts[0]);
    return sequential();
  }
  const auto& fields = detail::policy_fields();
  std::size_t always = 0;
  for (const detail::FieldDesc& f : fields)
    always += f.form == detail::KeyForm::Always;
  if (parts.size() < 1 + always || parts.size() > 1 + fields.size())
    detail::fail("policy key '{}': expected {}", key, key_syntax());
  for (std::size_t i = 0; i < always; ++i) {
    const detail::FieldDesc& f = fields[i];
    f.set(p,
          f.names ? parse_enum_value(f, parts[i + 1]) : prefixed_int(parts[i + 1], f.token, key));
  }
  for (std::size_t i = 1 + always; i < parts.size(); ++i)
    if (!parse_optional(p, parts[i], key))
      detail::fail("policy key '{}': unknown part '{}' (expected {})", key, parts[i], key_syntax());
  return p;
}

std::size_t Policy::tile_items() const {
  return static_cast<std::size_t>(block_threads) * static_cast<std::size_t>(items_per_thread);
}

bool Policy::uses_tile_status() const {
  return detail::describe(algorithm).uses_tile_status;
}

bool Policy::one_tile_per_block() const {
  return detail::describe(algorithm).one_tile_per_block;
}

bool Policy::stages_tiles() const {
  return detail::describe(algorithm).stages_tiles;
}

int Policy::launch_threads() const {
  return block_threads + detail::describe(algorithm).extra_threads;
}

int Policy::min_arch() const {
  return detail::describe(algorithm).min_arch;
}

std::size_t Policy::shared_bytes(DataType t) const {
  return detail::describe(algorithm).shared_bytes(*this, size_of(t));
}

std::size_t Policy::dynamic_shared_bytes(DataType t) const {
  return detail::dynamic_shared_bytes(*this, size_of(t));
}

std::size_t Policy::dynamic_shared_bytes(const ScanTypes& types) const {
  return detail::dynamic_shared_bytes(*this, types);
}

std::optional<std::string> Policy::invalid_reason(DataType t) const {
  return invalid_reason(ScanTypes{t, t, t});
}

std::optional<std::string> Policy::invalid_reason(const ScanTypes& types) const {
  const DataType t = types.acc;
  const detail::AlgorithmDesc& a = detail::describe(algorithm);
  if (!a.tiles) {
    for (const detail::FieldDesc& f : detail::policy_fields())
      if (f.get(*this) != f.sequential_value)
        return fmt::format("{} takes no tile parameters (use Policy::sequential())", a.name);
    return std::nullopt;
  }
  if (auto why = detail::field_problem(*this, types)) return why;
  if (auto why = a.constraint(*this)) return why;
  if (!types.uniform() && a.stages_tiles && vector_width * size_of(types.in) < 4)
    return fmt::format("lookback_pipelined copies vectors of 4, 8 or 16 bytes, not {} x {}",
                       vector_width, to_string(types.in));
  // A stage holds the next tile's input where a lagging warp may still read this tile's
  // output: at different widths only a block barrier (xpose) keeps them apart.
  if (a.stages_tiles && io == TileIO::WarpTranspose && size_of(types.in) != size_of(types.out))
    return fmt::format("lookback_pipelined's warp-transposed stages need input and output of "
                       "one width, not {} (use xpose)",
                       to_string(types));
  if (shared_bytes(t) > kMaxStaticSharedBytes)
    return fmt::format("needs {} bytes of shared memory for {} (limit {})", shared_bytes(t),
                       to_string(t), kMaxStaticSharedBytes);
  if (shared_bytes(t) + dynamic_shared_bytes(types) > kMaxDynamicSharedBytes)
    return fmt::format("needs {} bytes of shared memory for {} ({} tile stages; the largest "
                       "any GPU allows one block is {})",
                       shared_bytes(t) + dynamic_shared_bytes(types), to_string(types), stages,
                       kMaxDynamicSharedBytes);
  return std::nullopt;
}

} // namespace scantune

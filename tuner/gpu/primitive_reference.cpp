#include "tuner/gpu/primitive_reference.hpp"

#include <cstring>
#include <type_traits>

#include "tuner/gpu/input_values.hpp"

namespace scantune::tuner {
namespace {

template <class T>
void put(std::vector<std::uint8_t>& bytes, std::size_t i, T v) {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
}

template <class T>
T item(std::uint64_t seed, std::uint64_t i) { // pairs, and by chance longer runs
  return static_cast<T>(mix64((i >> 1) ^ mix64(seed)) % 64);
}

// The unsigned image whose order is the keys' (IEEE total order for floats).
template <class T>
auto ordered_image(T k) {
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  U u;
  std::memcpy(&u, &k, sizeof u);
  constexpr U sign = U(1) << (8 * sizeof(U) - 1);
  if constexpr (std::is_floating_point_v<T>)
    return (u & sign) ? U(~u) : U(u | sign);
  else if constexpr (std::is_signed_v<T>)
    return U(u ^ sign);
  else
    return u;
}

// The stable ascending order of `keys`: LSD radix sort by bytes of the image.
template <class T>
std::vector<std::uint32_t> sorted_order(const T* keys, std::size_t n) {
  using U = decltype(ordered_image(T{}));
  struct Item {
    U image;
    std::uint32_t index;
  };
  std::vector<Item> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i)
    a[i] = {ordered_image(keys[i]), static_cast<std::uint32_t>(i)};
  for (unsigned shift = 0; shift < 8 * sizeof(U); shift += 8) {
    std::size_t start[257] = {};
    for (const Item& x : a)
      ++start[((x.image >> shift) & 255u) + 1];
    for (int d = 0; d < 256; ++d)
      start[d + 1] += start[d];
    for (const Item& x : a)
      b[start[(x.image >> shift) & 255u]++] = x;
    a.swap(b);
  }
  std::vector<std::uint32_t> order(n);
  for (std::size_t i = 0; i < n; ++i)
    order[i] = a[i].index;
  return order;
}

} // namespace

namespace {

// Items base + item(): `base` keeps narrow floats' words distinct finite values.
template <class T>
void fill_select_case(SelectCase& c, detail::Heads how, std::uint64_t n, std::uint64_t seed,
                      T base) {
  c.items.resize(n * sizeof(T));
  c.flags.resize(n);
  c.expected.resize(n * sizeof(T));
  std::vector<T> rejected;
  T prev{};
  for (std::uint64_t i = 0; i < n; ++i) {
    const T x = static_cast<T>(base + item<T>(seed, i));
    put(c.items, i, x);
    c.flags[i] = static_cast<std::uint8_t>(mix64(~i ^ mix64(seed + 1)) & 1u);
    const bool keep = how == detail::Heads::Unique ? i == 0 || !(x == prev) : c.flags[i] != 0;
    prev = x;
    if (keep)
      put(c.expected, c.selected++, x);
    else if (detail::is_partition(how))
      rejected.push_back(x);
  }
  for (std::size_t j = 0; j < rejected.size(); ++j)
    put(c.expected, c.selected + j, rejected[j]);
  c.expected.resize((c.selected + rejected.size()) * sizeof(T));
}

} // namespace

// Narrow items are words of their width: bytes 0..63, and 2-byte words 0x3c00 + 0..63,
// finite halves and bfloat16s that are equal as floats only where equal as bits (what
// unique compares on the device).
SelectCase select_case(DataType type, detail::Heads how, std::uint64_t n, std::uint64_t seed) {
  SelectCase c;
  if (size_of(type) == 1)
    fill_select_case<std::uint8_t>(c, how, n, seed, 0);
  else if (size_of(type) == 2)
    fill_select_case<std::uint16_t>(c, how, n, seed, 0x3c00);
  else
    visit_type(type, [&](auto tag) {
      using T = decltype(tag);
      fill_select_case<T>(c, how, n, seed, T{});
    });
  return c;
}

SortCase sort_case(DataType key, std::size_t value_bytes, std::uint64_t n, std::uint64_t seed) {
  SortCase c;
  visit_type(key, [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> keys(n);
    for (std::uint64_t i = 0; i < n; ++i)
      keys[i] = input_value<T>(ValueSet::Wide, seed, i);
    const std::vector<std::uint32_t> order = sorted_order(keys.data(), n);
    c.keys.resize(n * sizeof(T));
    std::memcpy(c.keys.data(), keys.data(), c.keys.size());
    c.expected_keys.resize(n * sizeof(T));
    for (std::uint64_t i = 0; i < n; ++i)
      put(c.expected_keys, i, keys[order[i]]);
    c.values.resize(n * value_bytes);
    c.expected_values.resize(n * value_bytes);
    for (std::uint64_t i = 0; i < n; ++i) {
      if (value_bytes == 4) {
        put(c.values, i, static_cast<std::uint32_t>(i));
        put(c.expected_values, i, order[i]);
      } else if (value_bytes == 8) {
        put(c.values, i, std::uint64_t{i});
        put(c.expected_values, i, std::uint64_t{order[i]});
      }
    }
  });
  return c;
}

} // namespace scantune::tuner

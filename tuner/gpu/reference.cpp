// The host reference (reference.hpp): value sets, init values and a sequential scan.
#include "tuner/gpu/reference.hpp"
#include "tuner/gpu/type_dispatch.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>

namespace scantune::tuner {
namespace {

void check_valid(DataType type, Op op, const char* who) {
  if (!op_applies(type, op))
    throw Error(std::string(who) + ": " + std::string(to_string(op)) + " is not defined for " +
                std::string(to_string(type)));
}

template <class T>
std::uint64_t to_bits(T v) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  return bits;
}

// The loop the whole reference runs in: one instantiation per (T, operator, source),
// so the operator inlines. `at(i)` is input element i (as T), a hash of i independent
// of the carried value.
// Scans input elements begin, begin + stride, ... below `end` into the same elements
// of out, starting from `carry`, or from the first element when there is none (an
// inclusive scan's first chunk). A stride above 1 scans one column of an axis scan.
template <class T, class F, class At>
void scan_range(F f, ScanKind kind, const At& at, std::size_t begin, std::size_t end,
                const T* carry, T* out, std::size_t stride = 1) {
  if (begin >= end) return;
  std::size_t i = begin;
  T acc;
  if (carry) {
    acc = *carry;
  } else {
    acc = at(i);
    if (kind == ScanKind::Inclusive) out[i] = acc;
    i += stride;
  }
  if (kind == ScanKind::Inclusive) {
    for (; i < end; i += stride) {
      acc = f(acc, at(i));
      out[i] = acc;
    }
  } else {
    for (; i < end; i += stride) {
      out[i] = acc;
      acc = f(acc, at(i));
    }
  }
}

template <class T, class F, class At>
T reduce_range(F f, const At& at, std::size_t begin, std::size_t end) {
  T acc = at(begin);
  for (std::size_t i = begin + 1; i < end; ++i)
    acc = f(acc, at(i));
  return acc;
}

// Input element i of a value set.
template <class T>
auto generated(ValueSet set, std::uint64_t seed) {
  return [set, seed](std::size_t i) { return input_value<T>(set, seed, i); };
}

// Large scans run in chunks on every core: reduce each chunk, combine the chunk
// totals in order, then scan each chunk from its carry. That regroups the
// operations, so it is used only where every grouping gives the same bits.
constexpr std::size_t kMinChunk = std::size_t{1} << 20;

template <class T>
bool regrouping_is_exact(Op op, ValueSet set) {
  // Integers are exactly associative, and so are min and max. Float sums and
  // products of {-2, -1, 1, 2} and {-1, 1} are exact too (small integers, powers
  // of two that only grow); Wide values are not, under sum and product.
  return std::is_integral_v<T> || op == Op::Min || op == Op::Max || set != ValueSet::Wide;
}

// Runs body(c) for every chunk c < chunks, on threads where it can get them.
template <class Body>
void in_parallel(std::size_t chunks, const Body& body) {
  std::vector<std::thread> threads;
  std::size_t started = 1;
  try {
    for (; started < chunks; ++started)
      threads.emplace_back(body, started);
  } catch (const std::system_error&) {
    // No more threads to be had: the rest of the chunks run here.
  }
  for (std::size_t c = started; c < chunks; ++c)
    body(c);
  body(std::size_t{0});
  for (auto& t : threads)
    t.join();
}

std::size_t chunk_count(std::size_t n) {
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  return std::min<std::size_t>(std::min<std::size_t>(cores, 64), n / kMinChunk);
}

// Element-wise work: body(begin, end) over chunks of [0, n), in parallel.
template <class Body>
void for_chunks(std::size_t n, const Body& body) {
  const std::size_t chunks = std::max<std::size_t>(1, chunk_count(n));
  const std::size_t per = (n + chunks - 1) / chunks;
  in_parallel(chunks,
              [&](std::size_t c) { body(std::min(n, c * per), std::min(n, c * per + per)); });
}

// A segmented scan scans each segment on its own, so chunks that begin at heads
// scan in parallel without regrouping any operation.
template <class T, class F>
void scan_segments(F f, ScanKind kind, ValueSet set, std::uint64_t seed, std::size_t n, T init,
                   const std::uint8_t* heads, T* out) {
  const std::size_t chunks = std::max<std::size_t>(1, chunk_count(n));
  const std::size_t per = (n + chunks - 1) / chunks;
  auto begin_of = [&](std::size_t c) { // the first head at or after c * per
    std::size_t i = std::min(n, c * per);
    while (i > 0 && i < n && !heads[i])
      ++i;
    return i;
  };
  const T* carry = kind == ScanKind::Exclusive ? &init : nullptr;
  in_parallel(chunks, [&](std::size_t c) {
    const std::size_t end = begin_of(c + 1);
    for (std::size_t b = begin_of(c); b < end;) {
      std::size_t e = b + 1;
      while (e < end && !heads[e])
        ++e;
      scan_range(f, kind, generated<T>(set, seed), b, e, carry, out);
      b = e;
    }
  });
}

// `exact`: every grouping of the operations gives the same bits (regrouping_is_exact).
template <class T, class F, class At>
void scan_loop(F f, bool exact, ScanKind kind, const At& at, std::size_t n, T init, T* out) {
  const T* first_carry = kind == ScanKind::Exclusive ? &init : nullptr;
  const std::size_t chunks = chunk_count(n);
  if (chunks < 2 || !exact) {
    scan_range(f, kind, at, 0, n, first_carry, out);
    return;
  }
  const std::size_t per = (n + chunks - 1) / chunks;
  auto begin_of = [&](std::size_t c) { return std::min(n, c * per); };
  std::vector<T> total(chunks);
  in_parallel(chunks, [&](std::size_t c) {
    if (begin_of(c) < begin_of(c + 1))
      total[c] = reduce_range<T>(f, at, begin_of(c), begin_of(c + 1));
  });
  // carry[c]: everything before chunk c (and init); chunk 0 of an inclusive scan has none.
  std::vector<T> carry(chunks);
  if (kind == ScanKind::Exclusive) carry[0] = init;
  for (std::size_t c = 1; c < chunks; ++c) {
    const bool first_total = c == 1 && kind == ScanKind::Inclusive;
    carry[c] = first_total ? total[0] : f(carry[c - 1], total[c - 1]);
  }
  in_parallel(chunks, [&](std::size_t c) {
    const T* from = c == 0 ? first_carry : &carry[c];
    scan_range(f, kind, at, begin_of(c), begin_of(c + 1), from, out);
  });
}

template <class T>
void scan_typed(Op op, ScanKind kind, ValueSet set, std::uint64_t seed, std::size_t n, T init,
                const std::uint8_t* heads, T* out) {
  with_op<T>(op, [&](auto f) {
    if (heads)
      scan_segments(f, kind, set, seed, n, init, heads, out);
    else
      scan_loop(f, regrouping_is_exact<T>(op, set), kind, generated<T>(set, seed), n, init, out);
  });
}

// Input element i of a converting scan, of storage type I, as the accumulator A.
template <class A, class I>
A converted_value(ValueSet set, std::uint64_t seed, std::size_t i) {
  if constexpr (std::is_same_v<I, Float16Tag> || std::is_same_v<I, BFloat16Tag>)
    return static_cast<A>(narrow_float_value(set, seed, i));
  else
    return static_cast<A>(input_value<I>(set, seed, i));
}

// The scan of a converting scan's input (elements of type `in` as the accumulator A),
// in chunks on every core where regrouping is exact, as scan_loop runs. The input type
// is reached through a pointer, not a template: one scan loop per (A, operator) rather
// than per input type too, which took four fifths of this file's compile time.
template <class A, class F>
void scan_converted(F f, bool exact, ScanKind kind, DataType in, ValueSet set, std::uint64_t seed,
                    std::size_t n, A init, A* out) {
  using Value = A (*)(ValueSet, std::uint64_t, std::size_t);
  const Value value =
      with_storage_type(in, [](auto tag) -> Value { return &converted_value<A, decltype(tag)>; });
  scan_loop(
      f, exact, kind, [value, set, seed](std::size_t i) { return value(set, seed, i); }, n, init,
      out);
}

// Stores accumulators as `out` elements, as the kernels' convert<Out> does: half and
// bfloat16 from float (a double first rounds to float), integers by C++'s conversion.
template <class A>
void store_converted(DataType out, const std::vector<A>& acc, unsigned char* dst) {
  with_storage_type(out, [&](auto tag) {
    using O = decltype(tag);
    for_chunks(acc.size(), [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        if constexpr (std::is_same_v<O, Float16Tag>) {
          const __half h = __float2half_rn(static_cast<float>(acc[i]));
          std::memcpy(dst + 2 * i, &h, 2);
        } else if constexpr (std::is_same_v<O, BFloat16Tag>) {
          const __nv_bfloat16 h = __float2bfloat16_rn(static_cast<float>(acc[i]));
          std::memcpy(dst + 2 * i, &h, 2);
        } else {
          const O o = static_cast<O>(acc[i]);
          std::memcpy(dst + sizeof(O) * i, &o, sizeof(O));
        }
      }
    });
  });
}

} // namespace

ValueSet value_set_for(DataType type, Op op, bool custom) {
  // Integers ignore the set; custom operators get the set whose sums are exact.
  if (custom || !is_floating(type)) return ValueSet::Walk;
  switch (op) {
  case Op::Product:
    return ValueSet::Signs;
  case Op::Min:
  case Op::Max:
    return ValueSet::Wide;
  default:
    return ValueSet::Walk;
  }
}

std::uint64_t init_bits(DataType type, Op op, bool custom) {
  if (!custom) check_valid(type, op, "init_bits");
  return with_type(type, [&](auto tag) -> std::uint64_t {
    using T = decltype(tag);
    if (custom) return to_bits(T(0));
    if constexpr (std::is_integral_v<T>) {
      // Bitwise identities are 0 or all ones; an alternating pattern is neither.
      if (is_bitwise(op)) return to_bits(static_cast<T>(0x5A5A5A5A5A5A5A5Aull));
      return to_bits(T(3));
    } else {
      return to_bits(op == Op::Product ? T(-1) : T(3)); // exact in every value set
    }
  });
}

std::vector<unsigned char> reference_scan(DataType type, Op op, ScanKind kind, ValueSet set,
                                          std::uint64_t seed, std::size_t n, std::uint64_t init,
                                          const std::uint8_t* heads) {
  check_valid(type, op, "reference_scan");
  std::vector<unsigned char> out(n * size_of(type));
  with_type(type, [&](auto tag) {
    using T = decltype(tag);
    T init_value;
    std::memcpy(&init_value, &init, sizeof(T));
    // The buffer comes from operator new, aligned for any fundamental type.
    scan_typed<T>(op, kind, set, seed, n, init_value, heads, reinterpret_cast<T*>(out.data()));
  });
  return out;
}

std::vector<unsigned char> reference_axis_scan(DataType type, Op op, ScanKind kind, ValueSet set,
                                               std::uint64_t seed, std::size_t outer,
                                               std::size_t len, std::size_t inner,
                                               std::uint64_t init) {
  check_valid(type, op, "reference_axis_scan");
  const std::size_t slice = len * inner, columns = outer * inner;
  std::vector<unsigned char> out(outer * slice * size_of(type));
  with_type(type, [&](auto tag) {
    using T = decltype(tag);
    T init_value;
    std::memcpy(&init_value, &init, sizeof(T));
    const T* carry = kind == ScanKind::Exclusive ? &init_value : nullptr;
    auto* dst = reinterpret_cast<T*>(out.data());
    with_op<T>(op, [&](auto f) {
      // Columns are independent: chunks of whole columns scan in parallel.
      const std::size_t chunks = std::max<std::size_t>(1, chunk_count(outer * slice));
      const std::size_t per = (columns + chunks - 1) / chunks;
      in_parallel(chunks, [&](std::size_t c) {
        for (std::size_t col = c * per; col < std::min(columns, (c + 1) * per); ++col) {
          const std::size_t begin = col / inner * slice + col % inner;
          scan_range(f, kind, generated<T>(set, seed), begin, begin + slice, carry, dst, inner);
        }
      });
    });
  });
  return out;
}

std::vector<unsigned char> reference_scan(const ScanTypes& types, Op op, ScanKind kind,
                                          ValueSet set, std::uint64_t seed, std::size_t n,
                                          std::uint64_t init) {
  check_scan_types(types);
  check_valid(types.acc, op, "reference_scan");
  std::vector<unsigned char> out(n * size_of(types.out));
  with_type(types.acc, [&](auto tag) {
    using A = decltype(tag);
    A init_value;
    std::memcpy(&init_value, &init, sizeof(A));
    // Generated, scanned and stored in chunks on every core (in one thread a tune's
    // reference for 2^30 elements took 9-20 s of its minute).
    std::vector<A> scanned(n);
    with_op<A>(op, [&](auto f) {
      scan_converted(f, regrouping_is_exact<A>(op, set), kind, types.in, set, seed, n, init_value,
                     scanned.data());
    });
    store_converted(types.out, scanned, out.data());
  });
  return out;
}

} // namespace scantune::tuner

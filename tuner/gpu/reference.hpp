// The host reference: a sequential scan with the built-in operators' exact
// semantics (integers wrap modulo 2^bits, scan_ops.hpp), over the tuner's input
// values, or over a vector (the tests' inputs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "tuner/gpu/input_values.hpp"
#include "tuner/gpu/scan_ops.hpp"

namespace scantune::tuner {

/// The value set a problem's input uses (see input_values.hpp).
ValueSet value_set_for(DataType type, Op op, bool custom);

/// The exclusive scans' init value for (type, op), as the element's bytes
/// (8 bytes, the first size_of(type) used): not the identity, so that a kernel
/// that ignores init fails verification. Custom operators use T(0).
std::uint64_t init_bits(DataType type, Op op, bool custom);

/// The scan of input_value(set, seed, i), i < n, as raw bytes (n * size_of(type)).
/// With `heads` (n flags), a segmented scan: it restarts wherever heads[i] != 0 and
/// at element 0 (exclusive scans start every segment at init). Built-in operators only.
std::vector<unsigned char> reference_scan(DataType type, Op op, ScanKind kind, ValueSet set,
                                          std::uint64_t seed, std::size_t n, std::uint64_t init,
                                          const std::uint8_t* heads = nullptr);

/// The scan along the middle axis of outer x len x inner elements input_value(set,
/// seed, i) (row-major): each of the outer * inner columns of len elements, stride
/// inner, scanned on its own (exclusive columns start at init). Raw bytes.
std::vector<unsigned char> reference_axis_scan(DataType type, Op op, ScanKind kind, ValueSet set,
                                               std::uint64_t seed, std::size_t outer,
                                               std::size_t len, std::size_t inner,
                                               std::uint64_t init);

/// A converting scan's reference (types.in -> types.acc -> types.out): the input as
/// fill_input writes it at types.in, converted to the accumulator, scanned there
/// (integers wrap), each prefix converted to the output as the kernels do (integers
/// keep the low bits; half and bfloat16 round to nearest even from float). `init`:
/// bits of an accumulator. Raw bytes, n * size_of(types.out). Built-in operators only.
std::vector<unsigned char> reference_scan(const ScanTypes& types, Op op, ScanKind kind,
                                          ValueSet set, std::uint64_t seed, std::size_t n,
                                          std::uint64_t init);

/// The scan of `in` (init: the exclusive scan's first value). Built-in operators only.
template <class T>
std::vector<T> reference_scan(const std::vector<T>& in, Op op, ScanKind kind, T init) {
  std::vector<T> out(in.size());
  if (in.empty()) return out;
  with_op<T>(op, [&](auto f) {
    std::size_t i = 0;
    T acc = kind == ScanKind::Exclusive ? init : in[i++];
    if (kind == ScanKind::Inclusive) out[0] = acc;
    for (; i < in.size(); ++i) {
      if (kind == ScanKind::Exclusive) out[i] = acc;
      acc = f(acc, in[i]);
      if (kind == ScanKind::Inclusive) out[i] = acc;
    }
  });
  return out;
}

} // namespace scantune::tuner

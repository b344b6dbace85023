// The host reference: a sequential scan with the built-in operators' exact
// semantics (integers wrap modulo 2^bits), over the tuner's input values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "tuner/gpu/input_values.hpp"

namespace scantune::tuner {

/// The value set a problem's input uses (see input_values.hpp).
ValueSet value_set_for(DataType type, Op op, bool custom);

/// The exclusive scans' init value for (type, op), as the element's bytes
/// (8 bytes, the first size_of(type) used): not the identity, so that a kernel
/// that ignores init fails verification. Custom operators use T(0).
std::uint64_t init_bits(DataType type, Op op, bool custom);

/// The scan of input_value(set, seed, i), i < n, as raw bytes (n * size_of(type)).
/// Built-in operators only.
std::vector<unsigned char> reference_scan(DataType type, Op op, ScanKind kind, ValueSet set,
                                          std::uint64_t seed, std::size_t n, std::uint64_t init);

} // namespace scantune::tuner

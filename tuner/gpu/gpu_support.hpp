// Device helpers of the tuner, compiled by nvcc (gpu_support_*.cu): filling input
// buffers, comparing results on the device, and the baselines (CUB DeviceScan for
// the built-in operators and converting sums, and its scan by key for segmented sums).
// Host-only declarations, so host-compiled code calls them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <cuda_runtime_api.h>

#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "tuner/gpu/custom_op_twins.hpp"
#include "tuner/gpu/input_values.hpp"

namespace scantune::tuner::gpu {

/// Throws scantune::Error "scantune tuner: WHAT: CUDA's message" unless e is cudaSuccess.
void check(cudaError_t e, const std::string& what);

/// dst[k] = input_value<T>(set, seed, first + k) for k < count (T from `type`; half
/// and bfloat16: narrow_float_value converted, input_values.hpp). Every element type.
void fill_input(DataType type, ValueSet set, std::uint64_t seed, std::uint64_t first,
                std::size_t count, void* dst, cudaStream_t stream);

/// data[k] &= 2^bits - 1 for k < count: keys of 4- or 8-byte integer `type` drawn from
/// [0, 2^bits) out of random ones (0 < bits < the type's). Asynchronous.
void keep_low_bits(DataType type, void* data, std::size_t count, unsigned bits,
                   cudaStream_t stream);

struct CompareResult {
  std::uint64_t mismatches = 0;
  std::uint64_t first = 0; ///< index of the first mismatch (valid when mismatches > 0)
};
/// Compares got[0, n) with want[0, n). Integers, half and bfloat16 bit-exactly; float
/// and double exactly
/// when rel_tol == 0, else |got - want| <= rel_tol * max(1, |want|) (NaN never
/// matches, unless `same_bits_match`: then identical bits always match, for words that
/// are not floats, such as a struct's integer fields read as float32). Synchronizes
/// `stream`. Throws scantune::Error on CUDA errors.
CompareResult compare(DataType type, const void* got, const void* want, std::size_t n,
                      double rel_tol, cudaStream_t stream, bool same_bits_match = false);

/// Keeps `stream` busy for about `ns` nanoseconds (one thread watching the global
/// timer), so that the launches enqueued behind it meanwhile run back to back: what
/// is timed after it is the GPU's work, not how fast the host enqueues (nvbench's
/// blocking kernel does the same). Asynchronous.
void hold_stream(cudaStream_t stream, double ns);

/// Whether CUB DeviceScan is available as a baseline for (type, op): every valid
/// built-in pair (bitwise operators on integers only).
bool cub_supports(DataType type, Op op);
/// Temporary storage CUB needs for n elements. With `twin`, the operator is that
/// sample custom operator's compiled functor and `op` is ignored.
std::size_t cub_temp_bytes(DataType type, Op op, ScanKind kind, std::size_t n,
                           std::optional<Twin> twin = {});
/// One CUB DeviceScan call: InclusiveScan / ExclusiveScan with the operator's
/// functor (*init for exclusive scans, an element of `type`), 32-bit num_items
/// where n fits. Asynchronous; throws scantune::Error on a CUDA error.
void cub_scan(DataType type, Op op, ScanKind kind, const void* in, void* out, std::size_t n,
              const void* init, void* temp, std::size_t temp_bytes, cudaStream_t stream,
              std::optional<Twin> twin = {});

/// Whether CUB DeviceScan is a baseline for the converting scan `types`: inclusive sums
/// of the type triples cub_baseline_convert.cuh lists (uint8:int32, int32:int64,
/// float16:float32:float16, ...).
bool cub_convert_supports(const ScanTypes& types, Op op, ScanKind kind);
/// Temporary storage CUB needs for a converting inclusive sum of n elements.
std::size_t cub_convert_temp_bytes(const ScanTypes& types, std::size_t n);
/// One CUB InclusiveScan of n `types.in` elements read as `types.acc`, written as
/// `types.out`. Asynchronous; throws scantune::Error on a CUDA error or other types.
void cub_convert_scan(const ScanTypes& types, const void* in, void* out, std::size_t n, void* temp,
                      std::size_t temp_bytes, cudaStream_t stream);

/// Whether CUB's scan by key is a baseline for segmented scans of (type, op): sums
/// (cub_baseline_by_key.cuh says why only those).
bool cub_by_key_supports(DataType type, Op op);
/// Temporary storage CUB's scan by key needs for n elements and keys of key_bytes.
std::size_t cub_by_key_temp_bytes(DataType type, Op op, ScanKind kind, std::size_t n,
                                  std::size_t key_bytes);
/// One CUB InclusiveScanByKey / ExclusiveScanByKey call, a segment being a run of
/// equal `keys` (n device words of key_bytes: int32 for 4, uint64 for 8); otherwise as
/// cub_scan.
void cub_scan_by_key(DataType type, Op op, ScanKind kind, const void* keys, std::size_t key_bytes,
                     const void* in, void* out, std::size_t n, const void* init, void* temp,
                     std::size_t temp_bytes, cudaStream_t stream);

} // namespace scantune::tuner::gpu

// CUB DeviceScan baselines (private to the tuner): the typed entry point that
// gpu_support.cu dispatches to, and, where SCANTUNE_CUB_BASELINE_DEFINE is defined
// (one cub_baseline_<type>.cu per element type, so they compile in parallel), its
// definition and explicit instantiation.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "scantune/scantune.hpp"
#include "tuner/gpu/custom_op_twins.hpp"

namespace scantune::tuner::gpu::cub_baseline {

/// One cub::DeviceScan call for (op, kind) on n elements of T, with CUB's
/// convention: temp == nullptr only sets temp_bytes. `init` is used by exclusive
/// scans. Returns CUB's status; cudaErrorInvalidValue for an operator T lacks.
template <class T>
cudaError_t scan(Op op, ScanKind kind, const T* in, T* out, std::size_t n, T init, void* temp,
                 std::size_t& temp_bytes, cudaStream_t stream);

/// The same with a sample custom operator's compiled twin (cub_baseline_custom.cu);
/// cudaErrorInvalidValue where the twin is not built for T.
template <class T>
cudaError_t scan_twin(Twin twin, ScanKind kind, const T* in, T* out, std::size_t n, T init,
                      void* temp, std::size_t& temp_bytes, cudaStream_t stream);

} // namespace scantune::tuner::gpu::cub_baseline

/// Instantiates the baseline for element type T (in namespace scope of one .cu).
#define SCANTUNE_CUB_BASELINE_INSTANTIATE(T)                                                       \
  template cudaError_t scantune::tuner::gpu::cub_baseline::scan<T>(                                \
      scantune::Op, scantune::ScanKind, const T*, T*, std::size_t, T, void*, std::size_t&,         \
      cudaStream_t)

/// Instantiates the custom-operator twins for element type T.
#define SCANTUNE_CUB_TWIN_INSTANTIATE(T)                                                           \
  template cudaError_t scantune::tuner::gpu::cub_baseline::scan_twin<T>(                           \
      scantune::tuner::Twin, scantune::ScanKind, const T*, T*, std::size_t, T, void*,              \
      std::size_t&, cudaStream_t)

#if defined(SCANTUNE_CUB_BASELINE_DEFINE)

#include <climits>
#include <type_traits>

#include <cub/device/device_scan.cuh>
#include <cuda/functional>
#include <cuda/std/functional>

namespace scantune::tuner::gpu::cub_baseline {

// The type the arithmetic runs on: integers as unsigned, so Sum and Product wrap
// modulo 2^bits without UB (signed and unsigned have the same bits).
template <class T, bool = std::is_integral_v<T>>
struct ArithOf {
  using type = T;
};
template <class T>
struct ArithOf<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <class T>
using Arith = typename ArithOf<T>::type;

// Operators CUB has no tuned policy for anyway. Sum, Min and Max use cuda::std::plus,
// cuda::minimum and cuda::maximum instead, which select CUB's tuned policies.
template <class U>
struct ProductOp {
  __host__ __device__ U operator()(const U& a, const U& b) const { return a * b; }
};
template <class U>
struct BitAndOp {
  __host__ __device__ U operator()(const U& a, const U& b) const { return a & b; }
};
template <class U>
struct BitOrOp {
  __host__ __device__ U operator()(const U& a, const U& b) const { return a | b; }
};
template <class U>
struct BitXorOp {
  __host__ __device__ U operator()(const U& a, const U& b) const { return a ^ b; }
};

template <class V, class F, class N>
cudaError_t call(ScanKind kind, const V* in, V* out, F op, V init, N num_items, void* temp,
                 std::size_t& temp_bytes, cudaStream_t stream) {
  if (kind == ScanKind::Inclusive)
    return cub::DeviceScan::InclusiveScan(temp, temp_bytes, in, out, op, num_items, stream);
  return cub::DeviceScan::ExclusiveScan(temp, temp_bytes, in, out, op, init, num_items, stream);
}

// Runs with the operand type V (T, or its unsigned twin) and operator F; 32-bit
// num_items where n fits, as CUB is used in practice (and is faster).
template <class T, class V, class F>
cudaError_t call_as(F op, ScanKind kind, const T* in, T* out, std::size_t n, T init, void* temp,
                    std::size_t& temp_bytes, cudaStream_t stream) {
  static_assert(sizeof(V) == sizeof(T));
  const V* vin = reinterpret_cast<const V*>(in);
  V* vout = reinterpret_cast<V*>(out);
  const V vinit = static_cast<V>(init); // modular for signed -> unsigned: same bits
  if (n <= static_cast<std::size_t>(INT_MAX))
    return call(kind, vin, vout, op, vinit, static_cast<int>(n), temp, temp_bytes, stream);
  return call(kind, vin, vout, op, vinit, static_cast<std::int64_t>(n), temp, temp_bytes, stream);
}

template <class T>
cudaError_t scan(Op op, ScanKind kind, const T* in, T* out, std::size_t n, T init, void* temp,
                 std::size_t& temp_bytes, cudaStream_t stream) {
  using U = Arith<T>;
  switch (op) {
  case Op::Sum:
    return call_as<T, U>(::cuda::std::plus<U>{}, kind, in, out, n, init, temp, temp_bytes, stream);
  case Op::Product:
    return call_as<T, U>(ProductOp<U>{}, kind, in, out, n, init, temp, temp_bytes, stream);
  case Op::Min: // on T: signed order for signed integers
    return call_as<T, T>(::cuda::minimum<T>{}, kind, in, out, n, init, temp, temp_bytes, stream);
  case Op::Max:
    return call_as<T, T>(::cuda::maximum<T>{}, kind, in, out, n, init, temp, temp_bytes, stream);
  case Op::BitAnd:
  case Op::BitOr:
  case Op::BitXor:
    if constexpr (std::is_integral_v<T>) {
      if (op == Op::BitAnd)
        return call_as<T, U>(BitAndOp<U>{}, kind, in, out, n, init, temp, temp_bytes, stream);
      if (op == Op::BitOr)
        return call_as<T, U>(BitOrOp<U>{}, kind, in, out, n, init, temp, temp_bytes, stream);
      return call_as<T, U>(BitXorOp<U>{}, kind, in, out, n, init, temp, temp_bytes, stream);
    }
    break;
  }
  return cudaErrorInvalidValue;
}

} // namespace scantune::tuner::gpu::cub_baseline

#endif // SCANTUNE_CUB_BASELINE_DEFINE

// Device helpers of the tuner (gpu_support.hpp): input fill, on-device comparison,
// and the type dispatch of the CUB baselines (cub_baseline_<type>.cu).
// Before scantune's headers: data_type_of knows __half and __nv_bfloat16 only after these.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "tuner/gpu/gpu_support.hpp"
#include "tuner/gpu/type_dispatch.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "tuner/gpu/cub_baseline.cuh"
#include "tuner/gpu/cub_baseline_by_key.cuh"
#include "tuner/gpu/cub_baseline_convert.cuh"

namespace scantune::tuner::gpu {

void check(cudaError_t e, const std::string& what) {
  if (e == cudaSuccess) return;
  cudaGetLastError(); // a non-sticky launch error: a later call must not report it again
  throw Error("scantune tuner: " + what + ": " + cudaGetErrorString(e));
}

namespace {

constexpr int kThreads = 256;

// Enough blocks of kThreads to fill the current device, fewer for small counts;
// the kernels are grid-stride loops.
unsigned grid_for(std::size_t count, const std::string& who) {
  int device = 0, sms = 0;
  check(cudaGetDevice(&device), who + ": cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
        who + ": cudaDeviceGetAttribute(multiProcessorCount)");
  const std::size_t wanted = (count + kThreads - 1) / kThreads;
  const std::size_t cap = static_cast<std::size_t>(std::max(sms, 1)) * 8;
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min(wanted, cap)));
}

// The device type of a storage type's tag (type_dispatch.hpp), and element i of it.
__device__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void hold_kernel(std::uint64_t ns) {
  const std::uint64_t start = global_ns();
  while (global_ns() - start < ns)
    __nanosleep(1000);
}

template <class Tag>
struct device_type {
  using type = Tag;
};
template <>
struct device_type<Float16Tag> {
  using type = __half;
};
template <>
struct device_type<BFloat16Tag> {
  using type = __nv_bfloat16;
};

template <class Tag>
__device__ typename device_type<Tag>::type element_value(ValueSet set, std::uint64_t seed,
                                                         std::uint64_t i) {
  if constexpr (std::is_same_v<Tag, Float16Tag>)
    return __float2half_rn(narrow_float_value(set, seed, i));
  else if constexpr (std::is_same_v<Tag, BFloat16Tag>)
    return __float2bfloat16_rn(narrow_float_value(set, seed, i));
  else
    return input_value<Tag>(set, seed, i);
}

template <class Tag>
__global__ void fill_kernel(ValueSet set, std::uint64_t seed, std::uint64_t first,
                            std::size_t count, typename device_type<Tag>::type* dst) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count;
       k += stride)
    dst[k] = element_value<Tag>(set, seed, first + k);
}

template <class W>
__global__ void keep_low_bits_kernel(W* data, std::size_t count, W mask) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count;
       k += stride)
    data[k] &= mask;
}

// Zeroed by one memset: `inverted_first` holds ~index under atomicMax, so the
// smallest mismatching index wins and 0 means "none".
struct CompareState {
  unsigned long long mismatches;
  unsigned long long inverted_first;
};

template <class T>
__device__ bool matches(T got, T want, double rel_tol, bool same_bits_match) {
  if constexpr (std::is_integral_v<T>) {
    return got == want;
  } else {
    if (got == want) return true; // also equal infinities; NaN never compares equal
    if (same_bits_match) {
      using Bits = std::conditional_t<sizeof(T) == 8, unsigned long long, unsigned>;
      Bits a, b;
      memcpy(&a, &got, sizeof(T));
      memcpy(&b, &want, sizeof(T));
      if (a == b) return true;
    }
    if (rel_tol == 0) return false;
    const double g = got, w = want;
    return fabs(g - w) <= rel_tol * fmax(1.0, fabs(w)); // false when either is NaN
  }
}

template <class T>
__global__ void compare_kernel(const T* got, const T* want, std::size_t n, double rel_tol,
                               bool same_bits_match, CompareState* state) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long count = 0, first = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    if (!matches(got[i], want[i], rel_tol, same_bits_match)) {
      if (count == 0) first = i; // a thread's indices increase: its first is its minimum
      ++count;
    }
  }
  // One pair of atomics per thread that saw a mismatch: none in the common case.
  if (count != 0) {
    atomicAdd(&state->mismatches, count);
    atomicMax(&state->inverted_first, ~first);
  }
}

// The state buffer comes from the stream-ordered pool, which reuses it across calls
// and is safe from any thread; freed on every path.
struct StreamBuffer {
  void* ptr = nullptr;
  cudaStream_t stream;
  StreamBuffer(std::size_t bytes, cudaStream_t s) : stream(s) {
    check(cudaMallocAsync(&ptr, bytes, stream), "compare: cudaMallocAsync");
  }
  ~StreamBuffer() { cudaFreeAsync(ptr, stream); }
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;
};

std::string cub_label(DataType type, Op op, ScanKind kind, std::size_t n, std::optional<Twin> twin,
                      bool by_key = false) {
  const std::string op_name =
      twin ? std::string(kCustomOpTwins[static_cast<int>(*twin)].name) : std::string(to_string(op));
  return std::string(by_key ? "cub::DeviceScan by key (" : "cub::DeviceScan (") +
         std::string(to_string(type)) + " " + op_name + " " + std::string(to_string(kind)) +
         ", n=" + std::to_string(n) + ")";
}

// The checks of a timed CUB call's arguments; `label` formats only for an error.
template <class Label>
void check_cub_call(ScanKind kind, const void* init, const void* temp, const Label& label) {
  if (kind == ScanKind::Exclusive && init == nullptr)
    throw Error("scantune tuner: " + label() + ": init is null");
  // CUB reads a null temp as a size query and would silently scan nothing.
  if (temp == nullptr) throw Error("scantune tuner: " + label() + ": temp storage is null");
}

template <class T>
T init_of(ScanKind kind, const void* init) {
  T value{};
  if (kind == ScanKind::Exclusive) std::memcpy(&value, init, sizeof(T));
  return value;
}

void require_by_key(DataType type, Op op, ScanKind kind, std::size_t n) {
  if (!cub_by_key_supports(type, op))
    throw Error("scantune tuner: no CUB baseline for " +
                cub_label(type, op, kind, n, std::nullopt, true) + " (sums only)");
}

// The twins check their type themselves (cudaErrorInvalidValue).
void require_cub(DataType type, Op op, ScanKind kind, std::size_t n, std::optional<Twin> twin) {
  if (!twin && !cub_supports(type, op))
    throw Error("scantune tuner: no CUB baseline for " + cub_label(type, op, kind, n, twin));
}

template <class T>
cudaError_t cub_call(Op op, std::optional<Twin> twin, ScanKind kind, const T* in, T* out,
                     std::size_t n, T init, void* temp, std::size_t& temp_bytes,
                     cudaStream_t stream) {
  if (twin)
    return cub_baseline::scan_twin<T>(*twin, kind, in, out, n, init, temp, temp_bytes, stream);
  return cub_baseline::scan<T>(op, kind, in, out, n, init, temp, temp_bytes, stream);
}

} // namespace

void fill_input(DataType type, ValueSet set, std::uint64_t seed, std::uint64_t first,
                std::size_t count, void* dst, cudaStream_t stream) {
  if (count == 0) return;
  const unsigned grid = grid_for(count, "fill_input");
  with_storage_type(type, [&](auto tag) {
    using Tag = decltype(tag);
    using T = typename device_type<Tag>::type;
    fill_kernel<Tag><<<grid, kThreads, 0, stream>>>(set, seed, first, count, static_cast<T*>(dst));
  });
  check(cudaGetLastError(), "fill_input: kernel launch");
}

void keep_low_bits(DataType type, void* data, std::size_t count, unsigned bits,
                   cudaStream_t stream) {
  if (count == 0) return;
  const unsigned grid = grid_for(count, "keep_low_bits");
  if (size_of(type) == 4)
    keep_low_bits_kernel<<<grid, kThreads, 0, stream>>>(
        static_cast<std::uint32_t*>(data), count, static_cast<std::uint32_t>((1ull << bits) - 1));
  else
    keep_low_bits_kernel<<<grid, kThreads, 0, stream>>>(static_cast<std::uint64_t*>(data), count,
                                                        (std::uint64_t{1} << bits) - 1);
  check(cudaGetLastError(), "keep_low_bits: kernel launch");
}

void hold_stream(cudaStream_t stream, double ns) {
  hold_kernel<<<1, 1, 0, stream>>>(static_cast<std::uint64_t>(ns > 0 ? ns : 0));
  check(cudaGetLastError(), "hold_stream: kernel launch");
}

CompareResult compare(DataType type, const void* got, const void* want, std::size_t n,
                      double rel_tol, cudaStream_t stream, bool same_bits_match) {
  CompareResult result;
  if (n == 0) {
    check(cudaStreamSynchronize(stream), "compare: cudaStreamSynchronize");
    return result;
  }
  const unsigned grid = grid_for(n, "compare");
  CompareState host{};
  {
    StreamBuffer state(sizeof(CompareState), stream);
    auto* d_state = static_cast<CompareState*>(state.ptr);
    check(cudaMemsetAsync(d_state, 0, sizeof(CompareState), stream), "compare: cudaMemsetAsync");
    // Narrow outputs compare bit-exactly: their references round as the kernels do.
    const auto launch = [&](auto tag) {
      using T = decltype(tag);
      compare_kernel<T><<<grid, kThreads, 0, stream>>>(static_cast<const T*>(got),
                                                       static_cast<const T*>(want), n, rel_tol,
                                                       same_bits_match, d_state);
    };
    if (is_accumulator(type))
      with_type(type, launch);
    else if (size_of(type) == 1)
      launch(std::uint8_t{});
    else
      launch(std::uint16_t{});
    check(cudaGetLastError(), "compare: kernel launch");
    check(cudaMemcpyAsync(&host, d_state, sizeof(CompareState), cudaMemcpyDeviceToHost, stream),
          "compare: cudaMemcpyAsync");
  } // frees the state buffer in stream order, before the synchronization below
  check(cudaStreamSynchronize(stream), "compare: cudaStreamSynchronize");
  result.mismatches = host.mismatches;
  result.first = host.mismatches != 0 ? ~host.inverted_first : 0;
  return result;
}

bool cub_supports(DataType type, Op op) {
  return op_applies(type, op); // CUB is instantiated for every valid built-in pair
}

std::size_t cub_temp_bytes(DataType type, Op op, ScanKind kind, std::size_t n,
                           std::optional<Twin> twin) {
  require_cub(type, op, kind, n, twin);
  std::size_t bytes = 0;
  const cudaError_t e = with_type(type, [&](auto tag) {
    using T = decltype(tag);
    return cub_call<T>(op, twin, kind, nullptr, nullptr, n, T{}, nullptr, bytes, nullptr);
  });
  check(e, "temporary storage size of " + cub_label(type, op, kind, n, twin));
  return bytes;
}

void cub_scan(DataType type, Op op, ScanKind kind, const void* in, void* out, std::size_t n,
              const void* init, void* temp, std::size_t temp_bytes, cudaStream_t stream,
              std::optional<Twin> twin) {
  require_cub(type, op, kind, n, twin);
  // Called inside timed loops: the label is formatted only for an error.
  const auto label = [&] { return cub_label(type, op, kind, n, twin); };
  if (n == 0) return;
  check_cub_call(kind, init, temp, label);
  const cudaError_t e = with_type(type, [&](auto tag) {
    using T = decltype(tag);
    return cub_call<T>(op, twin, kind, static_cast<const T*>(in), static_cast<T*>(out), n,
                       init_of<T>(kind, init), temp, temp_bytes, stream);
  });
  if (e != cudaSuccess) check(e, label());
}

bool cub_convert_supports(const ScanTypes& types, Op op, ScanKind kind) {
  return op == Op::Sum && kind == ScanKind::Inclusive &&
         convert_baseline::with_triple(types, [](auto) {});
}

bool cub_by_key_supports(DataType type, Op op) {
  return op == Op::Sum && op_applies(type, op);
}

// Calls cub_baseline::scan_by_key<T, K> with the key type of key_bytes.
template <class T>
cudaError_t by_key_call(Op op, ScanKind kind, const void* keys, std::size_t key_bytes, const T* in,
                        T* out, std::size_t n, T init, void* temp, std::size_t& temp_bytes,
                        cudaStream_t stream) {
  if (key_bytes == 8)
    return cub_baseline::scan_by_key(op, kind, static_cast<const std::uint64_t*>(keys), in, out, n,
                                     init, temp, temp_bytes, stream);
  if (key_bytes == 4)
    return cub_baseline::scan_by_key(op, kind, static_cast<const std::int32_t*>(keys), in, out, n,
                                     init, temp, temp_bytes, stream);
  throw Error("scantune tuner: no CUB scan-by-key baseline for " + std::to_string(key_bytes) +
              "-byte keys (4 or 8)");
}

std::size_t cub_by_key_temp_bytes(DataType type, Op op, ScanKind kind, std::size_t n,
                                  std::size_t key_bytes) {
  require_by_key(type, op, kind, n);
  std::size_t bytes = 0;
  const cudaError_t e = with_type(type, [&](auto tag) {
    using T = decltype(tag);
    return by_key_call<T>(op, kind, nullptr, key_bytes, nullptr, nullptr, n, T{}, nullptr, bytes,
                          nullptr);
  });
  check(e, "temporary storage size of " + cub_label(type, op, kind, n, std::nullopt, true));
  return bytes;
}

void cub_scan_by_key(DataType type, Op op, ScanKind kind, const void* keys, std::size_t key_bytes,
                     const void* in, void* out, std::size_t n, const void* init, void* temp,
                     std::size_t temp_bytes, cudaStream_t stream) {
  require_by_key(type, op, kind, n);
  const auto label = [&] { return cub_label(type, op, kind, n, std::nullopt, true); };
  if (n == 0) return;
  check_cub_call(kind, init, temp, label);
  const cudaError_t e = with_type(type, [&](auto tag) {
    using T = decltype(tag);
    return by_key_call<T>(op, kind, keys, key_bytes, static_cast<const T*>(in),
                          static_cast<T*>(out), n, init_of<T>(kind, init), temp, temp_bytes,
                          stream);
  });
  if (e != cudaSuccess) check(e, label());
}

} // namespace scantune::tuner::gpu

// inclusive_sum.cpp: prefix scans of device memory with an installed scantune.
//
// Copies n int32 values to the GPU, runs on one stream an inclusive sum (through the
// process-wide scanner) and an exclusive running maximum (through a Scanner object),
// copies both results back and checks them against a host loop.
//
// Exit status: 0 OK, 1 wrong result or error, 77 no CUDA device (or no driver).
#include <scantune/scantune.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace {

// Turns a failed CUDA runtime call into an exception (scantune itself throws scantune::Error).
void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// Device memory for n int32 values, freed when it goes out of scope.
struct DeviceFree {
  void operator()(std::int32_t* p) const { cudaFree(p); }
};
using DeviceInts = std::unique_ptr<std::int32_t, DeviceFree>;

DeviceInts device_ints(std::size_t n) {
  void* p = nullptr;
  check(cudaMalloc(&p, n * sizeof(std::int32_t)), "cudaMalloc");
  return DeviceInts(static_cast<std::int32_t*>(p));
}

int run() {
  const std::size_t n = std::size_t{1} << 20;
  const std::size_t bytes = n * sizeof(std::int32_t);

  // Non-zero, unsorted input in 1..1000 (the sum of 2^20 of them fits in int32).
  std::vector<std::int32_t> h_in(n);
  for (std::size_t i = 0; i < n; ++i)
    h_in[i] = static_cast<std::int32_t>((i * 2654435761u) % 1000u) + 1;

  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  DeviceInts d_in = device_ints(n), d_sum = device_ints(n), d_max = device_ints(n);
  check(cudaMemcpyAsync(d_in.get(), h_in.data(), bytes, cudaMemcpyHostToDevice, stream),
        "cudaMemcpyAsync");

  // 1. Inclusive prefix sum on the process-wide scanner of the current device:
  //    d_sum[i] = in[0] + ... + in[i]. The call is asynchronous on `stream`; the first
  //    call for a (type, operator, kind) compiles its kernel with NVRTC.
  scantune::inclusive_sum(d_in.get(), d_sum.get(), n, stream);

  // 2. A Scanner of one's own (it owns compiled kernels and per-stream workspaces):
  //    exclusive running maximum, d_max[i] = max(INT32_MIN, in[0], ..., in[i-1]).
  scantune::Scanner scanner;
  scanner.exclusive_scan(d_in.get(), d_max.get(), n, scantune::Op::Max, INT32_MIN, stream);

  std::vector<std::int32_t> h_sum(n), h_max(n);
  check(cudaMemcpyAsync(h_sum.data(), d_sum.get(), bytes, cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync");
  check(cudaMemcpyAsync(h_max.data(), d_max.get(), bytes, cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");

  // The same scans on the host.
  std::int32_t sum = 0, max = INT32_MIN;
  for (std::size_t i = 0; i < n; ++i) {
    if (h_max[i] != max) {
      std::printf("exclusive max: element %zu is %d, expected %d\n", i, h_max[i], max);
      return 1;
    }
    sum += h_in[i];
    max = h_in[i] > max ? h_in[i] : max;
    if (h_sum[i] != sum) {
      std::printf("inclusive sum: element %zu is %d, expected %d\n", i, h_sum[i], sum);
      return 1;
    }
  }
  const scantune::Plan plan =
      scanner.plan(scantune::DataType::Int32, scantune::Op::Sum, scantune::ScanKind::Inclusive, n);
  std::printf("inclusive_sum_example: OK (n = %zu; policy for the sum: %s)\n", n,
              plan.policy.c_str());
  return 0;
}

} // namespace

int main() {
  // No device, or no driver (cudaGetDeviceCount fails): nothing to run on.
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("inclusive_sum_example: no CUDA device, nothing to run (exit 77)\n");
    return 77;
  }
  try {
    return run();
  } catch (const scantune::Error& e) { // every failure of the library
    std::printf("inclusive_sum_example: scantune error: %s\n", e.what());
  } catch (const std::exception& e) {
    std::printf("inclusive_sum_example: %s\n", e.what());
  }
  return 1;
}

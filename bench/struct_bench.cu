// scantune_struct_bench: scans of struct values (the library's linear recurrence on
// float pairs, or argmax on (float, int32) pairs) against CUB DeviceScan::InclusiveScan
// with the same combine as an nvcc-compiled functor, and against a device copy of the
// same bytes, in one run on one stream (CUDA events, medians, the three interleaved).
// Bytes count as the structs read plus written; the copy moves half that many bytes
// (it reads and writes each). Targets on the H100 for the recurrence: >= 0.8x the
// copy's bandwidth and >= 1.3x CUB.
//
//   scantune_struct_bench [--op linear_recurrence|argmax] [--log2n 20,22,24,26,28]
//                         [--repeats 20] [--sweep]
// --sweep also times candidate struct shapes at every size and prints the 3 fastest.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <cub/device/device_scan.cuh>

#include "event_timer.cuh"
#include "scantune/scantune.hpp"

namespace {

using scantune::LinearRecurrence;
using scantune::ValueIndex;

// The combines of scantune::linear_recurrence_op() and argmax_op(), term for term
// (runtime/src/builtin_ops.cpp): CUB runs the very operator scantune compiles.
struct LinearRecurrenceOp {
  __device__ LinearRecurrence operator()(const LinearRecurrence& a,
                                         const LinearRecurrence& b) const {
    return LinearRecurrence{a.a * b.a, fmaf(b.a, a.b, b.b)};
  }
};
struct ArgmaxOp {
  __device__ ValueIndex operator()(const ValueIndex& a, const ValueIndex& b) const {
    return b.value > a.value || (b.value == a.value && b.index < a.index) ? b : a;
  }
};

// a in [0.5, 1), b in [-1, 1): the recurrence stays bounded.
__global__ void fill(LinearRecurrence* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const unsigned h = unsigned(i * 2654435761ull);
    p[i] = {0.5f + 0.49f * float(h >> 16) / 65536.0f, float(h & 0xffff) / 32768.0f - 1.0f};
  }
}
__global__ void fill(ValueIndex* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = {float(unsigned(i * 2654435761ull) >> 20), int(i)};
}

// Candidate shapes of 8-byte structs: the warp and thread look-backs, 8- or 16-byte
// vectors, the three tile I/Os.
std::vector<std::string> sweep_keys() {
  std::vector<std::string> keys;
  for (const char* alg : {"lookback_warp", "lookback_thread"})
    for (int tpb : {128, 256, 512})
      for (int ipt : {8, 12, 16, 20, 24})
        for (int vec : {1, 2})
          for (const char* io : {"", ".wxpose", ".direct"})
            keys.push_back(std::string(alg) + ".tpb" + std::to_string(tpb) + ".ipt" +
                           std::to_string(ipt) + ".vec" + std::to_string(vec) + ".warp_scans" + io);
  return keys;
}

// Largest difference between the two outputs, relative to (|x| + 1) (0: identical).
double max_difference(const LinearRecurrence* x, const LinearRecurrence* y, std::size_t n) {
  double d = 0;
  for (std::size_t i = 0; i < n; ++i)
    d = std::max(d, std::fabs(double(x[i].b) - double(y[i].b)) / (std::fabs(double(y[i].b)) + 1));
  return d;
}
double max_difference(const ValueIndex* x, const ValueIndex* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (x[i].value != y[i].value || x[i].index != y[i].index) return 1.0;
  return 0.0;
}

template <class T, class CubOp>
void run_case(const scantune::CustomOp& op, CubOp cub_op, std::size_t n, int repeats, bool sweeping,
              scantune::Scanner& scanner, Timer& timer) {
  T *in = nullptr, *out = nullptr, *cub_out = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(T)));
  CHECK(cudaMalloc(&out, n * sizeof(T)));
  CHECK(cudaMalloc(&cub_out, n * sizeof(T)));
  fill<<<1024, 256>>>(in, n);
  CHECK(cudaGetLastError());
  std::size_t temp_bytes = 0;
  CHECK(cub::DeviceScan::InclusiveScan(nullptr, temp_bytes, in, cub_out, cub_op,
                                       static_cast<int64_t>(n)));
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, temp_bytes));
  auto cub_call = [&] {
    CHECK(cub::DeviceScan::InclusiveScan(temp, temp_bytes, in, cub_out, cub_op,
                                         static_cast<int64_t>(n)));
  };
  auto scan_call = [&] { scanner.scan_struct(in, out, n, op, scantune::ScanKind::Inclusive); };
  const std::size_t bytes = 2 * n * sizeof(T);
  const CopyBaseline copy_call(bytes);

  scan_call();
  cub_call();
  CHECK(cudaDeviceSynchronize());
  std::vector<T> a(n), b(n);
  CHECK(cudaMemcpy(a.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b.data(), cub_out, n * sizeof(T), cudaMemcpyDeviceToHost));
  const double diff = max_difference(a.data(), b.data(), n);

  double t_scan = 0, t_cub = 0, t_copy = 0;
  for (int round = 0; round < 2; ++round) { // interleaved, so that clocks drift alike
    t_copy = timer.median_ms(copy_call, repeats);
    t_cub = timer.median_ms(cub_call, repeats);
    t_scan = timer.median_ms(scan_call, repeats);
  }
  const double gbs = double(bytes) / t_scan / 1e6, copy_gbs = double(bytes) / t_copy / 1e6;
  const std::string policy = scanner.plan_struct(op, scantune::ScanKind::Inclusive, n).policy;
  std::printf("| %s | 2^%d | %.4f | %.1f | %.2f | %.4f | %.2f | %.1e | %s |\n", op.name.c_str(),
              int(std::log2(double(n))), t_scan, gbs, gbs / copy_gbs, t_cub, t_cub / t_scan, diff,
              policy.c_str());
  if (sweeping) {
    std::vector<std::pair<double, std::string>> best;
    for (const std::string& key : sweep_keys()) {
      auto keyed = [&] {
        scanner.scan_struct(in, out, n, op, scantune::ScanKind::Inclusive, nullptr, key);
      };
      try {
        keyed();
        best.emplace_back(timer.median_ms(keyed, repeats), key);
      } catch (const scantune::Error&) { // a shape 8-byte structs cannot run
      }
    }
    std::sort(best.begin(), best.end());
    for (std::size_t i = 0; i < std::min<std::size_t>(3, best.size()); ++i)
      std::printf("sweep %s 2^%d: %s %.4f ms (%.2fx the copy, %.2fx CUB)\n", op.name.c_str(),
                  int(std::log2(double(n))), best[i].second.c_str(), best[i].first,
                  t_copy / best[i].first, t_cub / best[i].first);
  }
  cudaFree(in);
  cudaFree(out);
  cudaFree(cub_out);
  cudaFree(temp);
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"struct-valued scans (linear recurrence, argmax) against CUB DeviceScan with the "
               "same functor and a device copy"};
  std::vector<int> log2n{20, 22, 24, 26, 28};
  int repeats = 20;
  bool sweeping = false;
  std::string op_name = "linear_recurrence";
  app.add_option("--op", op_name, "linear_recurrence (float pairs) or argmax (float, int32)")
      ->check(CLI::IsMember({"linear_recurrence", "argmax"}));
  app.add_option("--log2n", log2n, "sizes as powers of two")->delimiter(',');
  app.add_option("--repeats", repeats, "timed calls per median");
  app.add_flag("--sweep", sweeping, "also time candidate shapes (printed after each table row)");
  CLI11_PARSE(app, argc, argv);
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s\n\n", prop.name);
  std::printf("| operator | n | scantune ms | GB/s | of copy | CUB ms | CUB / scantune | max diff "
              "| policy |\n|---|---|---|---|---|---|---|---|---|\n");
  scantune::Scanner scanner;
  Timer timer;
  for (int k : log2n) {
    const std::size_t n = std::size_t{1} << k;
    if (op_name == "argmax")
      run_case<ValueIndex>(scantune::argmax_op(), ArgmaxOp{}, n, repeats, sweeping, scanner, timer);
    else
      run_case<LinearRecurrence>(scantune::linear_recurrence_op(), LinearRecurrenceOp{}, n, repeats,
                                 sweeping, scanner, timer);
  }
  return 0;
}

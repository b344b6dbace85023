// scantune_types_bench: converting scans (narrow and mixed types) against CUB
// DeviceScan with the same input, accumulator and output types, and against a device
// copy of the same bytes, in one run on one stream (CUDA events, medians). Bytes count
// as read plus written at their own widths; the copy moves half that many bytes (it
// reads and writes each). CUB's half and bfloat16 scans read through a transform
// iterator into float, as scantune and torch accumulate them.
//
//   scantune_types_bench [--log2n 24,28] [--repeats 20] [--sweep]
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

#include "event_timer.cuh"
#include "scantune/scantune.hpp"

namespace {

// Values in {-1, 0, 1} (unsigned: {0, 1}) from a hash: never all zeros, and the float
// prefixes stay far below 2^24, so every accumulation order gives the same bits.
template <class T>
__global__ void fill(T* p, std::size_t n, bool is_signed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const unsigned h = unsigned(i * 2654435761ull >> 13) % 3;
    p[i] = T(float(is_signed ? int(h) - 1 : int(h != 0)));
  }
}

template <class A>
struct to_acc {
  template <class T>
  __host__ __device__ A operator()(T x) const {
    return A(x);
  }
};

// --types: the rows to run (their labels); all when empty.
std::vector<std::string> g_only;
// --sweep-only: sweep only the candidate keys containing this text.
std::string g_sweep_only;

// --sweep: candidate shapes for a converting scan (vectors of 16 bytes of the wider side),
// each timed beside the dispatched one; prints the fastest valid ones.
std::vector<std::string> sweep_keys(std::size_t widest) {
  const int vec = int(16 / widest);
  std::vector<std::string> keys;
  for (const char* alg : {"lookback_warp", "lookback_pipelined"})
    for (int tpb : {256, 512, 1024})
      for (int ipt : {vec, 16, 24, 32})
        for (const char* io : {"", ".wxpose", ".direct"}) {
          if (ipt % vec || ipt > 32 || (alg[9] == 'p' && io[1] == 'd')) continue;
          keys.push_back(std::string(alg) + ".tpb" + std::to_string(tpb) + ".ipt" +
                         std::to_string(ipt) + ".vec" + std::to_string(vec) + ".warp_scans" + io);
        }
  for (int tpb : {256, 512, 768})
    for (int ipt : {16, 32})
      for (int st : {4, 6, 8})
        if (ipt % vec == 0)
          keys.push_back("lookback_bulk.tpb" + std::to_string(tpb) + ".ipt" + std::to_string(ipt) +
                         ".vec" + std::to_string(vec) + ".warp_scans.st" + std::to_string(st));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

template <class In, class Out>
void sweep(const char* label, std::size_t n, In* in, Out* out, double t_dispatch, int repeats,
           scantune::Scanner& scanner, Timer& timer) {
  const scantune::ScanTypes t =
      scantune::scan_types(scantune::data_type_of<In>(), scantune::data_type_of<Out>());
  std::vector<std::pair<double, std::string>> best;
  for (const std::string& key : sweep_keys(std::max(sizeof(In), sizeof(Out)))) {
    if (key.find(g_sweep_only) == std::string::npos) continue;
    try {
      scanner.run_types(t, scantune::ScanKind::Inclusive, scantune::Op::Sum, in, out, n, nullptr,
                        nullptr, false, key);
      best.emplace_back(timer.median_ms(
                            [&] {
                              scanner.run_types(t, scantune::ScanKind::Inclusive, scantune::Op::Sum,
                                                in, out, n, nullptr, nullptr, false, key);
                            },
                            repeats),
                        key);
    } catch (const scantune::Error&) { // a shape the types cannot run
    }
  }
  std::sort(best.begin(), best.end());
  for (std::size_t i = 0; i < std::min<std::size_t>(3, best.size()); ++i)
    std::printf("sweep %s 2^%d: %s %.4f ms (%.3fx the dispatched)\n", label,
                int(std::log2(double(n))), best[i].second.c_str(), best[i].first,
                t_dispatch / best[i].first);
}

template <class In, class Acc, class Out>
void run_case(const char* label, std::size_t n, int repeats, scantune::Scanner& scanner,
              Timer& timer, bool sweeping = false) {
  if (!g_only.empty() && std::find(g_only.begin(), g_only.end(), label) == g_only.end()) return;
  In* in = nullptr;
  Out *out = nullptr, *cub_out = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(In)));
  CHECK(cudaMalloc(&out, n * sizeof(Out)));
  CHECK(cudaMalloc(&cub_out, n * sizeof(Out)));
  const bool is_signed = !std::is_unsigned_v<In>;
  fill<<<1024, 256>>>(in, n, is_signed);
  CHECK(cudaGetLastError());

  auto src = thrust::make_transform_iterator(in, to_acc<Acc>());
  std::size_t temp_bytes = 0;
  CHECK(cub::DeviceScan::InclusiveScan(nullptr, temp_bytes, src, cub_out, cuda::std::plus<Acc>(),
                                       static_cast<int64_t>(n)));
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, temp_bytes));
  auto cub_call = [&] {
    CHECK(cub::DeviceScan::InclusiveScan(temp, temp_bytes, src, cub_out, cuda::std::plus<Acc>(),
                                         static_cast<int64_t>(n)));
  };
  auto scantune_call = [&] { scanner.inclusive_scan(in, out, n, scantune::Op::Sum); };
  const std::size_t bytes = n * (sizeof(In) + sizeof(Out));
  const CopyBaseline copy_call(bytes);

  scantune_call();
  cub_call();
  CHECK(cudaDeviceSynchronize());
  std::vector<Out> a(n), b(n);
  CHECK(cudaMemcpy(a.data(), out, n * sizeof(Out), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b.data(), cub_out, n * sizeof(Out), cudaMemcpyDeviceToHost));
  const bool same = std::memcmp(a.data(), b.data(), n * sizeof(Out)) == 0;

  double t_scan = 0, t_cub = 0, t_copy = 0;
  for (int round = 0; round < 2; ++round) { // interleaved, so that clocks drift alike
    t_copy = timer.median_ms(copy_call, repeats);
    t_cub = timer.median_ms(cub_call, repeats);
    t_scan = timer.median_ms(scantune_call, repeats);
  }
  const double gbs = double(bytes) / t_scan / 1e6, copy_gbs = double(bytes) / t_copy / 1e6;
  const std::string policy =
      scanner
          .plan(scantune::scan_types(scantune::data_type_of<In>(), scantune::data_type_of<Out>()),
                scantune::Op::Sum, scantune::ScanKind::Inclusive, n)
          .policy;
  std::printf("| %s | 2^%d | %.4f | %.1f | %.2f | %.4f | %.2f | %s | %s |\n", label,
              int(std::log2(double(n))), t_scan, gbs, gbs / copy_gbs, t_cub, t_cub / t_scan,
              same ? "equal" : "DIFFERENT", policy.c_str());
  if (sweeping) sweep(label, n, in, out, t_scan, repeats, scanner, timer);
  cudaFree(in);
  cudaFree(out);
  cudaFree(cub_out);
  cudaFree(temp);
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"converting scans against CUB DeviceScan and a device copy"};
  std::vector<int> log2n{24, 28};
  int repeats = 20;
  bool sweeping = false;
  app.add_option("--log2n", log2n, "sizes as powers of two")->delimiter(',');
  app.add_flag("--sweep", sweeping, "also time candidate shapes (printed after the table row)");
  app.add_option("--repeats", repeats, "timed calls per median");
  app.add_option("--types", g_only, "rows to run, by label (int8, uint8:int32, ...)")
      ->delimiter(',');
  app.add_option("--sweep-only", g_sweep_only, "sweep only keys containing this text");
  CLI11_PARSE(app, argc, argv);
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s\n\n", prop.name);
  std::printf("| types | n | scantune ms | GB/s | of copy | CUB ms | CUB / scantune | outputs | "
              "policy |\n|---|---|---|---|---|---|---|---|---|\n");
  scantune::Scanner scanner;
  Timer timer;
  for (int k : log2n) {
    const std::size_t n = std::size_t{1} << k;
    run_case<std::int8_t, int, std::int8_t>("int8", n, repeats, scanner, timer, sweeping);
    run_case<std::uint8_t, unsigned, std::uint8_t>("uint8", n, repeats, scanner, timer, sweeping);
    run_case<std::int16_t, int, std::int16_t>("int16", n, repeats, scanner, timer, sweeping);
    run_case<__half, float, __half>("float16:float32:float16", n, repeats, scanner, timer,
                                    sweeping);
    run_case<__nv_bfloat16, float, __nv_bfloat16>("bfloat16:float32:bfloat16", n, repeats, scanner,
                                                  timer, sweeping);
    run_case<std::uint8_t, int, int>("uint8:int32", n, repeats, scanner, timer, sweeping);
    run_case<__half, float, float>("float16:float32", n, repeats, scanner, timer, sweeping);
    run_case<int, long long, long long>("int32:int64", n, repeats, scanner, timer, sweeping);
  }
  return 0;
}

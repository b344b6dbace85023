// Experiment (issue 7, 2026-11-22; results in docs/performance.md, "Input values,
// shapes and fixed costs"): what a large scan's time depends on besides the bytes it
// moves. Times, in one process (medians of CUDA-event intervals over back-to-back
// calls), memcpy, a plain 16-byte copy kernel and the library's scan (explicit
// policies, int32 sum and max, inclusive) for each size, input pattern and policy:
//   random  mix64(i), what the benchmark uses: a running max reaches INT_MAX within
//           a few elements, so a max scan writes one constant where a sum writes
//           random words
//   ramp    (i << 3) | (mix64(i) & 7): increasing, so the max output is the input
//   walk    {-2, -1, 1, 2}: the sum output is a small random walk, the max output 2
//   const   7 everywhere
// Fitting time = a + b * n over the sizes gives each variant's fixed cost a. Each
// scan's last output is checked against a host scan.
// Not part of the library's build (links the built libscantune):
//   nvcc -O3 -std=c++17 -arch=sm_90 -Ibench/experiments -Iruntime/include \
//     -o build-slim/bench/scan_sweep \
//     bench/experiments/scan_sweep.cu -Lbuild-gpu/runtime -lscantune \
//     -Xlinker -rpath,'$ORIGIN/../runtime'
//   build-slim/bench/scan_sweep 22,24,26,28 random,ramp \
//     lookback_bulk.tpb256.ipt32.vec4.warp_scans.st7 ...
#include <climits>
#include <cstdint>
#include <string>

#include "../../tuner/gpu/input_values.hpp"
#include "experiment_common.cuh"
#include <scantune/scantune.hpp>

__global__ void fill(int* p, long long n, int pattern) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const uint64_t h = scantune::tuner::mix64(uint64_t(i));
    int v = 7;
    if (pattern == 0) v = int(uint32_t(h)) == 0 ? 1 : int(uint32_t(h));
    if (pattern == 1) v = int(((uint64_t(i) << 3) | (h & 7u)) & 0x7fffffffu) | 1;
    if (pattern == 2) v = int(h & 3u) - 2 + int((h & 3u) >> 1);
    p[i] = v;
  }
}

int main(int argc, char** argv) {
  if (argc < 4) {
    printf("usage: scan_sweep LOG2_SIZES PATTERNS POLICY...\n");
    return 2;
  }
  const std::vector<std::string> sizes = split_list(argv[1]), patterns = split_list(argv[2]);
  const char* names[] = {"random", "ramp", "walk", "const"};
  long long max_n = 0;
  for (auto& s : sizes)
    max_n = std::max(max_n, 1ll << atoi(s.c_str()));
  int *in, *out;
  CK(cudaMalloc(&in, max_n * sizeof(int)));
  CK(cudaMalloc(&out, max_n * sizeof(int)));
  scantune::Scanner scanner;
  const int reps = 41;
  printf("| n | pattern | policy | memcpy us | copy16 us | sum us | max us | max/sum | sum %% "
         "memcpy | max %% memcpy |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (auto& pname : patterns) {
    int pattern = 0;
    while (pattern < 4 && pname != names[pattern])
      ++pattern;
    if (pattern == 4) {
      printf("unknown pattern %s\n", pname.c_str());
      return 2;
    }
    for (auto& lgs : sizes) {
      const int lg = atoi(lgs.c_str());
      const long long n = 1ll << lg;
      fill<<<1024, 256>>>(in, n, pattern);
      CK(cudaGetLastError());
      const float mc = median_us(
          [&] { CK(cudaMemcpyAsync(out, in, n * sizeof(int), cudaMemcpyDeviceToDevice)); }, reps);
      const float cp = median_us(
          [&] {
            copy_vec4<<<132 * 8, 256>>>(reinterpret_cast<const int4*>(in),
                                        reinterpret_cast<int4*>(out), n / 4);
          },
          reps);
      // The last timed call's output against a host scan (int32 sums wrap).
      std::vector<int> h_in(n), h_out(n), want_sum(n), want_max(n);
      CK(cudaMemcpy(h_in.data(), in, n * sizeof(int), cudaMemcpyDeviceToHost));
      unsigned run_sum = 0;
      int run_max = INT_MIN;
      for (long long i = 0; i < n; ++i) {
        run_sum += unsigned(h_in[i]);
        run_max = std::max(run_max, h_in[i]);
        want_sum[i] = int(run_sum);
        want_max[i] = run_max;
      }
      auto check = [&](scantune::Op op, const char* key) {
        CK(cudaMemcpy(h_out.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
        const std::vector<int>& want = op == scantune::Op::Sum ? want_sum : want_max;
        for (long long i = 0; i < n; ++i)
          if (h_out[i] != want[i]) {
            printf("MISMATCH %s %s n=2^%d at %lld: %d != %d\n", key,
                   op == scantune::Op::Sum ? "sum" : "max", lg, i, h_out[i], want[i]);
            exit(1);
          }
      };
      for (int a = 3; a < argc; ++a) {
        const scantune::Policy pol = scantune::Policy::parse(argv[a]);
        auto scan = [&](scantune::Op op) {
          return median_us(
              [&] {
                scanner.scan_with(pol, scantune::ScanKind::Inclusive, in, out, size_t(n), op);
              },
              reps);
        };
        const float s = scan(scantune::Op::Sum);
        check(scantune::Op::Sum, argv[a]);
        const float m = scan(scantune::Op::Max);
        check(scantune::Op::Max, argv[a]);
        printf("| 2^%d | %s | %s | %.1f | %.1f | %.1f | %.1f | %.3f | %.1f%% | %.1f%% |\n", lg,
               names[pattern], argv[a], mc, cp, s, m, m / s, 100 * mc / s, 100 * mc / m);
        fflush(stdout);
      }
    }
  }
  CK(cudaDeviceSynchronize());
  return 0;
}

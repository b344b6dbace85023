// Experiment (issue 7, 2026-11-22; results in docs/performance.md, "Thread-block
// clusters at 2^18-2^22"): can a cluster pass prefixes between its blocks through
// distributed shared memory faster than every block looking back through L2? A
// one-pass int32 inclusive sum where each block scans one tile, the blocks of a
// cluster (C = 1..16) combine their aggregates through DSM, and one look-back per
// cluster (over cluster status words in global memory) links the clusters. C = 1
// is a plain per-block look-back (the control). Timed in one process against
// memcpy, CUB DeviceScan::InclusiveSum and the library's own choice (the built-in
// table), buffers rotated through 400+ MB so that no call reads from L2; medians
// of CUDA-event intervals over back-to-back calls; every result checked.
// Not part of the library's build (links the built libscantune):
//   nvcc -O3 -std=c++17 -arch=sm_90 -Ibench/experiments -Iruntime/include \
//     -o build-slim/bench/cluster_scan \
//     bench/experiments/cluster_scan.cu -Lbuild-gpu/runtime -lscantune \
//     -Xlinker -rpath,'$ORIGIN/../runtime'
//   build-slim/bench/cluster_scan 18,20,22
#include <chrono>
#include <climits>
#include <cooperative_groups.h>
#include <cstdint>
#include <cub/device/device_scan.cuh>
#include <string>

#include "experiment_common.cuh"
#include "scantune/warp_scan.cuh"
#include <scantune/scantune.hpp>

namespace cg = cooperative_groups;

struct plus {
  __device__ int operator()(int a, int b) const { return a + b; }
};

// Status word per cluster: flag (gen << 1 | inclusive) in the high half, value low.
template <int TPB, int IPT>
__global__ void __launch_bounds__(TPB)
    cluster_scan(const int* in, int* out, long long n, unsigned long long* status, unsigned gen) {
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), C = cluster.num_blocks();
  const unsigned cl = blockIdx.x / C;
  const int WARPS = TPB / 32, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __shared__ int s_warp[WARPS];
  __shared__ int s_agg, s_prefix;
  const long long base = (long long)blockIdx.x * TPB * IPT + (long long)threadIdx.x * IPT;
  int x[IPT];
  if (base + IPT <= n) {
#pragma unroll
    for (int j = 0; j < IPT / 4; ++j)
      reinterpret_cast<int4*>(x)[j] = reinterpret_cast<const int4*>(in + base)[j];
  } else {
#pragma unroll
    for (int j = 0; j < IPT; ++j)
      x[j] = base + j < n ? in[base + j] : 0;
  }
#pragma unroll
  for (int j = 1; j < IPT; ++j)
    x[j] += x[j - 1];
  const int incl = scantune::warp_inclusive_scan(x[IPT - 1], plus());
  if (lane == 31) s_warp[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    const int w = lane < WARPS ? s_warp[lane] : 0;
    const int wi = scantune::warp_inclusive_scan(w, plus());
    if (lane < WARPS) s_warp[lane] = wi - w;
    if (lane == 31) s_agg = wi;
  }
  cluster.sync(); // every block's s_agg is visible cluster-wide
  if (rank == 0 && warp == 0) {
    // Cluster aggregate and each rank's exclusive prefix within the cluster.
    const int a = lane < int(C) ? *cluster.map_shared_rank(&s_agg, lane) : 0;
    const int ai = scantune::warp_inclusive_scan(a, plus());
    const int total = __shfl_sync(0xffffffffu, ai, 31);
    int prefix = 0;
    if (cl == 0) {
      if (lane == 0) store_relaxed(status, pack((gen << 1) | 1u, total));
    } else {
      if (lane == 0) store_relaxed(status + cl, pack(gen << 1, total));
      // Look back over earlier clusters, 32 at a time, until an inclusive one.
      long long j = (long long)cl - 1 - lane;
      for (;;) {
        unsigned long long v = 0;
        unsigned flag = 0;
        if (j >= 0) {
          do {
            v = load_relaxed(status + j);
            flag = unsigned(v >> 32);
          } while ((flag >> 1) != gen);
        }
        const bool is_incl = j >= 0 && (flag & 1u);
        const unsigned incl_mask = __ballot_sync(0xffffffffu, is_incl);
        const int stop = incl_mask ? __ffs(incl_mask) - 1 : 32; // nearest inclusive lane
        int val = (j >= 0 && lane <= stop) ? int(unsigned(v)) : 0;
#pragma unroll
        for (int d = 16; d >= 1; d >>= 1)
          val += __shfl_xor_sync(0xffffffffu, val, d);
        prefix += val;
        if (incl_mask || j < 0) break;
        j -= 32;
      }
      if (lane == 0) store_relaxed(status + cl, pack((gen << 1) | 1u, prefix + total));
    }
    // Hand each rank its prefix (cluster prefix + in-cluster exclusive) by DSM.
    if (lane < int(C)) *cluster.map_shared_rank(&s_prefix, lane) = prefix + ai - a;
  }
  cluster.sync(); // prefixes delivered; no DSM access after this
  const int p = s_prefix + s_warp[warp] + incl - x[IPT - 1];
#pragma unroll
  for (int j = 0; j < IPT; ++j)
    x[j] += p;
  if (base + IPT <= n) {
#pragma unroll
    for (int j = 0; j < IPT / 4; ++j)
      reinterpret_cast<int4*>(out + base)[j] = reinterpret_cast<int4*>(x)[j];
  } else {
#pragma unroll
    for (int j = 0; j < IPT; ++j)
      if (base + j < n) out[base + j] = x[j];
  }
}

template <int TPB, int IPT>
void launch(const int* in, int* out, long long n, unsigned long long* status, unsigned gen, int C) {
  const long long tile = TPB * IPT;
  const unsigned blocks = unsigned(((n + tile - 1) / tile + C - 1) / C * C);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(TPB);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = C;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CK(cudaLaunchKernelEx(&cfg, cluster_scan<TPB, IPT>, in, out, n, status, gen));
}

struct Shape {
  const char* name;
  void (*fn)(const int*, int*, long long, unsigned long long*, unsigned, int);
};

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (const std::string& s : split_list(argc > 1 ? argv[1] : "18,20,22"))
    sizes.push_back(atoi(s.c_str()));
  const Shape shapes[] = {{"tpb512.ipt8", launch<512, 8>},
                          {"tpb1024.ipt8", launch<1024, 8>},
                          {"tpb256.ipt16", launch<256, 16>},
                          {"tpb512.ipt16", launch<512, 16>}};
  CK(cudaFuncSetAttribute(cluster_scan<512, 8>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CK(cudaFuncSetAttribute(cluster_scan<1024, 8>, cudaFuncAttributeNonPortableClusterSizeAllowed,
                          1));
  CK(cudaFuncSetAttribute(cluster_scan<256, 16>, cudaFuncAttributeNonPortableClusterSizeAllowed,
                          1));
  CK(cudaFuncSetAttribute(cluster_scan<512, 16>, cudaFuncAttributeNonPortableClusterSizeAllowed,
                          1));
  unsigned long long* status;
  CK(cudaMalloc(&status, 1 << 20));
  CK(cudaMemset(status, 0, 1 << 20));
  unsigned gen = 0;
  scantune::Scanner scanner;
  const int reps = 101;
  {
    // Host time per call at n = 2^10 (GPU work negligible): what bounds small sizes
    // when calls are issued back to back.
    const long long n = 1 << 10;
    int *a, *b;
    CK(cudaMalloc(&a, n * sizeof(int)));
    CK(cudaMalloc(&b, n * sizeof(int)));
    CK(cudaMemset(a, 1, n * sizeof(int)));
    size_t tb = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, tb, a, b, int(n)));
    void* t;
    CK(cudaMalloc(&t, tb));
    auto host_us = [&](const char* what, auto&& f) {
      for (int i = 0; i < 20; ++i)
        f();
      CK(cudaDeviceSynchronize());
      const int calls = 400;
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < calls; ++i)
        f();
      const auto t1 = std::chrono::steady_clock::now();
      CK(cudaDeviceSynchronize());
      const auto t2 = std::chrono::steady_clock::now();
      printf("host per call, %s: issue %.2f us, issue + drain %.2f us\n", what,
             std::chrono::duration<double, std::micro>(t1 - t0).count() / calls,
             std::chrono::duration<double, std::micro>(t2 - t0).count() / calls);
    };
    host_us("memcpy",
            [&] { CK(cudaMemcpyAsync(b, a, n * sizeof(int), cudaMemcpyDeviceToDevice)); });
    host_us("cub", [&] { CK(cub::DeviceScan::InclusiveSum(t, tb, a, b, int(n))); });
    host_us("scantune", [&] { scanner.inclusive_scan(a, b, size_t(n), scantune::Op::Sum); });
    host_us("cluster8 kernel", [&] { launch<512, 8>(a, b, n, status, ++gen, 8); });
    host_us("copy kernel", [&] {
      copy_vec4<<<1, 256>>>(reinterpret_cast<const int4*>(a), reinterpret_cast<int4*>(b), n / 4);
    });
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(t));
  }
  printf("| n | variant | us | x CUB | %% memcpy |\n|---|---|---:|---:|---:|\n");
  for (int lg : sizes) {
    const long long n = 1ll << lg;
    const int R = int(std::max(2ll, (512ll << 20) / (2 * n * 4))); // rotate over >= 512 MB
    std::vector<int*> ins(R), outs(R);
    for (int r = 0; r < R; ++r) {
      CK(cudaMalloc(&ins[r], n * sizeof(int)));
      CK(cudaMalloc(&outs[r], n * sizeof(int)));
    }
    std::vector<int> h(n), want(n), got(n);
    unsigned run = 0;
    for (long long i = 0; i < n; ++i) {
      h[i] = int(uint32_t(i * 2654435761u) >> 8) - (1 << 23) | 1;
      run += unsigned(h[i]);
      want[i] = int(run);
    }
    for (int r = 0; r < R; ++r)
      CK(cudaMemcpy(ins[r], h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    size_t temp_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, ins[0], outs[0], int(n)));
    void* temp;
    CK(cudaMalloc(&temp, temp_bytes));
    int r = 0;
    auto next = [&] { r = (r + 1) % R; };
    auto check = [&](const char* what) {
      CK(cudaDeviceSynchronize());
      const int last = (r + R - 1) % R; // the buffer of the last call... all hold the same
      CK(cudaMemcpy(got.data(), outs[last], n * sizeof(int), cudaMemcpyDeviceToHost));
      for (long long i = 0; i < n; ++i)
        if (got[i] != want[i]) {
          printf("MISMATCH %s n=2^%d at %lld: %d != %d\n", what, lg, i, got[i], want[i]);
          exit(1);
        }
      for (int q = 0; q < R; ++q)
        CK(cudaMemset(outs[q], 0, n * sizeof(int)));
    };
    const float mc = median_us(
        [&] {
          CK(cudaMemcpyAsync(outs[r], ins[r], n * sizeof(int), cudaMemcpyDeviceToDevice));
          next();
        },
        reps);
    const float cub_us = median_us(
        [&] {
          CK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, ins[r], outs[r], int(n)));
          next();
        },
        reps);
    check("cub");
    auto row = [&](const std::string& name, float us) {
      printf("| 2^%d | %s | %.2f | %.2f | %.0f%% |\n", lg, name.c_str(), us, cub_us / us,
             100 * mc / us);
      fflush(stdout);
    };
    row("memcpy", mc);
    row("cub", cub_us);
    const float lib = median_us(
        [&] {
          scanner.inclusive_scan(ins[r], outs[r], size_t(n), scantune::Op::Sum);
          next();
        },
        reps);
    check("scantune");
    row("scantune " + scanner
                          .choose_policy(scantune::DataType::Int32, scantune::Op::Sum,
                                         scantune::ScanKind::Inclusive, size_t(n))
                          .key(),
        lib);
    for (const Shape& s : shapes)
      for (int C : {1, 2, 4, 8, 16}) {
        const float us = median_us(
            [&] {
              s.fn(ins[r], outs[r], n, status, ++gen, C);
              next();
            },
            reps);
        CK(cudaGetLastError());
        const std::string name = std::string("cluster") + std::to_string(C) + "." + s.name;
        check(name.c_str());
        row(name, us);
      }
    for (int q = 0; q < R; ++q) {
      CK(cudaFree(ins[q]));
      CK(cudaFree(outs[q]));
    }
    CK(cudaFree(temp));
  }
  return 0;
}

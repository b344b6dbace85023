// One process, every visible GPU: a global inclusive prefix sum of an int32 array split
// across the GPUs (scantune/nccl.hpp), checked on the host. Exits 77 without a GPU.
#include <scantune/nccl.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

int main() {
  setenv("NCCL_NVLS_ENABLE", "0", 0); // NVLink multicast stays off
  int g = 0;
  if (cudaGetDeviceCount(&g) != cudaSuccess || g == 0) {
    std::puts("no CUDA device");
    return 77;
  }
  std::vector<ncclComm_t> comms(g);
  if (ncclCommInitAll(comms.data(), g, nullptr) != ncclSuccess) return 1;
  std::vector<std::unique_ptr<scantune::Scanner>> scanners;
  std::vector<scantune::nccl::RankScan<std::int32_t>> ranks;
  const std::size_t per_gpu = 1 << 20;
  for (int d = 0; d < g; ++d) {
    cudaSetDevice(d);
    scantune::ScannerOptions o;
    o.device = d;
    scanners.push_back(std::make_unique<scantune::Scanner>(o));
    const std::size_t n = per_gpu + static_cast<std::size_t>(d); // chunks may differ
    std::vector<std::int32_t> ones(n, 1);
    scantune::nccl::RankScan<std::int32_t> r;
    r.scanner = scanners.back().get();
    r.comm = comms[d];
    r.n = n;
    cudaStreamCreate(&r.stream);
    cudaMalloc(&r.out, n * sizeof(std::int32_t));
    cudaMemcpy(r.out, ones.data(), n * sizeof(std::int32_t), cudaMemcpyHostToDevice);
    r.in = r.out; // in place
    ranks.push_back(r);
  }
  try {
    scantune::nccl::inclusive_scan(ranks, scantune::Op::Sum); // grouped over the GPUs
  } catch (const scantune::Error& e) {
    std::fprintf(stderr, "scan failed: %s\n", e.what());
    return 1;
  }
  std::size_t before = 0;
  int bad = 0;
  for (int d = 0; d < g; ++d) {
    cudaSetDevice(d);
    cudaStreamSynchronize(ranks[d].stream);
    std::int32_t last = 0;
    cudaMemcpy(&last, ranks[d].out + ranks[d].n - 1, sizeof last, cudaMemcpyDeviceToHost);
    before += ranks[d].n;
    std::printf("GPU %d: %zu elements, last prefix %d (want %zu)\n", d, ranks[d].n, last, before);
    bad += static_cast<std::size_t>(last) != before;
    scantune::nccl::release(comms[d]);
    ncclCommDestroy(comms[d]);
    cudaFree(ranks[d].out);
    cudaStreamDestroy(ranks[d].stream);
  }
  return bad ? 1 : 0;
}

// scantune_nccl_bench: the distributed scan (scantune/nccl.hpp) over G GPUs, one process
// per GPU, as a markdown table (docs/multi_gpu.md):
//   weak   2^log2n elements per GPU vs one GPU's scan of 2^log2n plus one small all-gather
//          (target: ratio <= 1.15), with and without the argument check, and the "scan
//          then fix-up" alternative;
//   strong 2^strong-log2n elements split over G GPUs vs one GPU's scan of all of them
//          (target: speedup >= 1.7 at G = 2).
// Inclusive sums; times from CUDA events, after warm-up, the median over --reps runs of
// the slowest rank's time; inputs are small nonzero values.
//   scantune_nccl_bench --gpus 2 --log2n 30 --strong-log2n 32 --reps 20 --type int32
#include <CLI/CLI.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_kernels.h"
#include "scantune/nccl.hpp"

namespace scantune::bench {
namespace {

struct Config {
  int gpus = 0; ///< 0 = every visible GPU
  int log2n = 30;
  int strong_log2n = 32;
  int reps = 20;
  int warmup = 3;
  std::string type = "int32";
};

void cuda_try(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void nccl_try(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(r));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/// One rank's device, stream, scanner and communicator.
struct Rank {
  int rank = 0, size = 1;
  cudaStream_t stream = nullptr;
  Scanner* scanner = nullptr;
  ncclComm_t comm = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
};

/// Milliseconds of `body` on the rank's stream, per rep, after warm-up; with a
/// communicator, the ranks start every rep together (a one-element all-reduce).
std::vector<double> time_reps(const Rank& r, const Config& c, const std::function<void()>& body) {
  float* flag = nullptr;
  if (r.comm) cuda_try(cudaMalloc(&flag, sizeof(float)), "cudaMalloc");
  std::vector<double> ms;
  for (int i = 0; i < c.warmup + c.reps; ++i) {
    if (r.comm)
      nccl_try(ncclAllReduce(flag, flag, 1, ncclFloat, ncclSum, r.comm, r.stream), "barrier");
    cuda_try(cudaStreamSynchronize(r.stream), "cudaStreamSynchronize");
    cuda_try(cudaEventRecord(r.start, r.stream), "cudaEventRecord");
    body();
    cuda_try(cudaEventRecord(r.stop, r.stream), "cudaEventRecord");
    cuda_try(cudaEventSynchronize(r.stop), "cudaEventSynchronize");
    float t = 0;
    cuda_try(cudaEventElapsedTime(&t, r.start, r.stop), "cudaEventElapsedTime");
    if (i >= c.warmup) ms.push_back(t);
  }
  cudaFree(flag);
  return ms;
}

/// The median over reps of the slowest rank's time (every rank gets it).
double slowest_median(const Rank& r, const std::vector<double>& mine) {
  const std::size_t reps = mine.size(), g = static_cast<std::size_t>(r.size);
  double* d = nullptr;
  cuda_try(cudaMalloc(&d, reps * g * sizeof(double)), "cudaMalloc");
  cuda_try(cudaMemcpyAsync(d + reps * r.rank, mine.data(), reps * sizeof(double),
                           cudaMemcpyHostToDevice, r.stream),
           "cudaMemcpyAsync");
  nccl_try(ncclAllGather(d + reps * r.rank, d, reps, ncclFloat64, r.comm, r.stream),
           "ncclAllGather (times)");
  std::vector<double> all(reps * g);
  cuda_try(
      cudaMemcpyAsync(all.data(), d, all.size() * sizeof(double), cudaMemcpyDeviceToHost, r.stream),
      "cudaMemcpyAsync");
  cuda_try(cudaStreamSynchronize(r.stream), "cudaStreamSynchronize");
  cudaFree(d);
  std::vector<double> worst(reps, 0);
  for (std::size_t k = 0; k < g; ++k)
    for (std::size_t i = 0; i < reps; ++i)
      worst[i] = std::max(worst[i], all[k * reps + i]);
  return median(worst);
}

/// Device input and output of n elements, the input filled.
template <class T>
struct Arrays {
  T* in = nullptr;
  T* out = nullptr;
  Arrays(std::size_t n, unsigned seed, cudaStream_t s) {
    cuda_try(cudaMalloc(&in, std::max<std::size_t>(n, 1) * sizeof(T)), "cudaMalloc (input)");
    cuda_try(cudaMalloc(&out, std::max<std::size_t>(n, 1) * sizeof(T)), "cudaMalloc (output)");
    fill_input(in, n, seed, s);
    cuda_try(cudaStreamSynchronize(s), "fill");
  }
  ~Arrays() {
    cudaFree(in);
    cudaFree(out);
  }
};

template <class T>
double single_gpu_scan(const Rank& r, const Config& c, std::size_t n) {
  Arrays<T> a(n, 1, r.stream);
  Rank alone = r;
  alone.comm = nullptr;
  return median(
      time_reps(alone, c, [&] { r.scanner->inclusive_scan(a.in, a.out, n, Op::Sum, r.stream); }));
}

/// The single-GPU steps of the distributed scan beside the plain scan and a copy of the
/// same bytes: the reduction (reads n) and the scan seeded from device memory (reads and
/// writes n, as the plain scan).
template <class T>
void single_gpu_steps(const Rank& r, const Config& c, std::size_t n, double scan_ms) {
  Arrays<T> a(n, 1, r.stream);
  T* d_value = nullptr;
  cuda_try(cudaMalloc(&d_value, sizeof(T)), "cudaMalloc");
  Rank alone = r;
  alone.comm = nullptr;
  const double copy = median(time_reps(alone, c, [&] {
    cuda_try(cudaMemcpyAsync(a.out, a.in, n * sizeof(T), cudaMemcpyDeviceToDevice, r.stream),
             "cudaMemcpyAsync");
  }));
  const double reduce =
      median(time_reps(alone, c, [&] { r.scanner->reduce(a.in, d_value, n, Op::Sum, r.stream); }));
  const double seeded = median(time_reps(alone, c, [&] {
    r.scanner->inclusive_scan(a.in, a.out, n, Op::Sum, DeviceValue<T>{d_value}, r.stream);
  }));
  cudaFree(d_value);
  const double gb = double(n) * sizeof(T) / 1e9;
  std::printf("\nOne GPU, n = %zu: copy %.3f ms (%.0f GB/s read + written); reduction %.3f ms "
              "(%.0f GB/s read, %.2fx the copy's GB/s); inclusive scan %.3f ms; seeded from "
              "device memory %.3f ms (%.3fx)\n",
              n, copy, 2 * gb / copy * 1e3, reduce, gb / reduce * 1e3,
              (gb / reduce) / (2 * gb / copy), scan_ms, seeded, seeded / scan_ms);
}

template <class T>
double distributed(const Rank& r, const Config& c, std::size_t n, bool check) {
  Arrays<T> a(n, 7 + r.rank, r.stream);
  nccl::Options o;
  o.check = check;
  return slowest_median(r, time_reps(r, c, [&] {
                          nccl::inclusive_scan(*r.scanner, r.comm, a.in, a.out, n, Op::Sum,
                                               r.stream, o);
                        }));
}

/// The alternative: local scan, all-gather of the chunk totals (the scan's last
/// elements), the reduction of the earlier ranks' totals, a second pass adding it.
template <class T>
double scan_then_fixup(const Rank& r, const Config& c, std::size_t n) {
  Arrays<T> a(n, 7 + r.rank, r.stream);
  T* slots = nullptr; // G totals, then this rank's prefix
  cuda_try(cudaMalloc(&slots, (r.size + 1) * sizeof(T)), "cudaMalloc");
  cuda_try(cudaMemset(slots, 0, (r.size + 1) * sizeof(T)), "cudaMemset");
  const double ms = slowest_median(
      r, time_reps(r, c, [&] {
        r.scanner->inclusive_scan(a.in, a.out, n, Op::Sum, r.stream);
        if (n > 0)
          cuda_try(cudaMemcpyAsync(slots + r.rank, a.out + n - 1, sizeof(T),
                                   cudaMemcpyDeviceToDevice, r.stream),
                   "cudaMemcpyAsync");
        nccl_try(ncclAllGather(slots + r.rank, slots, sizeof(T), ncclUint8, r.comm, r.stream),
                 "ncclAllGather");
        if (r.rank > 0) {
          r.scanner->reduce(slots, slots + r.size, static_cast<std::size_t>(r.rank), Op::Sum,
                            r.stream);
          add_prefix(a.out, n, slots + r.size, r.stream);
        }
      }));
  cudaFree(slots);
  return ms;
}

/// One small all-gather (one element per rank): the communication a distributed scan
/// cannot avoid.
template <class T>
double small_allgather(const Rank& r, const Config& c) {
  T* d = nullptr;
  cuda_try(cudaMalloc(&d, r.size * sizeof(T)), "cudaMalloc");
  const double ms = slowest_median(
      r, time_reps(r, c, [&] {
        nccl_try(ncclAllGather(d + r.rank, d, sizeof(T), ncclUint8, r.comm, r.stream),
                 "ncclAllGather");
      }));
  cudaFree(d);
  return ms;
}

void row(const char* what, int g, std::size_t per_gpu, double ms, double base, double x,
         const char* target) {
  std::printf("| %s | %d | %zu | %.3f | %.3f | %.3f | %s |\n", what, g, per_gpu, ms, base, x,
              target);
  std::fflush(stdout);
}

template <class T>
void run_rank(const Config& c, const ncclUniqueId& id, int rank, int g) {
  Rank r;
  r.rank = rank;
  r.size = g;
  cuda_try(cudaSetDevice(rank), "cudaSetDevice");
  cuda_try(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cuda_try(cudaEventCreate(&r.start), "cudaEventCreate");
  cuda_try(cudaEventCreate(&r.stop), "cudaEventCreate");
  Scanner scanner;
  r.scanner = &scanner;
  const std::size_t weak_n = std::size_t{1} << c.log2n, strong_n = std::size_t{1} << c.strong_log2n;
  // Single-GPU baselines on rank 0 first; the other ranks wait in ncclCommInitRank.
  double weak_base = 0, strong_base = 0;
  if (rank == 0) {
    weak_base = single_gpu_scan<T>(r, c, weak_n);
    if (c.strong_log2n > 0) strong_base = single_gpu_scan<T>(r, c, strong_n);
    single_gpu_steps<T>(r, c, weak_n, weak_base);
  }
  nccl_try(ncclCommInitRank(&r.comm, g, id, rank), "ncclCommInitRank");
  const double gather = small_allgather<T>(r, c);
  const double weak = distributed<T>(r, c, weak_n, false);
  const double weak_checked = distributed<T>(r, c, weak_n, true);
  const double fixup = scan_then_fixup<T>(r, c, weak_n);
  double strong = 0;
  if (c.strong_log2n > 0) {
    // Uneven when G does not divide n: the last rank takes the remainder.
    const std::size_t share = strong_n / g;
    strong = distributed<T>(r, c, rank == g - 1 ? strong_n - share * (g - 1) : share, false);
  }
  if (rank == 0) {
    const double base = weak_base + gather;
    std::printf("\n%s inclusive sum, %d GPUs; single-GPU scan of 2^%d: %.3f ms; one-element "
                "all-gather: %.3f ms\n\n",
                std::string(to_string(data_type_of<T>())).c_str(), g, c.log2n, weak_base, gather);
    std::printf("| experiment | GPUs | elements per GPU | time (ms) | baseline (ms) | ratio or "
                "speedup | target |\n|---|---|---|---|---|---|---|\n");
    row("weak: reduce + all-gather + seeded scan", g, weak_n, weak, base, weak / base, "<= 1.15");
    row("weak: the same with the argument check", g, weak_n, weak_checked, base,
        weak_checked / base, "");
    row("weak: scan then fix-up (alternative)", g, weak_n, fixup, base, fixup / base, "");
    if (c.strong_log2n > 0)
      row("strong: speedup over one GPU", g, strong_n / g, strong, strong_base,
          strong_base / strong, g == 2 ? ">= 1.7" : "");
  }
  nccl::release(r.comm);
  ncclCommDestroy(r.comm);
}

int child(const Config& c, const ncclUniqueId& id, int rank, int g) {
  try {
    const DataType t = parse_data_type(c.type);
    switch (t) {
    case DataType::Int32:
      run_rank<std::int32_t>(c, id, rank, g);
      break;
    case DataType::UInt32:
      run_rank<std::uint32_t>(c, id, rank, g);
      break;
    case DataType::Int64:
      run_rank<std::int64_t>(c, id, rank, g);
      break;
    case DataType::UInt64:
      run_rank<std::uint64_t>(c, id, rank, g);
      break;
    case DataType::Float32:
      run_rank<float>(c, id, rank, g);
      break;
    case DataType::Float64:
      run_rank<double>(c, id, rank, g);
      break;
    default:
      // The bench's fix-up kernel and references cover the six wide types only.
      throw std::invalid_argument("--type: the bench runs int32, uint32, int64, uint64, "
                                  "float32 or float64, not " +
                                  c.type);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    return 1;
  }
}

/// The number of visible GPUs, asked in a child process so that this one never
/// initializes CUDA (its children must fork from a process without a CUDA context).
int count_gpus() {
  const pid_t pid = fork();
  if (pid == 0) {
    int n = 0;
    _exit(cudaGetDeviceCount(&n) == cudaSuccess ? std::min(n, 100) : 0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 0;
}

} // namespace
} // namespace scantune::bench

int main(int argc, char** argv) {
  using namespace scantune::bench;
  Config c;
  CLI::App app{"scantune_nccl_bench: distributed scan over NCCL, one process per GPU"};
  app.add_option("--gpus", c.gpus, "GPUs (processes); 0 = every visible GPU");
  app.add_option("--log2n", c.log2n, "weak scaling: log2 of the elements per GPU")
      ->check(CLI::Range(0, 34));
  app.add_option("--strong-log2n", c.strong_log2n,
                 "strong scaling: log2 of the total elements (0 = skip)")
      ->check(CLI::Range(0, 35));
  app.add_option("--reps", c.reps, "timed runs (the median is reported)")
      ->check(CLI::Range(1, 10000));
  app.add_option("--warmup", c.warmup, "untimed runs first")->check(CLI::Range(0, 1000));
  app.add_option("--type", c.type, "int32, uint32, int64, uint64, float32, float64");
  CLI11_PARSE(app, argc, argv);
  // NVLink multicast (NVLS) stays off; set before NCCL reads its environment.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  const int g = c.gpus > 0 ? c.gpus : count_gpus();
  if (g < 1) {
    std::fprintf(stderr, "no CUDA device\n");
    return 77;
  }
  ncclUniqueId id;
  if (ncclGetUniqueId(&id) != ncclSuccess) {
    std::fprintf(stderr, "ncclGetUniqueId failed\n");
    return 1;
  }
  std::vector<pid_t> children;
  for (int rank = 0; rank < g; ++rank) {
    const pid_t pid = fork();
    if (pid == 0) _exit(child(c, id, rank, g));
    children.push_back(pid);
  }
  int failed = 0;
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  return failed ? 1 : 0;
}

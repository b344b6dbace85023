// bench/scan_bench.cu: scantune_bench, prefix-sum throughput of scantune against a
// device-to-device cudaMemcpyAsync (the bandwidth ceiling) and CUB DeviceScan, on the
// same GPU in the same run. See bench/README.md.
//
// For each (type, size):
//   1. allocate `pairs` input/output buffer pairs (one pair with --hot) and fill the
//      inputs on the device with random non-zero values (bench_common.hpp);
//   2. check CUB, scantune with the hand-picked policy and scantune's default dispatch
//      against a host reference (this also warms up, and makes scantune compile its
//      kernels, before anything is timed);
//   3. time the four methods with CUDA events around batches of back-to-back calls,
//      rotating through the buffer pairs, interleaving the methods' batches, and report
//      the median of the batch averages.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <cub/device/device_scan.cuh>
#include <cub/version.cuh>

#include "policy.hpp"
#include "scan_request.hpp"
#include "scantune/scantune.hpp"

#include "bench_common.hpp"
#include "bench_options.hpp"
#include "bench_report.hpp"
#include "bench_verify.hpp"

namespace {

using bench::Measurement;
using bench::Method;
using bench::Row;
using bench::Skip;

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kPairAlignBytes = 256; // every buffer of a slab starts 256-byte aligned
constexpr std::size_t kMaxAutoPairs = 65536; // automatic rotation never uses more pairs
constexpr std::size_t kStagingSlotBytes = 64 * kMiB;
constexpr int kCheckedMethods = 3;            // CUB, scantune (policy), dispatch
constexpr unsigned char kSentinelByte = 0xA5; // outputs are poisoned before each checked run

// ---------------------------------------------------------------------------------------------
// Device helpers

/// slab[p * stride + i] = input_value(seed + p, i) for i < n; padding elements get 1.
template <class T>
__global__ void fill_slab_kernel(T* slab, std::size_t stride, std::size_t n, std::size_t total,
                                 std::uint64_t seed) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t g = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; g < total;
       g += step) {
    const std::size_t p = g / stride;
    const std::size_t i = g - p * stride;
    slab[g] = i < n ? bench::input_value<T>(seed + p, i) : T(1);
  }
}

template <class T>
void fill_slab(T* slab, std::size_t stride, std::size_t n, int pairs, std::uint64_t seed,
               cudaStream_t stream) {
  const std::size_t total = stride * static_cast<std::size_t>(pairs);
  const unsigned threads = 256;
  const std::size_t want = (total + threads - 1) / threads;
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(want, 65536));
  fill_slab_kernel<T><<<blocks, threads, 0, stream>>>(slab, stride, n, total, seed);
  BENCH_CUDA_CHECK(cudaGetLastError());
}

/// CUB's sum scans, with 32-bit num_items where n allows it (the usual way to call CUB).
template <class T>
cudaError_t cub_sum(bool exclusive, void* temp, std::size_t& temp_bytes, const T* in, T* out,
                    std::size_t n, cudaStream_t stream) {
  if (n <= static_cast<std::size_t>(INT_MAX)) {
    const int num = static_cast<int>(n);
    return exclusive ? cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, num, stream)
                     : cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, num, stream);
  }
  const std::int64_t num = static_cast<std::int64_t>(n);
  return exclusive ? cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, num, stream)
                   : cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, num, stream);
}

/// A device allocation freed at scope exit.
struct DeviceBuffer {
  void* ptr = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { reset(); }
  /// Returns false (and clears the non-sticky error) when the allocation fails.
  bool allocate(std::size_t bytes) {
    reset();
    if (bytes == 0) return true;
    const cudaError_t e = cudaMalloc(&ptr, bytes);
    if (e == cudaSuccess) return true;
    ptr = nullptr;
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      return false;
    }
    BENCH_CUDA_CHECK(e);
    return false;
  }
  void reset() {
    if (ptr) BENCH_CUDA_CHECK(cudaFree(ptr));
    ptr = nullptr;
  }
};

std::string gib_str(std::size_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * kMiB));
  return buf;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// ---------------------------------------------------------------------------------------------
// The run

struct Bench {
  const bench::Options& opt;
  scantune::Scanner& scanner;
  bench::HostStaging* staging; // null with --no-verify
  cudaStream_t stream = nullptr;
  cudaEvent_t ev_start = nullptr;
  cudaEvent_t ev_stop = nullptr;
  std::size_t l2_bytes = 0;
  std::vector<Row> rows;
  std::vector<Skip> skips;
  std::vector<std::string> fail_lines; // of the current type; printed below its table
  int failures = 0;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();

  Bench(const bench::Options& o, scantune::Scanner& sc, bench::HostStaging* st)
      : opt(o), scanner(sc), staging(st) {}

  void progress(const char* type, std::size_t n, const std::string& what) const {
    if (opt.quiet) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "[%7.1f s] %-7s n = %-11s %s\n", s, type, bench::size_label(n).c_str(),
                 what.c_str());
  }

  /// Records a failure: a line on stderr now, and on stdout below the current table.
  void fail(const std::string& line) {
    ++failures;
    std::fprintf(stderr, "%s\n", line.c_str());
    fail_lines.push_back(line);
  }

  /// The footprint the automatic rotation aims for.
  std::size_t rotation_target_bytes() const {
    if (opt.rotate_mib > 0)
      return static_cast<std::size_t>(opt.rotate_mib * static_cast<double>(kMiB));
    return std::max<std::size_t>(4 * l2_bytes, 64 * kMiB);
  }

  /// One timed batch of `calls` back-to-back calls; returns milliseconds.
  template <class F>
  float time_batch(const F& launch, long calls, std::size_t& next_pair, int pairs) {
    BENCH_CUDA_CHECK(cudaEventRecord(ev_start, stream));
    for (long c = 0; c < calls; ++c) {
      launch(static_cast<int>(next_pair));
      if (++next_pair == static_cast<std::size_t>(pairs)) next_pair = 0;
    }
    BENCH_CUDA_CHECK(cudaEventRecord(ev_stop, stream));
    BENCH_CUDA_CHECK(cudaEventSynchronize(ev_stop));
    float ms = 0;
    BENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, ev_start, ev_stop));
    return ms;
  }

  template <class T>
  void run_size(scantune::DataType dt, const scantune::Policy& policy, std::size_t n);
  template <class T>
  void run_type(scantune::DataType dt);
};

template <class T>
void Bench::run_type(scantune::DataType dt) {
  const std::string key = bench::policy_key_for(opt, dt);
  const scantune::Policy policy = scantune::Policy::parse(key); // validated in main()
  bench::print_table_header(stdout, dt, policy.key());
  fail_lines.clear();
  for (std::size_t n : opt.sizes)
    run_size<T>(dt, policy, n);
  // FAIL lines go to stderr at once, and to stdout below the table (not inside it).
  if (!fail_lines.empty()) std::printf("\n");
  for (const std::string& line : fail_lines)
    std::printf("%s\n", line.c_str());
  bench::print_skips(stdout, skips, dt);
}

template <class T>
void Bench::run_size(scantune::DataType dt, const scantune::Policy& policy, std::size_t n) {
  const char* tname = bench::type_name(dt);
  const bool exclusive = opt.kind == scantune::ScanKind::Exclusive;
  const std::size_t bytes = n * sizeof(T);
  const std::size_t align_elems = kPairAlignBytes / sizeof(T);
  const std::size_t stride = (n + align_elems - 1) / align_elems * align_elems; // elements
  const std::size_t pair_bytes = 2 * stride * sizeof(T);

  Row row;
  row.type = dt;
  row.n = n;
  row.elem_bytes = sizeof(T);
  row.policy = policy.key();
  row.check = opt.verify ? "ok" : "off";
  try {
    row.dispatch_policy = scanner.plan(dt, scantune::Op::Sum, opt.kind, n).policy;
  } catch (const std::exception& e) {
    row.dispatch_policy = "?";
    std::fprintf(stderr, "scantune_bench: %s n = %s: plan threw: %s\n", tname,
                 bench::size_label(n).c_str(), e.what());
  }

  // CUB's temporary storage: queried and allocated once, outside every timed loop.
  std::size_t temp_bytes = 0;
  BENCH_CUDA_CHECK(cub_sum<T>(exclusive, nullptr, temp_bytes, nullptr, nullptr, n, stream));
  row.cub_temp_bytes = temp_bytes;

  // Memory: one pair at least; rotation as far as it fits. The reserve leaves room for
  // CUB's temporary storage, scantune's workspace (comparable in size) and the context.
  std::size_t free_b = 0, total_b = 0;
  BENCH_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const std::size_t reserve = 256 * kMiB + total_b / 100 + 3 * temp_bytes;
  const std::size_t usable = free_b > reserve ? free_b - reserve : 0;
  const std::size_t fit_pairs = usable / pair_bytes;
  if (fit_pairs == 0) {
    const std::string why = "needs " + gib_str(pair_bytes) + " for one input/output pair (+ " +
                            gib_str(reserve) + " reserve), " + gib_str(free_b) + " free";
    skips.push_back({dt, n, why});
    progress(tname, n, "skipped: " + why);
    return;
  }
  std::size_t want_pairs = 1;
  if (opt.pairs > 0) {
    want_pairs = static_cast<std::size_t>(opt.pairs);
  } else if (!opt.hot) {
    want_pairs = (rotation_target_bytes() + 2 * bytes - 1) / (2 * bytes);
    want_pairs = std::min(std::max<std::size_t>(want_pairs, 1), kMaxAutoPairs);
  }
  std::size_t pairs = std::min(want_pairs, fit_pairs);
  if (opt.pairs > 0 && pairs < want_pairs)
    std::fprintf(stderr, "note: %s n = %s: --pairs %d reduced to %zu to fit in device memory\n",
                 tname, bench::size_label(n).c_str(), opt.pairs, pairs);

  DeviceBuffer in_slab, out_slab, temp;
  while (true) {
    if (in_slab.allocate(stride * sizeof(T) * pairs) &&
        out_slab.allocate(stride * sizeof(T) * pairs))
      break;
    in_slab.reset();
    out_slab.reset();
    if (pairs == 1) {
      const std::string why = "cudaMalloc of " + gib_str(pair_bytes) + " for one pair failed";
      skips.push_back({dt, n, why});
      progress(tname, n, "skipped: " + why);
      return;
    }
    pairs = std::max<std::size_t>(1, pairs / 2);
  }
  if (!temp.allocate(temp_bytes)) {
    const std::string why =
        "cudaMalloc of CUB's " + std::to_string(temp_bytes) + "-byte temp storage failed";
    skips.push_back({dt, n, why});
    progress(tname, n, "skipped: " + why);
    return;
  }
  row.pairs = static_cast<int>(pairs);
  T* const ins = static_cast<T*>(in_slab.ptr);
  T* const outs = static_cast<T*>(out_slab.ptr);
  const auto in_at = [=](int p) -> const T* { return ins + static_cast<std::size_t>(p) * stride; };
  const auto out_at = [=](int p) -> T* { return outs + static_cast<std::size_t>(p) * stride; };
  fill_slab<T>(ins, stride, n, static_cast<int>(pairs), opt.seed, stream);
  BENCH_CUDA_CHECK(cudaMemsetAsync(outs, 0, stride * sizeof(T) * pairs, stream));
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));

  // The four methods, each as "one call on buffers (in, out)".
  void* const temp_ptr = temp.ptr;
  cudaStream_t const s = stream;
  scantune::Scanner& sc = scanner;
  const scantune::ScanKind kind = opt.kind;
  const std::function<void(const T*, T*)> call[bench::kNumMethods] = {
      [=](const T* in, T* out) {
        BENCH_CUDA_CHECK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, s));
      },
      [=](const T* in, T* out) {
        std::size_t tb = temp_bytes;
        BENCH_CUDA_CHECK(cub_sum<T>(exclusive, temp_ptr, tb, in, out, n, s));
      },
      [=, &sc, &policy](const T* in, T* out) {
        scantune::detail::scan_with<T>(sc, policy, kind, in, out, n, scantune::Op::Sum, T(0), s);
      },
      [=, &sc](const T* in, T* out) {
        if (exclusive)
          sc.exclusive_scan<T>(in, out, n, scantune::Op::Sum, T(0), s);
        else
          sc.inclusive_scan<T>(in, out, n, scantune::Op::Sum, s);
      },
  };
  const auto label = [&](int m) {
    if (m == bench::kCub)
      return std::string("CUB ") + (exclusive ? "ExclusiveSum" : "InclusiveSum");
    if (m == bench::kPolicy) return "scantune scan_with(" + row.policy + ")";
    if (m == bench::kDispatch) return "scantune default dispatch (" + row.dispatch_policy + ")";
    return std::string("memcpy");
  };
  bool active[bench::kNumMethods] = {true, true, true, true};
  const auto record_error = [&](int m, const std::exception& e) {
    row.m[m].error = e.what();
    active[m] = false;
    fail(std::string("FAIL: ") + tname + " n = " + bench::size_label(n) + " " +
         bench::kind_name(kind) + " sum, " + label(m) + " threw: " + e.what());
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  };

  // ---- Check against the host reference (also the warm-up, and scantune's compile).
  if (opt.verify) {
    progress(tname, n, "checking against the host reference");
    const int checked[kCheckedMethods] = {bench::kCub, bench::kPolicy, bench::kDispatch};
    // One output buffer per checked method, so that one pass over the reference checks
    // them all: the rotation's outputs, plus temporary ones where memory allows.
    std::vector<T*> result_bufs;
    for (std::size_t k = 0; k < std::min<std::size_t>(pairs, kCheckedMethods); ++k)
      result_bufs.push_back(out_at(static_cast<int>(k)));
    DeviceBuffer extra;
    if (result_bufs.size() < static_cast<std::size_t>(kCheckedMethods)) {
      const std::size_t missing = kCheckedMethods - result_bufs.size();
      std::size_t f = 0, t = 0;
      BENCH_CUDA_CHECK(cudaMemGetInfo(&f, &t));
      if (f > reserve + missing * stride * sizeof(T) &&
          extra.allocate(missing * stride * sizeof(T)))
        for (std::size_t k = 0; k < missing; ++k)
          result_bufs.push_back(static_cast<T*>(extra.ptr) + k * stride);
    }
    const int group = static_cast<int>(result_bufs.size());
    std::string failed;
    for (int g0 = 0; g0 < kCheckedMethods; g0 += group) {
      std::vector<const T*> check_outs;
      std::vector<int> check_methods;
      for (int k = 0; k < group && g0 + k < kCheckedMethods; ++k) {
        const int m = checked[g0 + k];
        T* out = result_bufs[static_cast<std::size_t>(k)];
        BENCH_CUDA_CHECK(cudaMemsetAsync(out, kSentinelByte, bytes, stream));
        try {
          call[m](in_at(0), out);
        } catch (const std::exception& e) {
          record_error(m, e);
          continue;
        }
        check_outs.push_back(out);
        check_methods.push_back(m);
      }
      BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
      BENCH_CUDA_CHECK(cudaGetLastError());
      const std::vector<bench::CheckResult> res =
          bench::check_scan<T>(check_outs, n, exclusive, opt.seed, *staging);
      for (std::size_t j = 0; j < res.size(); ++j) {
        if (res[j].ok) continue;
        const int m = check_methods[j];
        failed += failed.empty() ? "" : ",";
        failed += bench::method_name(static_cast<Method>(m));
        char detail[512];
        std::snprintf(detail, sizeof detail,
                      ": %zu of %zu elements differ from the host reference; first at index %zu: "
                      "expected %s, got %s",
                      res[j].mismatches, n, res[j].first, res[j].expected.c_str(),
                      res[j].got.c_str());
        fail(std::string("FAIL: ") + tname + " n = " + bench::size_label(n) + " " +
             bench::kind_name(kind) + " sum, " + label(m) + detail);
      }
    }
    if (!failed.empty())
      row.check = "FAIL " + failed;
    else if (row.m[bench::kCub].error.size() + row.m[bench::kPolicy].error.size() +
                 row.m[bench::kDispatch].error.size() >
             0)
      row.check = "error";
  }

  // ---- Warm-up: a few calls of every method on the first pairs (scantune compiles
  // its kernel on the first call of a configuration; that is kept out of the timing).
  progress(tname, n, "timing (" + std::to_string(pairs) + (pairs == 1 ? " pair)" : " pairs)"));
  for (int m = 0; m < bench::kNumMethods; ++m) {
    if (!active[m]) continue;
    try {
      for (int w = 0; w < 3; ++w)
        call[m](in_at(w % static_cast<int>(pairs)), out_at(w % static_cast<int>(pairs)));
    } catch (const std::exception& e) {
      record_error(m, e);
    }
  }
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  BENCH_CUDA_CHECK(cudaGetLastError());

  // ---- Calibrate the batch size per method: a batch of small calls lasts >= min_batch_ms.
  const double target_ms = opt.min_batch_ms;
  long calls[bench::kNumMethods] = {1, 1, 1, 1};
  std::size_t next_pair[bench::kNumMethods] = {0, 0, 0, 0};
  double est_ms[bench::kNumMethods] = {0, 0, 0, 0};
  for (int m = 0; m < bench::kNumMethods; ++m) {
    if (!active[m]) continue;
    const auto launch = [&](int p) { call[m](in_at(p), out_at(p)); };
    try {
      long k = 1;
      double per = time_batch(launch, k, next_pair[m], static_cast<int>(pairs));
      for (int round = 0;
           round < 3 && per * static_cast<double>(k) < target_ms && k < opt.max_calls_per_batch;
           ++round) {
        const double need = target_ms / std::max(per, 1e-4) * 1.1;
        k = std::min<long>(opt.max_calls_per_batch,
                           std::max<long>(k * 2, static_cast<long>(std::ceil(need))));
        per = time_batch(launch, k, next_pair[m], static_cast<int>(pairs)) / static_cast<double>(k);
      }
      calls[m] = k;
      est_ms[m] = per;
    } catch (const std::exception& e) {
      record_error(m, e);
    }
  }

  // ---- Timed batches, the methods interleaved so that clock or thermal drift hits all
  // of them alike. Very slow calls (> 50 ms) get fewer batches to bound the run time.
  int batches = opt.batches;
  for (int m = 0; m < bench::kNumMethods; ++m)
    if (active[m] && est_ms[m] > 50.0)
      batches = std::min(batches, std::max(3, static_cast<int>(1000.0 / est_ms[m])));
  std::vector<double> samples[bench::kNumMethods];
  for (int b = 0; b < batches; ++b) {
    for (int m = 0; m < bench::kNumMethods; ++m) {
      if (!active[m]) continue;
      const auto launch = [&](int p) { call[m](in_at(p), out_at(p)); };
      try {
        const double ms = time_batch(launch, calls[m], next_pair[m], static_cast<int>(pairs));
        samples[m].push_back(ms * 1e6 / static_cast<double>(calls[m])); // ns per call
      } catch (const std::exception& e) {
        record_error(m, e);
      }
    }
  }
  BENCH_CUDA_CHECK(cudaGetLastError());
  for (int m = 0; m < bench::kNumMethods; ++m) {
    if (!active[m] || samples[m].empty()) continue;
    Measurement& r = row.m[m];
    r.valid = true;
    r.ns_per_call = median(samples[m]);
    r.min_ns = *std::min_element(samples[m].begin(), samples[m].end());
    r.max_ns = *std::max_element(samples[m].begin(), samples[m].end());
    r.calls_per_batch = calls[m];
    r.batches = static_cast<int>(samples[m].size());
  }
  bench::print_row(stdout, row);
  rows.push_back(std::move(row));
}

} // namespace

int main(int argc, char** argv) {
  bench::Options opt;
  if (const int rc = bench::parse_options(argc, argv, opt); rc >= 0) return rc;

  // Every hand-picked policy must parse and be valid for its type before anything runs.
  std::map<scantune::DataType, std::string> policies;
  for (scantune::DataType t : opt.types) {
    const std::string key = bench::policy_key_for(opt, t);
    try {
      const scantune::Policy p = scantune::Policy::parse(key);
      if (auto why = p.invalid_reason(t)) {
        std::fprintf(stderr,
                     "scantune_bench: policy '%s' is invalid for %s: %s\n"
                     "  (give per-type policies with --policy TYPE=KEY, or restrict --types)\n",
                     key.c_str(), bench::type_name(t), why->c_str());
        return bench::kExitUsage;
      }
      policies[t] = p.key();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "scantune_bench: bad --policy '%s': %s\n", key.c_str(), e.what());
      return bench::kExitUsage;
    }
  }

  int device_count = 0;
  const cudaError_t count_err = cudaGetDeviceCount(&device_count);
  if (count_err != cudaSuccess || device_count == 0) {
    std::fprintf(stderr, "scantune_bench: no CUDA device found (%s); nothing to benchmark\n",
                 count_err != cudaSuccess ? cudaGetErrorString(count_err) : "device count is 0");
    return bench::kExitNoGpu;
  }
  if (opt.device < 0 || opt.device >= device_count) {
    std::fprintf(stderr, "scantune_bench: --device %d out of range (%d device%s)\n", opt.device,
                 device_count, device_count == 1 ? "" : "s");
    return bench::kExitUsage;
  }
  BENCH_CUDA_CHECK(cudaSetDevice(opt.device));

  bench::RunInfo info;
  {
    cudaDeviceProp prop{};
    BENCH_CUDA_CHECK(cudaGetDeviceProperties(&prop, opt.device));
    info.device = opt.device;
    info.device_name = prop.name;
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    int mem_clock_khz = 0, bus_bits = 0;
    if (cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, opt.device) ==
            cudaSuccess &&
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, opt.device) ==
            cudaSuccess)
      info.peak_gbps = 2.0 * mem_clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    (void)cudaGetLastError();
    BENCH_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
    BENCH_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
    BENCH_CUDA_CHECK(cudaMemGetInfo(&info.mem_free, &info.mem_total));
  }
  info.cub_version = CUB_VERSION;
  info.date = utc_now();
  info.command = opt.command_line;
  info.kind = bench::kind_name(opt.kind);
  info.hot = opt.hot;
  info.batches = opt.batches;
  info.min_batch_ms = opt.min_batch_ms;
  info.verify = opt.verify;
  info.policies = policies;
  {
    char buf[160];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(opt.seed));
    info.input =
        std::string("random, never zero, generated on the device by a counter-based hash (seed ") +
        buf +
        "): integers uniform in [-127,-1] U [1,127], floating point uniform in {-2,-1,1,2} "
        "(prefix sums stay small integers, so float results are exact)";
  }

  scantune::ScannerOptions sopt;
  sopt.device = opt.device;
  std::unique_ptr<scantune::Scanner> scanner;
  try {
    scanner = std::make_unique<scantune::Scanner>(sopt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scantune_bench: cannot create a scantune::Scanner: %s\n", e.what());
    return bench::kExitFailure;
  }

  std::unique_ptr<bench::HostStaging> staging;
  if (opt.verify)
    staging = std::make_unique<bench::HostStaging>(kStagingSlotBytes, kCheckedMethods);

  Bench b{opt, *scanner, staging.get()};
  b.l2_bytes = info.l2_bytes;
  BENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
  BENCH_CUDA_CHECK(cudaEventCreate(&b.ev_start));
  BENCH_CUDA_CHECK(cudaEventCreate(&b.ev_stop));

  if (opt.hot) {
    info.rotation = "one pair";
  } else if (opt.pairs > 0) {
    info.rotation = "each call moves to the next of " + std::to_string(opt.pairs) +
                    " input/output pairs (--pairs; fewer where memory is short)";
  } else {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "each call moves to the next of as many input/output pairs as make the footprint "
                  ">= %.0f MiB (%s), at most %zu pairs and as memory allows",
                  static_cast<double>(b.rotation_target_bytes()) / kMiB,
                  opt.rotate_mib > 0 ? "--rotate-mib" : "4 x L2", kMaxAutoPairs);
    info.rotation = buf;
  }
  bench::print_preamble(stdout, info);

  try {
    for (scantune::DataType t : opt.types) {
      switch (t) {
      case scantune::DataType::Int32:
        b.run_type<std::int32_t>(t);
        break;
      case scantune::DataType::UInt32:
        b.run_type<std::uint32_t>(t);
        break;
      case scantune::DataType::Int64:
        b.run_type<std::int64_t>(t);
        break;
      case scantune::DataType::UInt64:
        b.run_type<std::uint64_t>(t);
        break;
      case scantune::DataType::Float32:
        b.run_type<float>(t);
        break;
      case scantune::DataType::Float64:
        b.run_type<double>(t);
        break;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scantune_bench: %s\n", e.what());
    return bench::kExitFailure;
  }
  bench::print_summary(stdout, b.rows);

  int rc = b.failures > 0 ? bench::kExitFailure : bench::kExitOk;
  if (!opt.csv_path.empty() && !bench::write_csv(opt.csv_path, info, b.rows))
    rc = bench::kExitFailure;
  if (!opt.json_path.empty() && !bench::write_json(opt.json_path, info, b.rows, b.skips))
    rc = bench::kExitFailure;

  // The scanner may hold workspaces tied to the stream: release it before the stream.
  BENCH_CUDA_CHECK(cudaStreamSynchronize(b.stream));
  scanner.reset();
  BENCH_CUDA_CHECK(cudaEventDestroy(b.ev_start));
  BENCH_CUDA_CHECK(cudaEventDestroy(b.ev_stop));
  BENCH_CUDA_CHECK(cudaStreamDestroy(b.stream));
  if (b.failures > 0)
    std::fprintf(stderr, "scantune_bench: %d failure%s (see the FAIL lines)\n", b.failures,
                 b.failures == 1 ? "" : "s");
  if (!opt.quiet) {
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - b.t0).count();
    std::fprintf(stderr, "scantune_bench: done in %.1f s\n", secs);
  }
  return rc;
}

// The dispatcher on a real GPU: tuning-database fallbacks, the built-in table,
// many threads and streams at once, CUDA graph capture and replay, the hot path
// (no allocation, <= 1 us over a bare launch), fallback logging, and tuning on
// first use.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>
#include <thread>

#include "cache/tuning_db.hpp"
#include "common/child_process.hpp"
#include "common/gpu.hpp"
#include "common/scan_reference.hpp"
#include "device_query.hpp"
#include "kernel_registry.hpp"
#include "nvrtc_compiler.hpp"
#include "workspace.hpp"

// Counts operator new calls while enabled (the whole process: libscantune's too).
// GCC pairs the inlined replacement delete (free) with the replacement new it
// cannot see is malloc; the pairing is right.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
std::atomic<bool> g_count_allocations{false};
std::atomic<long> g_allocations{0};
} // namespace
void* operator new(std::size_t n) {
  if (g_count_allocations.load(std::memory_order_relaxed)) ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace scantune::test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

class TempPath {
public:
  explicit TempPath(const std::string& name)
      : path_(fs::temp_directory_path() /
              ("scantune-dispatch-" + std::to_string(::getpid()) + "-" + name)) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempPath() { fs::remove_all(path_); }
  fs::path operator/(const std::string& s) const { return path_ / s; }

private:
  fs::path path_;
};

template <class T>
void expect_scan(Scanner& s, Op op, ScanKind kind, std::size_t n, std::uint64_t seed,
                 cudaStream_t stream = nullptr) {
  const auto in = make_input<T>(n, op, seed);
  const T init = make_init<T>(op);
  DeviceBuffer<T> d_in(n), d_out(n);
  d_in.upload(in);
  d_out.poison();
  if (kind == ScanKind::Inclusive)
    s.inclusive_scan(d_in.ptr, d_out.ptr, n, op, stream);
  else
    s.exclusive_scan(d_in.ptr, d_out.ptr, n, op, init, stream);
  SCANTUNE_CUDA_TRY(cudaStreamSynchronize(stream));
  EXPECT_EQ(d_out.download(n), reference_scan(in, op, kind, init))
      << to_string(data_type_of<T>()) << " " << to_string(op) << " n = " << n;
}

db::BestEntry entry(std::int64_t dev, const char* type, const char* kind, std::uint64_t size,
                    const char* policy) {
  db::BestEntry e;
  e.device_id = dev;
  e.type = type;
  e.op = "sum";
  e.kind = kind;
  e.size = size;
  e.policy = policy;
  e.ns = 1000;
  e.gbs = 1;
  return e;
}

constexpr const char* kOwn = "lookback_thread.tpb128.ipt8.vec4.warp_scans";
constexpr const char* kOther = "reduce_then_scan.tpb256.ipt8.vec2.blelloch";
constexpr const char* kForeign = "chained.tpb64.ipt2.vec1.hillis_steele";

class GpuDispatch : public GpuTest {};

TEST_F(GpuDispatch, TuningDatabaseFallbackChain) {
  TempPath dir("chain");
  const db::DeviceInfo here = db::query_device(0);
  {
    auto tdb = db::TuningDb::open(dir / "tuning.db");
    const auto own = tdb.add_device(here);
    db::DeviceInfo twin = here; // same architecture, another model
    twin.name += " (twin)";
    twin.uuid = "GPU-00000000-0000-0000-0000-00000000abcd";
    const auto other = tdb.add_device(twin);
    db::DeviceInfo foreign = here; // another compute capability
    foreign.name = "Foreign GPU";
    foreign.cc_major = here.cc_major == 7 ? 8 : 7;
    foreign.uuid = "GPU-00000000-0000-0000-0000-00000000beef";
    const auto far = tdb.add_device(foreign);
    tdb.set_best(entry(own, "int32", "inclusive", 1u << 16, kOwn));
    tdb.set_best(entry(other, "int32", "exclusive", 1u << 16, kOther));
    tdb.set_best(entry(far, "int64", "inclusive", 1u << 16, kForeign));
  }
  Scanner s(ScannerOptions{0, (dir / "tuning.db").string(), ""});
  EXPECT_EQ(s.database_path(), (dir / "tuning.db").string());
  const Plan exact = s.plan(DataType::Int32, Op::Sum, ScanKind::Inclusive, 1u << 16);
  EXPECT_EQ(exact.match, Match::Exact);
  EXPECT_EQ(exact.policy, kOwn);
  const Plan nearest = s.plan(DataType::Int32, Op::Sum, ScanKind::Inclusive, 3000000);
  EXPECT_EQ(nearest.match, Match::NearestSize);
  EXPECT_EQ(nearest.policy, kOwn);
  const Plan twin = s.plan(DataType::Int32, Op::Sum, ScanKind::Exclusive, 1u << 16);
  EXPECT_EQ(twin.match, Match::SameArch);
  EXPECT_EQ(twin.policy, kOther);
  const Plan builtin = s.plan(DataType::Int64, Op::Sum, ScanKind::Inclusive, 1u << 16);
  EXPECT_EQ(builtin.match, Match::BuiltIn);
  EXPECT_NE(builtin.policy, kForeign);
  // Every plan runs and is right.
  expect_scan<std::int32_t>(s, Op::Sum, ScanKind::Inclusive, 1u << 16, 1);
  expect_scan<std::int32_t>(s, Op::Sum, ScanKind::Inclusive, 3000000, 2);
  expect_scan<std::int32_t>(s, Op::Sum, ScanKind::Exclusive, 1u << 16, 3);
  expect_scan<std::int64_t>(s, Op::Sum, ScanKind::Inclusive, 1u << 16, 4);

  // A new winner shows after reload_database().
  {
    auto tdb = db::TuningDb::open(dir / "tuning.db");
    tdb.set_best(entry(tdb.add_device(here), "int64", "inclusive", 1u << 16, kOther));
  }
  EXPECT_EQ(s.plan(DataType::Int64, Op::Sum, ScanKind::Inclusive, 1u << 16).match, Match::BuiltIn);
  s.reload_database();
  EXPECT_EQ(s.plan(DataType::Int64, Op::Sum, ScanKind::Inclusive, 1u << 16).policy, kOther);
  expect_scan<std::int64_t>(s, Op::Sum, ScanKind::Inclusive, 1u << 16, 5);
}

TEST_F(GpuDispatch, BuiltInTableServesSm90WithoutADatabase) {
  Scanner s(ScannerOptions{0, "off", ""});
  const db::DeviceInfo here = db::query_device(0);
  const Plan p = s.plan(DataType::Int32, Op::Sum, ScanKind::Inclusive, 1u << 20);
  EXPECT_EQ(p.match, Match::BuiltIn);
  EXPECT_EQ(s.database_path(), "");
  std::printf("%s: int32 sum inclusive 2^20 -> %s (%s)\n", here.model().c_str(), p.policy.c_str(),
              p.source.c_str());
  if (here.cc_major == 9 && here.cc_minor == 0) {
    EXPECT_NE(p.source.find("built-in table"), std::string::npos) << p.source;
  }
  expect_scan<float>(s, Op::Sum, ScanKind::Exclusive, (1u << 20) + 17, 6);
  expect_scan<std::uint64_t>(s, Op::Max, ScanKind::Inclusive, 999983, 7);
}

// 8 host threads x 4 streams each, all at once, mixed types, operators, kinds and
// sizes (tuned buckets and between them): each stream has its own workspace.
TEST_F(GpuDispatch, EightThreadsTimesFourStreams) {
  Scanner s;
  constexpr int kThreads = 8, kStreams = 4, kRounds = 6;
  const std::size_t sizes[] = {1, 1000, 77777, 1u << 16, 300007, (1u << 20) + 3, 2500000};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        cudaStream_t streams[kStreams];
        for (auto& st : streams)
          SCANTUNE_CUDA_TRY(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
        for (int round = 0; round < kRounds; ++round) {
          struct Job {
            std::vector<std::int64_t> in64, want64;
            std::vector<std::int32_t> in32, want32;
            std::unique_ptr<DeviceBuffer<std::int64_t>> d64;
            std::unique_ptr<DeviceBuffer<std::int32_t>> d32;
            std::size_t n;
          } jobs[kStreams];
          for (int k = 0; k < kStreams; ++k) {
            Job& j = jobs[k];
            const std::uint64_t seed = 1000 * t + 10 * round + k;
            j.n = sizes[(t + round + k) % std::size(sizes)];
            if ((t + k) % 2) { // in place, int64 exclusive max
              j.in64 = make_input<std::int64_t>(j.n, Op::Max, seed);
              j.want64 = reference_scan(j.in64, Op::Max, ScanKind::Exclusive, std::int64_t{-7});
              j.d64 = std::make_unique<DeviceBuffer<std::int64_t>>(j.n);
              j.d64->upload(j.in64);
              s.exclusive_scan(j.d64->ptr, j.d64->ptr, j.n, Op::Max, std::int64_t{-7}, streams[k]);
            } else { // in place, int32 inclusive sum
              j.in32 = make_input<std::int32_t>(j.n, Op::Sum, seed);
              j.want32 = reference_scan(j.in32, Op::Sum, ScanKind::Inclusive, 0);
              j.d32 = std::make_unique<DeviceBuffer<std::int32_t>>(j.n);
              j.d32->upload(j.in32);
              s.inclusive_scan(j.d32->ptr, j.d32->ptr, j.n, Op::Sum, streams[k]);
            }
          }
          for (int k = 0; k < kStreams; ++k) {
            SCANTUNE_CUDA_TRY(cudaStreamSynchronize(streams[k]));
            const Job& j = jobs[k];
            const bool ok =
                j.d64 ? j.d64->download(j.n) == j.want64 : j.d32->download(j.n) == j.want32;
            if (!ok) {
              ++failures;
              ADD_FAILURE() << "thread " << t << " stream " << k << " round " << round
                            << " n = " << j.n;
            }
          }
        }
        for (auto& st : streams)
          SCANTUNE_CUDA_TRY(cudaStreamDestroy(st));
      } catch (const std::exception& e) {
        ++failures;
        ADD_FAILURE() << "thread " << t << ": " << e.what();
      }
    });
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(failures.load(), 0);
}

// Captured calls replay correctly with new inputs, and two graphs run at once.
// prepare() compiles what a call runs; a caller-owned workspace, zeroed once, serves
// repeated calls of several sizes in stream order.
TEST_F(GpuDispatch, PrepareAndCallerWorkspace) {
  Scanner s(ScannerOptions{0, "off", ""});
  const std::size_t n = (1u << 22) + 7;
  s.prepare(DataType::Int32, Op::Sum, ScanKind::Inclusive, n);
  const long compiles = detail::nvrtc_compile_count();
  const std::size_t bytes = s.workspace_bytes(DataType::Int32, Op::Sum, ScanKind::Inclusive, n);
  DeviceBuffer<unsigned char> ws(bytes);
  SCANTUNE_CUDA_TRY(cudaMemset(ws.ptr, 0, std::max<std::size_t>(bytes, 1)));
  const std::vector<std::int32_t> in = make_input<std::int32_t>(n, Op::Sum, 11);
  DeviceBuffer<std::int32_t> d_in(n), d_out(n);
  d_in.upload(in);
  for (int rep = 0; rep < 3; ++rep) {
    d_out.poison();
    s.inclusive_scan(d_in.ptr, d_out.ptr, n, Op::Sum, nullptr, Workspace{ws.ptr, bytes});
    EXPECT_EQ(d_out.download(n), reference_scan(in, Op::Sum, ScanKind::Inclusive, 0)) << rep;
  }
  EXPECT_EQ(detail::nvrtc_compile_count(), compiles); // prepared: nothing compiled since
  if (bytes > 0) {
    EXPECT_THROW(
        s.inclusive_scan(d_in.ptr, d_out.ptr, n, Op::Sum, nullptr, Workspace{ws.ptr, bytes / 2}),
        Error);
  }
}

TEST_F(GpuDispatch, GraphCaptureAndReplay) {
  Scanner s;
  const std::size_t n1 = (1u << 21) + 5, n2 = 50021;
  DeviceBuffer<std::int32_t> a_in(n1), a_out(n1), b_in(n1), b_out(n1);
  DeviceBuffer<std::int64_t> c(n2); // in place
  cudaStream_t s1, s2;
  SCANTUNE_CUDA_TRY(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  SCANTUNE_CUDA_TRY(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  // Warm: compile outside capture.
  s.inclusive_scan(a_in.ptr, a_out.ptr, n1, Op::Sum, s1);
  s.exclusive_scan(c.ptr, c.ptr, n2, Op::Max, std::int64_t{5}, s1);
  SCANTUNE_CUDA_TRY(cudaStreamSynchronize(s1));
  const long compiles = detail::nvrtc_compile_count();

  auto capture = [&](cudaStream_t st, DeviceBuffer<std::int32_t>& in,
                     DeviceBuffer<std::int32_t>& out, bool with_c) {
    cudaGraph_t g;
    SCANTUNE_CUDA_TRY(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    s.inclusive_scan(in.ptr, out.ptr, n1, Op::Sum, st);
    if (with_c) s.exclusive_scan(c.ptr, c.ptr, n2, Op::Max, std::int64_t{5}, st);
    SCANTUNE_CUDA_TRY(cudaStreamEndCapture(st, &g));
    cudaGraphExec_t exec;
    SCANTUNE_CUDA_TRY(cudaGraphInstantiate(&exec, g, 0));
    SCANTUNE_CUDA_TRY(cudaGraphDestroy(g));
    return exec;
  };
  cudaGraphExec_t ga = capture(s1, a_in, a_out, true);
  cudaGraphExec_t gb = capture(s2, b_in, b_out, false);
  EXPECT_EQ(detail::nvrtc_compile_count(), compiles);

  for (int rep = 0; rep < 5; ++rep) {
    const auto in_a = make_input<std::int32_t>(n1, Op::Sum, 10 + rep);
    const auto in_b = make_input<std::int32_t>(n1, Op::Sum, 20 + rep);
    const auto in_c = make_input<std::int64_t>(n2, Op::Max, 30 + rep);
    a_in.upload(in_a);
    b_in.upload(in_b);
    c.upload(in_c);
    a_out.poison();
    b_out.poison();
    SCANTUNE_CUDA_TRY(cudaGraphLaunch(ga, s1));
    SCANTUNE_CUDA_TRY(cudaGraphLaunch(gb, s2)); // concurrently with ga
    SCANTUNE_CUDA_TRY(cudaStreamSynchronize(s1));
    SCANTUNE_CUDA_TRY(cudaStreamSynchronize(s2));
    EXPECT_EQ(a_out.download(n1), reference_scan(in_a, Op::Sum, ScanKind::Inclusive, 0));
    EXPECT_EQ(b_out.download(n1), reference_scan(in_b, Op::Sum, ScanKind::Inclusive, 0));
    EXPECT_EQ(c.download(n2), reference_scan(in_c, Op::Max, ScanKind::Exclusive, std::int64_t{5}));
  }
  // The streams still scan normally after capture.
  expect_scan<std::int32_t>(s, Op::Sum, ScanKind::Inclusive, n1, 40, s1);
  SCANTUNE_CUDA_TRY(cudaGraphExecDestroy(ga));
  SCANTUNE_CUDA_TRY(cudaGraphExecDestroy(gb));
  SCANTUNE_CUDA_TRY(cudaStreamDestroy(s1));
  SCANTUNE_CUDA_TRY(cudaStreamDestroy(s2));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A warm call costs <= 1 us of host time over a bare cudaLaunchKernel of the
// same kernel, and allocates nothing.
TEST_F(GpuDispatch, HotPathOverheadAndNoAllocation) {
  Scanner s(ScannerOptions{0, "off", ""});
  const std::size_t n = 1024;
  const Plan plan = s.plan(DataType::Int32, Op::Sum, ScanKind::Inclusive, n);
  const Policy p = Policy::parse(plan.policy);
  if (!p.uses_tile_status() && p.algorithm != Algorithm::SingleBlock)
    GTEST_SKIP() << "the plan " << p.key() << " is not a one-launch algorithm";
  DeviceBuffer<std::int32_t> in(n), out(n);
  in.upload(make_input<std::int32_t>(n, Op::Sum, 1));
  cudaStream_t st;
  SCANTUNE_CUDA_TRY(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  s.inclusive_scan(in.ptr, out.ptr, n, Op::Sum, st); // warm: compile, workspace
  SCANTUNE_CUDA_TRY(cudaStreamSynchronize(st));

  // The bare launch: the same kernel, arguments and grid, its own zeroed workspace.
  cudaDeviceProp prop{};
  SCANTUNE_CUDA_TRY(cudaGetDeviceProperties(&prop, 0));
  const detail::KernelSpec spec{p, DataType::Int32, detail::OpSpec::from(Op::Sum),
                                ScanKind::Inclusive};
  auto kernels =
      detail::KernelRegistry::instance().get(spec, prop.major * 10 + prop.minor, nullptr);
  const unsigned tiles = static_cast<unsigned>((n + p.tile_items() - 1) / p.tile_items());
  const std::size_t ws_bytes = detail::WorkspacePool::status_bytes(tiles);
  DeviceBuffer<char> ws(ws_bytes);
  SCANTUNE_CUDA_TRY(cudaMemset(ws.ptr, 0, ws_bytes));
  const void* a_in = in.ptr;
  void* a_out = out.ptr;
  unsigned long long a_n = n;
  alignas(8) unsigned char init[8] = {};
  unsigned shift = 0, flags = 1;
  void* a_ws = ws.ptr;
  const void* a_start = nullptr; // no start value in device memory
  void* args[] = {&a_in, &a_out, &a_n, init, &shift, &flags, &a_ws, &a_start};
  const unsigned grid = p.algorithm == Algorithm::SingleBlock ? 1 : tiles;
  const void* fn = reinterpret_cast<const void*>(kernels->kernels.at(0));

  constexpr int kBatch = 200, kBatches = 25;
  std::vector<double> scan_us, bare_us;
  long allocations = 0, bare_allocations = 0;
  for (int b = 0; b < kBatches; ++b) {
    g_allocations = 0;
    g_count_allocations = true;
    auto t0 = Clock::now();
    for (int i = 0; i < kBatch; ++i)
      s.inclusive_scan(in.ptr, out.ptr, n, Op::Sum, st);
    auto t1 = Clock::now();
    g_count_allocations = false;
    allocations += g_allocations.exchange(0);
    SCANTUNE_CUDA_TRY(cudaStreamSynchronize(st));
    g_count_allocations = true;
    auto t2 = Clock::now();
    for (int i = 0; i < kBatch; ++i)
      SCANTUNE_CUDA_TRY(cudaLaunchKernel(
          fn, dim3(grid), dim3(static_cast<unsigned>(p.block_threads)), args, 0, st));
    auto t3 = Clock::now();
    g_count_allocations = false;
    bare_allocations += g_allocations.exchange(0);
    SCANTUNE_CUDA_TRY(cudaStreamSynchronize(st));
    scan_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kBatch);
    bare_us.push_back(std::chrono::duration<double, std::micro>(t3 - t2).count() / kBatch);
  }
  const double scan = median(scan_us), bare = median(bare_us);
  std::printf("host time per call, n = %zu, %s: Scanner::inclusive_scan %.3f us, bare "
              "cudaLaunchKernel %.3f us, dispatch overhead %.3f us; allocations %ld (bare %ld) in "
              "%d calls\n",
              n, p.key().c_str(), scan, bare, scan - bare, allocations, bare_allocations,
              kBatch * kBatches);
  EXPECT_LE(scan - bare, 1.0);
  EXPECT_EQ(allocations, bare_allocations);
  EXPECT_EQ(allocations, 0);
  SCANTUNE_CUDA_TRY(cudaStreamDestroy(st));
}

// Child of FallbacksAreLoggedOnce: scans an untuned problem at three sizes of one
// bucket, twice each, and one size of another bucket.
TEST(GpuDispatchChild, ScanUntunedBuckets) {
  if (!std::getenv("SCANTUNE_TEST_DISPATCH_CHILD")) GTEST_SKIP() << "runs as a child only";
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device";
  Scanner s;
  for (int rep = 0; rep < 2; ++rep)
    for (std::size_t n : {800000u, 900000u, 1000000u, 5000u})
      expect_scan<std::uint32_t>(s, Op::BitXor, ScanKind::Exclusive, n, rep);
}

TEST_F(GpuDispatch, FallbacksAreLoggedOnce) {
  TempPath dir("log");
  ASSERT_EQ(run_self("GpuDispatchChild.ScanUntunedBuckets",
                     {{"SCANTUNE_TEST_DISPATCH_CHILD", "1"},
                      {"SCANTUNE_LOG", "info"},
                      {"SCANTUNE_DB", (dir / "none.db").string()}},
                     dir / "stderr.txt"),
            0);
  std::ifstream in(dir / "stderr.txt");
  std::string line, all;
  int fallbacks = 0, dispatch_lines = 0;
  while (std::getline(in, line)) {
    all += line + "\n";
    fallbacks += line.find("uint32 bit_xor exclusive") != std::string::npos &&
                 line.find(" builtin -> ") != std::string::npos;
    dispatch_lines += line.find("dispatch for ") != std::string::npos;
  }
  EXPECT_EQ(fallbacks, 2) << all; // buckets 2^20 and 1.5x2^12, once each
  EXPECT_EQ(dispatch_lines, 1) << all;
}

// SCANTUNE_AUTOTUNE=1: the first call of an untuned bucket runs on the fallback
// and starts `scantune tune` in the background; afterwards the bucket is Exact.
TEST_F(GpuDispatch, TuneOnFirstUse) {
  TempPath dir("autotune");
  // The build's tuner unless the caller names one (SCANTUNE_TUNER wins in the library).
  setenv("SCANTUNE_TUNER", SCANTUNE_CLI, 0);
  const char* old = std::getenv("SCANTUNE_AUTOTUNE");
  setenv("SCANTUNE_AUTOTUNE", "1", 1);
  setenv("SCANTUNE_AUTOTUNE_BUDGET", "40s", 1);
  Scanner s(ScannerOptions{0, (dir / "tuning.db").string(), ""});
  if (old)
    setenv("SCANTUNE_AUTOTUNE", old, 1);
  else
    unsetenv("SCANTUNE_AUTOTUNE");
  const std::size_t n = 3u << 20;
  EXPECT_NE(s.plan(DataType::Int32, Op::Min, ScanKind::Inclusive, n).match, Match::Exact);
  expect_scan<std::int32_t>(s, Op::Min, ScanKind::Inclusive, n, 1); // starts the tuning
  expect_scan<std::int32_t>(s, Op::Min, ScanKind::Inclusive, n, 2); // still the fallback
  const auto start = Clock::now();
  s.wait_for_autotune();
  std::printf("background tuning took %.1f s\n",
              std::chrono::duration<double>(Clock::now() - start).count());
  const Plan after = s.plan(DataType::Int32, Op::Min, ScanKind::Inclusive, n);
  EXPECT_EQ(after.match, Match::Exact) << after.source;
  expect_scan<std::int32_t>(s, Op::Min, ScanKind::Inclusive, n, 3);
  auto tdb = db::TuningDb::open_existing_read_only(dir / "tuning.db");
  ASSERT_TRUE(tdb.has_value());
  EXPECT_EQ(tdb->list_best().size(), 1u);
}

} // namespace
} // namespace scantune::test

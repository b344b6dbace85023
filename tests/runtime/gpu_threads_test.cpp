// One Scanner used from 8 host threads at once, each on its own stream, all
// asking for the same not-yet-compiled kernel: exactly one NVRTC compile, and
// every result correct.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "common/gpu.hpp"
#include "common/scan_reference.hpp"
#include "common/spec_sets.hpp"
#include "nvrtc_compiler.hpp"
#include "scan_request.hpp"

namespace scantune::test {
namespace {

TEST_F(GpuTest, OneCompilePerColdKeyAcrossThreads) {
  Scanner scanner(
      ScannerOptions{-1, "", "off"}); // no disk cache: an earlier process may have filled it
  // A policy no other test uses, so its key is cold in this process.
  const Policy p = make_policy(Algorithm::LookbackWarp, 160, 6, 2, BlockScan::BlellochPadded,
                               TileIO::Transpose, 70);
  constexpr int kThreads = 8;
  const std::size_t n = 300007;
  auto in = make_input<std::int64_t>(n, Op::Sum, 8);
  const auto want = reference_scan(in, Op::Sum, ScanKind::Inclusive, std::int64_t{0});
  DeviceBuffer<std::int64_t> d_in(n);
  d_in.upload(in);
  std::vector<std::unique_ptr<DeviceBuffer<std::int64_t>>> outs;
  for (int t = 0; t < kThreads; ++t)
    outs.push_back(std::make_unique<DeviceBuffer<std::int64_t>>(n));

  const long compiles_before = detail::nvrtc_compile_count();
  std::atomic<int> ready{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      cudaStream_t s;
      if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess)
        return void(++failures);
      ++ready;
      while (ready.load() < kThreads)
        std::this_thread::yield(); // all threads ask at once
      try {
        for (int rep = 0; rep < 20; ++rep)
          scantune::detail::scan_with(scanner, p, ScanKind::Inclusive, d_in.ptr, outs[t]->ptr, n,
                                      Op::Sum, std::int64_t{0}, s);
        if (cudaStreamSynchronize(s) != cudaSuccess) ++failures;
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
        ++failures;
      }
      cudaStreamDestroy(s);
    });
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(detail::nvrtc_compile_count() - compiles_before, 1);
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(outs[t]->download(n), want) << "thread " << t;
}

} // namespace
} // namespace scantune::test

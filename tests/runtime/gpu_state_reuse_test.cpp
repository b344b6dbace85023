// The workspace is reused across calls with no per-call initialisation: 2000
// back-to-back look-back scans on one stream (mixing types, so the status-slot
// layout changes between calls, and sizes, so tile counts grow and shrink), and
// the same on 4 streams at once. Every result is checked after one final sync.
#include <gtest/gtest.h>

#include "common/gpu.hpp"
#include "common/scan_reference.hpp"
#include "common/scoped_env.hpp"
#include "common/spec_sets.hpp"
#include "scan_request.hpp"

namespace scantune::test {
namespace {

struct Job {
  bool wide; // int64 (two status words per tile) or int32
  std::size_t n, in_offset, out_offset;
  ScanKind kind;
  Policy policy;
};

std::vector<Job> make_jobs(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const Policy warp =
      make_policy(Algorithm::LookbackWarp, 128, 4, 2, BlockScan::WarpScans, TileIO::Transpose);
  const Policy thread = make_policy(Algorithm::LookbackThread, 128, 4, 2, BlockScan::WarpScans,
                                    TileIO::Transpose, 50);
  const Policy chained =
      make_policy(Algorithm::Chained, 64, 2, 2, BlockScan::WarpScans, TileIO::Direct);
  // A resident grid taking tiles + blocks tickets: the reset differs from the others'.
  const Policy pipelined = make_policy(Algorithm::LookbackPipelined, 128, 4, 2,
                                       BlockScan::WarpScans, TileIO::WarpTranspose);
  Policy pipelined4 = pipelined; // takes 4 tickets before its first step
  pipelined4.stages = 4;
  // Role warps and bulk copies: tickets drawn ahead by the producer warp.
  Policy bulk =
      make_policy(Algorithm::LookbackBulk, 128, 4, 2, BlockScan::WarpScans, TileIO::Transpose);
  bulk.stages = 4;
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t r = rng();
    // Up to ~80 tiles of 512; every 100th job has more tiles than fit on the GPU
    // at once, so its tiles come by ticket while the others' follow blockIdx.
    const bool big = i % 100 == 99;
    const std::size_t n = big ? 1100000 + r % 400000 : 1 + r % 40000;
    const int which = big ? 1 + int((r >> 20) % 5) : int((r >> 20) % 8);
    jobs.push_back({(r >> 17) % 2 == 0, n, 0, 0,
                    (r >> 18) % 2 ? ScanKind::Inclusive : ScanKind::Exclusive,
                    which == 0   ? chained
                    : which < 3  ? thread
                    : which == 5 ? bulk
                    : which == 6 ? pipelined4
                    : which == 7 ? pipelined
                                 : warp});
  }
  return jobs;
}

// Enqueues every job on its stream, then syncs once and checks every output.
void run_jobs(const std::vector<Job>& jobs, const std::vector<cudaStream_t>& streams) {
  Scanner scanner;
  std::size_t total = 0;
  for (const auto& j : jobs)
    total += j.n;
  auto in32 = make_input<std::int32_t>(total, Op::Sum, 1);
  auto in64 = make_input<std::int64_t>(total, Op::Sum, 2);
  DeviceBuffer<std::int32_t> d_in32(total), d_out32(total);
  DeviceBuffer<std::int64_t> d_in64(total), d_out64(total);
  d_in32.upload(in32);
  d_in64.upload(in64);
  d_out32.poison();
  d_out64.poison();
  std::size_t at = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Job& j = jobs[i];
    cudaStream_t s = streams[i % streams.size()];
    if (j.wide)
      scantune::detail::scan_with(scanner, j.policy, j.kind, d_in64.ptr + at, d_out64.ptr + at, j.n,
                                  Op::Sum, std::int64_t{9}, s);
    else
      scantune::detail::scan_with(scanner, j.policy, j.kind, d_in32.ptr + at, d_out32.ptr + at, j.n,
                                  Op::Sum, std::int32_t{9}, s);
    at += j.n;
  }
  SCANTUNE_CUDA_TRY(cudaDeviceSynchronize());
  auto out32 = d_out32.download(total);
  auto out64 = d_out64.download(total);
  at = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Job& j = jobs[i];
    auto check = [&](const auto& in, const auto& out, auto init) {
      using T = decltype(init);
      std::vector<T> piece(in.begin() + long(at), in.begin() + long(at + j.n));
      auto want = reference_scan(piece, Op::Sum, j.kind, init);
      for (std::size_t e = 0; e < j.n; ++e)
        if (out[at + e] != want[e]) {
          ADD_FAILURE() << "call " << i << " (" << j.policy.key() << ", n=" << j.n << ", stream "
                        << i % streams.size() << ") wrong at " << e;
          return false;
        }
      return true;
    };
    if (!(j.wide ? check(in64, out64, std::int64_t{9}) : check(in32, out32, std::int32_t{9})))
      return;
    at += j.n;
  }
}

TEST_F(GpuTest, TwoThousandBackToBackLookbackScansOnOneStream) {
  cudaStream_t s;
  SCANTUNE_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  run_jobs(make_jobs(2000, 42), {s});
  SCANTUNE_CUDA_TRY(cudaStreamDestroy(s));
}

TEST_F(GpuTest, TwoThousandLookbackScansOnFourStreamsAtOnce) {
  std::vector<cudaStream_t> streams(4);
  for (auto& s : streams)
    SCANTUNE_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  run_jobs(make_jobs(2000, 43), streams);
  for (auto& s : streams)
    SCANTUNE_CUDA_TRY(cudaStreamDestroy(s));
}

// 28 in-place scans of one buffer, back to back on one stream with no sync: every
// algorithm, each call reading what the call before it wrote (programmatic
// dependent launch on sm_90+, or without it; single-pass tiles by blockIdx, or
// with SCANTUNE_TICKETS=1 by ticket).
void expect_dependent_chain(bool programmatic, bool tickets = false) {
  ScopedEnv knob("SCANTUNE_TICKETS", tickets ? std::optional<std::string>("1") : std::nullopt);
  ScannerOptions options;
  options.programmatic_launch = programmatic;
  Scanner scanner(options);
  const std::vector<Policy> policies = {
      make_policy(Algorithm::LookbackWarp, 128, 4, 2, BlockScan::WarpScans, TileIO::Transpose),
      make_policy(Algorithm::LookbackPipelined, 128, 4, 2, BlockScan::WarpScans,
                  TileIO::WarpTranspose),
      make_policy(Algorithm::LookbackBulk, 128, 8, 4, BlockScan::WarpScans, TileIO::Transpose),
      make_policy(Algorithm::ReduceThenScan, 256, 4, 2, BlockScan::WarpScans, TileIO::Transpose),
      make_policy(Algorithm::LookbackThread, 128, 4, 2, BlockScan::WarpScans, TileIO::Transpose,
                  50),
      make_policy(Algorithm::Chained, 64, 2, 2, BlockScan::WarpScans, TileIO::Direct),
      make_policy(Algorithm::SingleBlock, 256, 4, 2, BlockScan::WarpScans, TileIO::Transpose)};
  const std::size_t n = 300007;
  auto want = make_input<std::uint32_t>(n, Op::Sum, 5);
  DeviceBuffer<std::uint32_t> d(n);
  d.upload(want);
  cudaStream_t s;
  SCANTUNE_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int call = 0; call < 28; ++call) {
    const ScanKind kind = call % 3 == 2 ? ScanKind::Exclusive : ScanKind::Inclusive;
    scantune::detail::scan_with(scanner, policies[call % policies.size()], kind, d.ptr, d.ptr, n,
                                Op::Sum, std::uint32_t(call), s);
    want = reference_scan(want, Op::Sum, kind, std::uint32_t(call));
  }
  SCANTUNE_CUDA_TRY(cudaStreamSynchronize(s));
  SCANTUNE_CUDA_TRY(cudaStreamDestroy(s));
  EXPECT_EQ(d.download(n), want) << "programmatic launch " << programmatic << ", tickets "
                                 << tickets;
}

TEST_F(GpuTest, DependentInPlaceCallsWithProgrammaticLaunch) {
  expect_dependent_chain(true);
}

TEST_F(GpuTest, DependentInPlaceCallsWithoutProgrammaticLaunch) {
  expect_dependent_chain(false);
}

TEST_F(GpuTest, DependentInPlaceCallsWithTileTickets) {
  expect_dependent_chain(true, true);
}

TEST_F(GpuTest, FullRangeValuesSurviveStatusPacking) {
  // Values with every bit pattern, including all-ones high halves that would
  // collide with stolen flag bits.
  Scanner scanner;
  const std::size_t n = 512 * 70 + 3;
  std::vector<std::uint64_t> in(n);
  std::vector<std::uint32_t> in32(n);
  std::mt19937_64 rng(9);
  for (std::size_t i = 0; i < n; ++i) {
    in[i] = (i % 3 == 0) ? ~std::uint64_t{0} - (rng() % 7) : rng();
    in32[i] = static_cast<std::uint32_t>(in[i] >> 7);
  }
  DeviceBuffer<std::uint64_t> d(n), o(n);
  DeviceBuffer<std::uint32_t> d32(n), o32(n);
  d.upload(in);
  d32.upload(in32);
  for (Op op : {Op::Sum, Op::BitXor, Op::Max, Op::Min}) {
    const Policy p =
        make_policy(Algorithm::LookbackWarp, 128, 4, 2, BlockScan::WarpScans, TileIO::Transpose);
    scantune::detail::scan_with(scanner, p, ScanKind::Inclusive, d.ptr, o.ptr, n, op);
    scantune::detail::scan_with(scanner, p, ScanKind::Inclusive, d32.ptr, o32.ptr, n, op);
    EXPECT_EQ(o.download(n), reference_scan(in, op, ScanKind::Inclusive, std::uint64_t{0}))
        << to_string(op);
    EXPECT_EQ(o32.download(n), reference_scan(in32, op, ScanKind::Inclusive, std::uint32_t{0}))
        << to_string(op);
  }
}

} // namespace
} // namespace scantune::test

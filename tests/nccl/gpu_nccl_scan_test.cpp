// The distributed scan on GPUs against the host reference of the concatenated chunks.
// GpuNcclOneRank: a one-rank communicator on device 0 runs the whole path (reduce,
// all-gather, prefix scan, seeded scan) for every type x operator x kind. GpuNcclMulti:
// one communicator per visible GPU (ncclCommInitAll; skipped below 2 GPUs), uneven and
// empty chunks, every type, grouped calls and one host thread per rank, and ranks that
// disagree. Inputs are make_input's: integers, and integer-valued floats whose sums stay
// far below 2^24, so every comparison, floats included, is exact.
#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "common/compare.hpp"
#include "common/gpu.hpp"
#include "common/scan_reference.hpp"
#include "scantune/nccl.hpp"
#include "scantune/scantune_nccl.h"

namespace scantune::test {
namespace {

// Adds like Op::Sum, so the reference is the sum's; it runs the custom-operator path.
const CustomOp kCustomAdd{"nccl_test_add", "return a + b;", "0"};

void nccl_try(ncclResult_t r) {
  if (r != ncclSuccess) throw std::runtime_error(std::string("NCCL: ") + ncclGetErrorString(r));
}

// NVLink multicast stays off (it is not available on every machine the tests run on).
void nvls_off() {
  setenv("NCCL_NVLS_ENABLE", "0", 0);
}

/// One communicator, scanner, stream and device per GPU of this process.
struct Ranks {
  std::vector<ncclComm_t> comms;
  std::vector<std::unique_ptr<Scanner>> scanners;
  std::vector<cudaStream_t> streams;
  explicit Ranks(int g) : comms(static_cast<std::size_t>(g)) {
    nvls_off();
    std::vector<int> devices(static_cast<std::size_t>(g));
    std::iota(devices.begin(), devices.end(), 0);
    nccl_try(ncclCommInitAll(comms.data(), g, devices.data()));
    for (int d = 0; d < g; ++d) {
      SCANTUNE_CUDA_TRY(cudaSetDevice(d));
      ScannerOptions o;
      o.device = d;
      scanners.push_back(std::make_unique<Scanner>(o));
      cudaStream_t s;
      SCANTUNE_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      streams.push_back(s);
    }
    SCANTUNE_CUDA_TRY(cudaSetDevice(0));
  }
  ~Ranks() {
    for (std::size_t d = 0; d < comms.size(); ++d) {
      cudaSetDevice(static_cast<int>(d));
      cudaStreamSynchronize(streams[d]);
      nccl::release(comms[d]);
      ncclCommDestroy(comms[d]);
      cudaStreamDestroy(streams[d]);
    }
    cudaSetDevice(0);
  }
  int size() const { return static_cast<int>(comms.size()); }
};

/// What a case scans: per-rank chunk sizes, operator, kind, in place or not.
struct Case {
  std::vector<std::size_t> sizes;
  Op op = Op::Sum;
  bool custom = false;
  ScanKind kind = ScanKind::Inclusive;
  bool in_place = false;
  bool threads = false; ///< one host thread per rank with the per-rank call (else grouped)
};

std::string describe(const Case& c, DataType t) {
  std::string s = std::string(to_string(t)) + " " +
                  (c.custom ? std::string("custom add") : std::string(to_string(c.op))) + " " +
                  std::string(to_string(c.kind)) + (c.in_place ? " in place" : "") +
                  (c.threads ? " threads" : " grouped") + " sizes";
  for (std::size_t n : c.sizes)
    s += " " + std::to_string(n);
  return s;
}

/// Runs one case on `ranks` and compares every rank's output with the reference.
template <class T>
void check_case(Ranks& ranks, const Case& c) {
  const Op ref_op = c.custom ? Op::Sum : c.op;
  const OpRef op = c.custom ? OpRef(kCustomAdd) : OpRef(c.op);
  const T init = make_init<T>(ref_op);
  const std::size_t g = c.sizes.size();
  std::vector<std::vector<T>> in(g);
  std::vector<T> all;
  std::vector<std::unique_ptr<DeviceBuffer<T>>> d_in(g), d_out(g);
  std::vector<nccl::RankScan<T>> args;
  for (std::size_t r = 0; r < g; ++r) {
    SCANTUNE_CUDA_TRY(cudaSetDevice(static_cast<int>(r)));
    in[r] = make_input<T>(c.sizes[r], ref_op, 11 + r);
    all.insert(all.end(), in[r].begin(), in[r].end());
    d_in[r] = std::make_unique<DeviceBuffer<T>>(c.sizes[r]);
    d_out[r] = std::make_unique<DeviceBuffer<T>>(c.sizes[r]);
    d_out[r]->poison();
    d_in[r]->upload(in[r]);
    T* out = c.in_place ? d_in[r]->ptr : d_out[r]->ptr;
    args.push_back(
        {ranks.scanners[r].get(), ranks.comms[r], d_in[r]->ptr, out, c.sizes[r], ranks.streams[r]});
  }
  if (!c.threads) {
    if (c.kind == ScanKind::Inclusive)
      nccl::inclusive_scan(args, op);
    else
      nccl::exclusive_scan(args, op, init);
  } else {
    std::vector<std::thread> threads;
    std::vector<std::string> errors(g);
    for (std::size_t r = 0; r < g; ++r)
      threads.emplace_back([&, r] {
        try {
          SCANTUNE_CUDA_TRY(cudaSetDevice(static_cast<int>(r)));
          const auto& a = args[r];
          if (c.kind == ScanKind::Inclusive)
            nccl::inclusive_scan(*a.scanner, a.comm, a.in, a.out, a.n, op, a.stream);
          else
            nccl::exclusive_scan(*a.scanner, a.comm, a.in, a.out, a.n, op, init, a.stream);
        } catch (const std::exception& e) {
          errors[r] = e.what();
        }
      });
    for (auto& t : threads)
      t.join();
    for (std::size_t r = 0; r < g; ++r)
      ASSERT_EQ(errors[r], "") << "rank " << r;
  }
  const std::vector<T> want = reference_scan(all, ref_op, c.kind, init);
  std::size_t offset = 0;
  for (std::size_t r = 0; r < g; ++r) {
    SCANTUNE_CUDA_TRY(cudaSetDevice(static_cast<int>(r)));
    SCANTUNE_CUDA_TRY(cudaStreamSynchronize(ranks.streams[r]));
    const auto& buf = c.in_place ? *d_in[r] : *d_out[r];
    const std::vector<T> part(want.begin() + static_cast<std::ptrdiff_t>(offset),
                              want.begin() + static_cast<std::ptrdiff_t>(offset + c.sizes[r]));
    ASSERT_TRUE(equal_exact(buf.download(c.sizes[r]), part))
        << describe(c, data_type_of<T>()) << ", rank " << r;
    offset += c.sizes[r];
  }
  SCANTUNE_CUDA_TRY(cudaSetDevice(0));
}

void check_all_types(Ranks& ranks, const Case& c) {
  for (DataType t : {DataType::Int32, DataType::UInt32, DataType::Int64, DataType::UInt64,
                     DataType::Float32, DataType::Float64})
    for_type(t, [&](auto v) { check_case<decltype(v)>(ranks, c); });
}

int device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

class GpuNcclOneRank : public GpuTest {};

TEST_F(GpuNcclOneRank, EveryTypeOperatorKindAndSize) {
  Ranks ranks(1);
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{7919}, std::size_t{1000003}})
    for (ScanKind kind : {ScanKind::Inclusive, ScanKind::Exclusive})
      for (int o = 0; o < 4; ++o) {
        Case c;
        c.sizes = {n};
        c.kind = kind;
        c.op = o == 1 ? Op::Min : o == 2 ? Op::Max : Op::Sum;
        c.custom = o == 3;
        check_all_types(ranks, c);
      }
}

TEST_F(GpuNcclOneRank, InPlaceAndPerRankCall) {
  Ranks ranks(1);
  for (ScanKind kind : {ScanKind::Inclusive, ScanKind::Exclusive}) {
    Case c;
    c.sizes = {65537};
    c.kind = kind;
    c.in_place = true;
    check_all_types(ranks, c);
    c.in_place = false;
    c.threads = true;
    check_all_types(ranks, c);
  }
}

TEST_F(GpuNcclOneRank, CApiBuiltinAndCustom) {
  Ranks ranks(1);
  scantune_scanner_t s = nullptr;
  ASSERT_EQ(scantune_scanner_create(&s, 0, nullptr, nullptr), SCANTUNE_SUCCESS);
  const std::size_t n = 4099;
  const auto in = make_input<std::int64_t>(n, Op::Sum, 5);
  DeviceBuffer<std::int64_t> d_in(n), d_out(n);
  d_in.upload(in);
  const std::int64_t init = 5;
  ASSERT_EQ(scantune_nccl_scan(s, ranks.comms[0], SCANTUNE_INT64, SCANTUNE_OP_SUM, 1, d_in.ptr,
                               d_out.ptr, n, &init, ranks.streams[0]),
            SCANTUNE_SUCCESS)
      << scantune_nccl_last_error();
  SCANTUNE_CUDA_TRY(cudaStreamSynchronize(ranks.streams[0]));
  EXPECT_TRUE(
      equal_exact(d_out.download(n), reference_scan(in, Op::Sum, ScanKind::Exclusive, init)));
  d_out.poison();
  ASSERT_EQ(scantune_nccl_custom_scan(s, ranks.comms[0], SCANTUNE_INT64, 0, kCustomAdd.name.c_str(),
                                      kCustomAdd.body.c_str(), kCustomAdd.identity.c_str(),
                                      d_in.ptr, d_out.ptr, n, nullptr, ranks.streams[0]),
            SCANTUNE_SUCCESS)
      << scantune_nccl_last_error();
  SCANTUNE_CUDA_TRY(cudaStreamSynchronize(ranks.streams[0]));
  EXPECT_TRUE(
      equal_exact(d_out.download(n), reference_scan(in, Op::Sum, ScanKind::Inclusive, init)));
  scantune_scanner_destroy(s);
}

TEST_F(GpuNcclOneRank, NullPointerWithElementsIsInvalidArgumentOnTheRank) {
  Ranks ranks(1);
  for (bool check : {true, false}) {
    nccl::Options o;
    o.check = check;
    try {
      nccl::inclusive_scan<int>(*ranks.scanners[0], ranks.comms[0], nullptr, nullptr, 5, Op::Sum,
                                ranks.streams[0], o);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find("rank 0: null input or output pointer"),
                std::string::npos)
          << e.what();
    }
  }
}

class GpuNcclMulti : public GpuTest {
protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    if (device_count() < 2) GTEST_SKIP() << "fewer than 2 GPUs";
  }
};

// Uneven chunks with empty ones first, in the middle and last.
std::vector<std::size_t> uneven_sizes(int g) {
  const std::size_t pattern[] = {0, 1000003, 17, 0, 262145, 1, 65536, 0};
  std::vector<std::size_t> s;
  for (int r = 0; r < g; ++r)
    s.push_back(pattern[static_cast<std::size_t>(r) % 8]);
  if (g == 2) s = {1000003, 0};
  return s;
}

TEST_F(GpuNcclMulti, UnevenAndEmptyChunksEveryTypeGrouped) {
  Ranks ranks(device_count());
  for (ScanKind kind : {ScanKind::Inclusive, ScanKind::Exclusive})
    for (int o = 0; o < 3; ++o) {
      Case c;
      c.sizes = uneven_sizes(ranks.size());
      c.kind = kind;
      c.op = o == 1 ? Op::Max : Op::Sum;
      c.custom = o == 2;
      check_all_types(ranks, c);
      c.in_place = true;
      check_all_types(ranks, c);
    }
}

TEST_F(GpuNcclMulti, EqualChunksAndOneThreadPerRank) {
  Ranks ranks(device_count());
  for (ScanKind kind : {ScanKind::Inclusive, ScanKind::Exclusive}) {
    Case c;
    c.sizes.assign(static_cast<std::size_t>(ranks.size()), 1u << 20);
    c.kind = kind;
    c.threads = true;
    check_all_types(ranks, c);
    c.sizes = uneven_sizes(ranks.size());
    std::reverse(c.sizes.begin(), c.sizes.end());
    check_all_types(ranks, c);
  }
}

TEST_F(GpuNcclMulti, MismatchedTypesGiveEveryRankTheSameError) {
  Ranks ranks(device_count());
  const std::size_t g = static_cast<std::size_t>(ranks.size()), n = 1000;
  std::vector<std::unique_ptr<DeviceBuffer<double>>> bufs; // 8 bytes: room for either type
  for (std::size_t r = 0; r < g; ++r) {
    SCANTUNE_CUDA_TRY(cudaSetDevice(static_cast<int>(r)));
    bufs.push_back(std::make_unique<DeviceBuffer<double>>(n));
  }
  std::vector<std::string> errors(g);
  std::vector<ErrorKind> kinds(g, ErrorKind::Internal);
  std::vector<std::thread> threads;
  for (std::size_t r = 0; r < g; ++r)
    threads.emplace_back([&, r] {
      try {
        SCANTUNE_CUDA_TRY(cudaSetDevice(static_cast<int>(r)));
        Scanner& s = *ranks.scanners[r];
        double* p = bufs[r]->ptr;
        if (r == 1)
          nccl::inclusive_scan(s, ranks.comms[r], reinterpret_cast<const float*>(p),
                               reinterpret_cast<float*>(p), n, Op::Sum, ranks.streams[r]);
        else
          nccl::inclusive_scan(s, ranks.comms[r], reinterpret_cast<const int*>(p),
                               reinterpret_cast<int*>(p), n, Op::Sum, ranks.streams[r]);
      } catch (const Error& e) {
        errors[r] = e.what();
        kinds[r] = e.kind();
      }
    });
  for (auto& t : threads)
    t.join();
  for (std::size_t r = 0; r < g; ++r) {
    EXPECT_EQ(kinds[r], ErrorKind::InvalidArgument) << "rank " << r;
    EXPECT_EQ(errors[r], errors[0]) << "rank " << r;
  }
  EXPECT_NE(errors[0].find("rank 1 float32"), std::string::npos) << errors[0];
  SCANTUNE_CUDA_TRY(cudaSetDevice(0));
}

} // namespace
} // namespace scantune::test

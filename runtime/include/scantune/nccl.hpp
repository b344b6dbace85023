// scantune/nccl.hpp: prefix scans of an array distributed over the GPUs of an NCCL
// communicator (the optional component scantune::nccl, libscantune_nccl; CMake:
// find_package(scantune COMPONENTS nccl), docs/multi_gpu.md).
//
// Each rank holds a contiguous chunk of the global array on its GPU: rank 0 the first
// n0 elements, rank 1 the next n1, and so on (chunks may differ in size; empty ones are
// allowed). A call computes every rank's part of the global inclusive or exclusive
// scan, in place or out of place, on the caller's communicator and stream.
//
// Usage, one process per GPU (rank r of G, communicator from ncclCommInitRank):
//
//   #include <scantune/nccl.hpp>
//
//   scantune::Scanner scanner;   // on this rank's GPU (the communicator's device)
//   scantune::nccl::inclusive_scan(scanner, comm, d_in, d_out, n, scantune::Op::Sum, stream);
//   scantune::nccl::exclusive_scan(scanner, comm, d_in, d_out, n, scantune::Op::Max,
//                                  INT32_MIN, stream);
//
// One process driving several GPUs (one communicator each, from ncclCommInitAll):
//
//   std::vector<scantune::nccl::RankScan<int>> ranks;
//   for (int g = 0; g < G; ++g)
//     ranks.push_back({&scanners[g], comms[g], d_in[g], d_out[g], n[g], streams[g]});
//   scantune::nccl::inclusive_scan(ranks, scantune::Op::Sum);
//
// Algorithm, per rank, ordered on the stream with no host round trip for data:
//   1. the local reduction of the chunk (Scanner::reduce) into slot `rank` of a small
//      device array of G values;
//   2. an in-place ncclAllGather of that array (one element per rank);
//   3. a scan of the G gathered values on the device: its element for this rank is
//      the combined prefix of every earlier rank (with the exclusive scan's init);
//   4. the local tuned scan started from that device value (DeviceValue overloads).
// About 3n elements of memory traffic per rank (read, read, write) and G elements
// over the network.
//
// Checks: before the data path, every call all-gathers a 48-byte descriptor of its
// arguments (element type, operator, custom operator source, kind, init, argument
// problems such as null pointers) and compares them on the host after a stream
// synchronization. When ranks disagree, every rank throws the same scantune::Error
// (InvalidArgument) naming the ranks and what differs, instead of hanging or
// computing garbage. The check costs one tiny all-gather and one host synchronization
// per call (tens of microseconds); Options::check = false skips it, after which the
// call no longer synchronizes with the host, and ranks that disagree are undefined
// behaviour (mismatched collectives may hang).
//
// Errors: scantune::Error. NCCL failures have kind Cuda and carry ncclGetErrorString
// and ncclGetLastError; a null communicator, or null pointers with n > 0, are
// InvalidArgument; so is a scanner on another device than the communicator's.
//
// Threads and streams: the small device buffers a call uses are cached per
// (communicator, stream) and grown on demand; release(comm) frees those of a
// communicator (call it before ncclCommDestroy). Calls on one communicator follow
// NCCL's rules: every rank issues them in the same order.
#pragma once

#include <cstddef>
#include <vector>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "scantune/scantune.hpp"

namespace scantune::nccl {

/// Per-call options.
struct Options {
  /// All-gather and compare the ranks' argument descriptors before scanning (one
  /// small collective and one host synchronization per call); see the header comment.
  bool check = true;
};

/// One rank's part of a call from a process that drives several GPUs. `scanner` must
/// run on the communicator's device.
template <class T>
struct RankScan {
  Scanner* scanner = nullptr;
  ncclComm_t comm = nullptr;
  const T* in = nullptr;
  T* out = nullptr;
  std::size_t n = 0;
  cudaStream_t stream = nullptr;
};

/// The type-erased form of RankScan (the C API's and the templates' common path).
struct RankArgs {
  Scanner* scanner = nullptr;
  ncclComm_t comm = nullptr;
  const void* in = nullptr;
  void* out = nullptr;
  std::size_t n = 0;
  cudaStream_t stream = nullptr;
};

/// The type-erased entry behind every call: `ranks` are this process's ranks (one for
/// a process per GPU); `init` points to one host element of `type` (exclusive scans).
/// Collective steps of several ranks run inside ncclGroupStart/ncclGroupEnd.
SCANTUNE_API void scan(const std::vector<RankArgs>& ranks, DataType type, ScanKind kind, OpRef op,
                       const void* init, Options options = {});

/// Frees the buffers cached for `comm` (all streams). The caller ensures no call on
/// `comm` is in flight.
SCANTUNE_API void release(ncclComm_t comm);

namespace detail {
template <class T>
std::vector<RankArgs> erase(const std::vector<RankScan<T>>& ranks) {
  std::vector<RankArgs> out;
  out.reserve(ranks.size());
  for (const auto& r : ranks)
    out.push_back({r.scanner, r.comm, r.in, r.out, r.n, r.stream});
  return out;
}
} // namespace detail

/// This rank's part of the global inclusive scan: out[i] = (all elements of earlier
/// ranks) op in[0] op ... op in[i]. Synchronizes with the host once (the check)
/// unless options.check is false.
template <class T>
void inclusive_scan(Scanner& scanner, ncclComm_t comm, const T* d_in, T* d_out, std::size_t n,
                    OpRef op, cudaStream_t stream = nullptr, Options options = {}) {
  scan({{&scanner, comm, d_in, d_out, n, stream}}, data_type_of<T>(), ScanKind::Inclusive, op,
       nullptr, options);
}

/// This rank's part of the global exclusive scan starting at `init` (the same on every
/// rank): out[i] = init op (all elements of earlier ranks) op in[0] op ... op in[i-1].
template <class T>
void exclusive_scan(Scanner& scanner, ncclComm_t comm, const T* d_in, T* d_out, std::size_t n,
                    OpRef op, T init, cudaStream_t stream = nullptr, Options options = {}) {
  scan({{&scanner, comm, d_in, d_out, n, stream}}, data_type_of<T>(), ScanKind::Exclusive, op,
       &init, options);
}

/// The same for several ranks driven by this process (each with its own GPU,
/// communicator and stream), e.g. communicators from ncclCommInitAll.
template <class T>
void inclusive_scan(const std::vector<RankScan<T>>& ranks, OpRef op, Options options = {}) {
  scan(detail::erase(ranks), data_type_of<T>(), ScanKind::Inclusive, op, nullptr, options);
}
template <class T>
void exclusive_scan(const std::vector<RankScan<T>>& ranks, OpRef op, T init, Options options = {}) {
  scan(detail::erase(ranks), data_type_of<T>(), ScanKind::Exclusive, op, &init, options);
}

} // namespace scantune::nccl

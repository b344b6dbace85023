// The distributed scan (scantune/nccl.hpp): argument check, local reduction, all-gather
// of the partial results, prefix scan of them, local scan from that prefix.
#include "scantune/nccl.hpp"

#include <cstdint>
#include <string>

#include "buffers.hpp"
#include "descriptor.hpp"
#include "nccl_errors.hpp"

namespace scantune::nccl {
namespace {

using detail::ArgProblem;
using detail::Buffers;
using detail::check_cuda;
using detail::check_nccl;

/// One of this process's ranks during a call.
struct Rank {
  const RankArgs* args = nullptr;
  int rank = 0;
  int size = 0;
  int device = 0;
  ArgProblem problem = ArgProblem::None;
  Buffers* buffers = nullptr;
};

/// Restores the caller's current device (the call switches to each rank's).
class DeviceGuard {
public:
  DeviceGuard() { check_cuda(cudaGetDevice(&saved_), "cudaGetDevice"); }
  ~DeviceGuard() { cudaSetDevice(saved_); }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

private:
  int saved_ = 0;
};

Rank describe(const RankArgs& a) {
  Rank r;
  r.args = &a;
  check_nccl(ncclCommUserRank(a.comm, &r.rank), a.comm, "ncclCommUserRank");
  check_nccl(ncclCommCount(a.comm, &r.size), a.comm, "ncclCommCount");
  check_nccl(ncclCommCuDevice(a.comm, &r.device), a.comm, "ncclCommCuDevice");
  if (a.n > 0 && (!a.in || !a.out))
    r.problem = ArgProblem::NullPointer;
  else if (a.scanner->device() != r.device)
    r.problem = ArgProblem::WrongDevice;
  return r;
}

/// Runs `step` for every rank inside one NCCL group (several ranks of this process
/// must enter a collective together).
template <class F>
void grouped(std::vector<Rank>& ranks, F&& step) {
  check_nccl(ncclGroupStart(), nullptr, "ncclGroupStart");
  try {
    for (Rank& r : ranks)
      step(r);
  } catch (...) {
    ncclGroupEnd();
    throw;
  }
  check_nccl(ncclGroupEnd(), ranks.front().args->comm, "ncclGroupEnd");
}

/// All-gathers every rank's descriptor and throws the same Error on every rank when
/// they disagree or one of them has a bad argument.
void check_descriptors(std::vector<Rank>& ranks, DataType type, ScanKind kind, OpRef op,
                       const void* init) {
  for (Rank& r : ranks) {
    check_cuda(cudaSetDevice(r.device), "cudaSetDevice");
    Buffers& b = *r.buffers;
    b.host[r.size] = detail::make_descriptor(type, kind, op, init, r.args->n, r.problem, r.device);
    check_cuda(cudaMemcpyAsync(b.descriptors + r.rank, b.host + r.size, sizeof(detail::Descriptor),
                               cudaMemcpyHostToDevice, r.args->stream),
               "cudaMemcpyAsync (descriptor)");
  }
  grouped(ranks, [](Rank& r) {
    check_nccl(ncclAllGather(r.buffers->descriptors + r.rank, r.buffers->descriptors,
                             sizeof(detail::Descriptor), ncclUint8, r.args->comm, r.args->stream),
               r.args->comm, "ncclAllGather (descriptors)");
  });
  for (Rank& r : ranks) {
    check_cuda(cudaSetDevice(r.device), "cudaSetDevice");
    check_cuda(cudaMemcpyAsync(r.buffers->host, r.buffers->descriptors,
                               r.size * sizeof(detail::Descriptor), cudaMemcpyDeviceToHost,
                               r.args->stream),
               "cudaMemcpyAsync (descriptors)");
  }
  for (Rank& r : ranks) {
    check_cuda(cudaStreamSynchronize(r.args->stream), "cudaStreamSynchronize");
    const std::string msg = detail::compare_descriptors(
        std::vector<detail::Descriptor>(r.buffers->host, r.buffers->host + r.size));
    if (!msg.empty()) throw Error(msg, ErrorKind::InvalidArgument);
  }
}

/// Without the check, a rank's own bad argument is reported by that rank alone.
void check_local(const std::vector<Rank>& ranks) {
  for (const Rank& r : ranks)
    if (r.problem != ArgProblem::None)
      throw Error("scantune::nccl: " + detail::describe_problem(r.problem,
                                                                static_cast<std::size_t>(r.rank),
                                                                r.args->n, r.device),
                  ErrorKind::InvalidArgument);
}

/// This rank's partial result into its slot of the gathered array.
template <class T>
void reduce_chunk(const Rank& r, OpRef op) {
  const RankArgs& a = *r.args;
  T* values = reinterpret_cast<T*>(r.buffers->values);
  a.scanner->reduce(static_cast<const T*>(a.in), values + r.rank, a.n, op, a.stream);
}

/// The local scan from the prefix of the earlier ranks. Rank 0 needs none; rank r > 0
/// scans the gathered values of ranks 0..r on the device first (exclusive: element r
/// is init op v0 op ... op v(r-1); inclusive: element r-1 is v0 op ... op v(r-1)).
template <class T>
void scan_chunk(const Rank& r, ScanKind kind, OpRef op, const void* init) {
  const RankArgs& a = *r.args;
  Scanner& s = *a.scanner;
  const T* in = static_cast<const T*>(a.in);
  T* out = static_cast<T*>(a.out);
  const auto rank = static_cast<std::size_t>(r.rank);
  const T* values = reinterpret_cast<const T*>(r.buffers->values);
  T* prefixes = reinterpret_cast<T*>(r.buffers->prefixes);
  if (kind == ScanKind::Exclusive) {
    const T host_init = *static_cast<const T*>(init);
    if (rank == 0) return s.exclusive_scan(in, out, a.n, op, host_init, a.stream);
    s.exclusive_scan(values, prefixes, rank + 1, op, host_init, a.stream);
    s.exclusive_scan(in, out, a.n, op, DeviceValue<T>{prefixes + rank}, a.stream);
  } else {
    if (rank == 0) return s.inclusive_scan(in, out, a.n, op, a.stream);
    s.inclusive_scan(values, prefixes, rank, op, a.stream);
    s.inclusive_scan(in, out, a.n, op, DeviceValue<T>{prefixes + rank - 1}, a.stream);
  }
}

void run_data_path(std::vector<Rank>& ranks, DataType type, ScanKind kind, OpRef op,
                   const void* init) {
  const std::size_t bytes = size_of(type);
  visit_type(type, [&](auto t) {
    using T = decltype(t);
    for (Rank& r : ranks) {
      check_cuda(cudaSetDevice(r.device), "cudaSetDevice");
      reduce_chunk<T>(r, op);
    }
    grouped(ranks, [&](Rank& r) {
      unsigned char* values = r.buffers->values;
      check_nccl(ncclAllGather(values + r.rank * bytes, values, bytes, ncclUint8, r.args->comm,
                               r.args->stream),
                 r.args->comm, "ncclAllGather (partial results)");
    });
    for (Rank& r : ranks) {
      check_cuda(cudaSetDevice(r.device), "cudaSetDevice");
      scan_chunk<T>(r, kind, op, init);
    }
  });
}

} // namespace

void scan(const std::vector<RankArgs>& args, DataType type, ScanKind kind, OpRef op,
          const void* init, Options options) {
  if (args.empty()) return;
  if (kind == ScanKind::Exclusive && !init)
    throw Error("scantune::nccl: an exclusive scan needs an init value");
  if (static_cast<unsigned>(type) > static_cast<unsigned>(DataType::Float64))
    throw Error("scantune::nccl: unknown element type code " +
                std::to_string(static_cast<int>(type)));
  for (const RankArgs& a : args) { // no collective can report these
    if (!a.comm) throw Error("scantune::nccl: null communicator");
    if (!a.scanner) throw Error("scantune::nccl: null scanner");
  }
  DeviceGuard guard;
  std::vector<Rank> ranks;
  ranks.reserve(args.size());
  for (const RankArgs& a : args)
    ranks.push_back(describe(a));
  for (Rank& r : ranks) {
    check_cuda(cudaSetDevice(r.device), "cudaSetDevice");
    r.buffers = &detail::buffers_for(r.args->comm, r.args->stream, r.size);
  }
  if (options.check)
    check_descriptors(ranks, type, kind, op, init);
  else
    check_local(ranks);
  run_data_path(ranks, type, kind, op, init);
}

void release(ncclComm_t comm) {
  detail::release_buffers(comm);
}

} // namespace scantune::nccl

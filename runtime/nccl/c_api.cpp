// The C API of the distributed scan: an exception-free shell over scantune::nccl::scan.
#include "scantune/scantune_nccl.h"

#include <optional>
#include <string>
#include <vector>

#include "scantune/nccl.hpp"

namespace {

thread_local std::string g_last_error;

template <class F>
scantune_status_t guarded(F&& f) {
  try {
    f();
    g_last_error.clear();
    return SCANTUNE_SUCCESS;
  } catch (const scantune::Error& e) {
    g_last_error = e.what();
    return static_cast<scantune_status_t>(scantune::status_code(e.kind()));
  } catch (const std::exception& e) {
    g_last_error = e.what();
    return SCANTUNE_ERROR_INTERNAL;
  } catch (...) {
    g_last_error = "unknown error";
    return SCANTUNE_ERROR_INTERNAL;
  }
}

scantune::DataType data_type(scantune_dtype_t t) {
  if (t < SCANTUNE_INT32 || t > SCANTUNE_FLOAT64)
    throw scantune::Error("unknown element type code " + std::to_string(static_cast<int>(t)));
  return static_cast<scantune::DataType>(t);
}

scantune::Op builtin_op(scantune_op_t o) {
  if (o < SCANTUNE_OP_SUM || o > SCANTUNE_OP_BIT_XOR)
    throw scantune::Error("unknown operator code " + std::to_string(static_cast<int>(o)));
  return static_cast<scantune::Op>(o);
}

void run(const scantune_nccl_rank_t* ranks, size_t num_ranks, scantune_dtype_t type,
         scantune_op_t op, const char* name, const char* body, const char* identity, int exclusive,
         const void* init, unsigned flags) {
  if (!ranks && num_ranks > 0) throw scantune::Error("null ranks array");
  const scantune::DataType t = data_type(type);
  std::optional<scantune::CustomOp> custom;
  if (name) {
    if (!body || !identity) throw scantune::Error("custom operator without body or identity");
    custom = scantune::CustomOp{name, body, identity};
  }
  const scantune::OpRef op_ref =
      custom ? scantune::OpRef(*custom) : scantune::OpRef(builtin_op(op));
  std::vector<scantune::nccl::RankArgs> args;
  for (size_t i = 0; i < num_ranks; ++i) {
    const scantune_nccl_rank_t& r = ranks[i];
    args.push_back({scantune::scanner_of(r.scanner), r.comm, r.d_in, r.d_out, r.n, r.stream});
  }
  scantune::nccl::Options options;
  options.check = (flags & SCANTUNE_NCCL_NO_CHECK) == 0;
  scantune::nccl::scan(args, t,
                       exclusive ? scantune::ScanKind::Exclusive : scantune::ScanKind::Inclusive,
                       op_ref, init, options);
}

} // namespace

extern "C" {

scantune_status_t scantune_nccl_scan(scantune_scanner_t scanner, ncclComm_t comm,
                                     scantune_dtype_t type, scantune_op_t op, int exclusive,
                                     const void* d_in, void* d_out, size_t n, const void* init,
                                     cudaStream_t stream) {
  const scantune_nccl_rank_t rank{scanner, comm, d_in, d_out, n, stream};
  return guarded([&] { run(&rank, 1, type, op, nullptr, nullptr, nullptr, exclusive, init, 0); });
}

scantune_status_t scantune_nccl_custom_scan(scantune_scanner_t scanner, ncclComm_t comm,
                                            scantune_dtype_t type, int exclusive, const char* name,
                                            const char* body, const char* identity,
                                            const void* d_in, void* d_out, size_t n,
                                            const void* init, cudaStream_t stream) {
  const scantune_nccl_rank_t rank{scanner, comm, d_in, d_out, n, stream};
  return guarded([&] {
    if (!name) throw scantune::Error("custom operator without a name");
    run(&rank, 1, type, SCANTUNE_OP_SUM, name, body, identity, exclusive, init, 0);
  });
}

scantune_status_t scantune_nccl_scan_ranks(const scantune_nccl_rank_t* ranks, size_t num_ranks,
                                           scantune_dtype_t type, scantune_op_t op,
                                           const char* name, const char* body, const char* identity,
                                           int exclusive, const void* init, unsigned flags) {
  return guarded(
      [&] { run(ranks, num_ranks, type, op, name, body, identity, exclusive, init, flags); });
}

scantune_status_t scantune_nccl_release(ncclComm_t comm) {
  return guarded([&] { scantune::nccl::release(comm); });
}

const char* scantune_nccl_last_error(void) {
  return g_last_error.c_str();
}

} // extern "C"

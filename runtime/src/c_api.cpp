// The C API: a thin exception-free shell over scantune::Scanner.
#include "scantune/scantune.h"

#include <string>

#include "cache/cache_error.hpp"
#include "errors.hpp"
#include "scan_request.hpp"
#include "segments.hpp"

struct scantune_scanner_s {
  scantune::Scanner scanner;
};

namespace {

thread_local std::string g_last_error, g_last_log;

bool valid_dtype(scantune_dtype_t t) {
  return t >= SCANTUNE_INT32 && t <= SCANTUNE_BFLOAT16;
}

scantune::DataType to_type(scantune_dtype_t t) {
  if (!valid_dtype(t)) scantune::detail::fail("unknown element type code {}", static_cast<int>(t));
  return static_cast<scantune::DataType>(t);
}
bool valid_op(scantune_op_t o) {
  return o >= SCANTUNE_OP_SUM && o <= SCANTUNE_OP_BIT_XOR;
}

scantune_status_t status_of(scantune::ErrorKind k) {
  using scantune::ErrorKind;
  switch (k) {
  case ErrorKind::InvalidArgument:
    return SCANTUNE_ERROR_INVALID_ARGUMENT;
  case ErrorKind::Unsupported:
    return SCANTUNE_ERROR_UNSUPPORTED;
  case ErrorKind::Compile:
    return SCANTUNE_ERROR_COMPILE;
  case ErrorKind::Cuda:
    return SCANTUNE_ERROR_CUDA;
  case ErrorKind::NoDevice:
    return SCANTUNE_ERROR_NO_DEVICE;
  case ErrorKind::Database:
    return SCANTUNE_ERROR_DATABASE;
  case ErrorKind::Internal:
    break;
  }
  return SCANTUNE_ERROR_INTERNAL;
}

template <class F>
scantune_status_t guarded(F&& f) {
  g_last_log.clear();
  try {
    f();
    g_last_error.clear();
    return SCANTUNE_SUCCESS;
  } catch (const scantune::Error& e) {
    g_last_error = e.what();
    g_last_log = e.log();
    return status_of(e.kind());
  } catch (const scantune::CacheError& e) {
    g_last_error = e.what();
    return SCANTUNE_ERROR_DATABASE;
  } catch (const std::exception& e) {
    g_last_error = e.what();
    return SCANTUNE_ERROR_INTERNAL;
  } catch (...) {
    g_last_error = "unknown error";
    return SCANTUNE_ERROR_INTERNAL;
  }
}

scantune::ScanRequest request(scantune_scanner_t s, scantune_dtype_t type, int exclusive,
                              const void* in, void* out, size_t n, const void* init,
                              cudaStream_t stream) {
  using scantune::detail::fail;
  if (!s) fail("null scanner handle");
  const auto kind = exclusive ? scantune::ScanKind::Exclusive : scantune::ScanKind::Inclusive;
  scantune::ScanRequest r{to_type(type),
                          kind,
                          scantune::Op::Sum,
                          in,
                          out,
                          n,
                          init,
                          stream,
                          nullptr,
                          {},
                          {},
                          {},
                          nullptr,
                          false,
                          false};
  r.set_types(scantune::scan_types(r.type)); // a narrow type converts through its accumulator
  return r;
}

scantune::Op to_op(scantune_op_t op) {
  if (!valid_op(op)) scantune::detail::fail("unknown operator code {}", static_cast<int>(op));
  return static_cast<scantune::Op>(op);
}

scantune_status_t segmented(scantune_scanner_t s, scantune_dtype_t type, scantune_op_t op,
                            int exclusive, const void* d_in, void* d_out, size_t n,
                            const scantune::Segments& segments, const void* init,
                            cudaStream_t stream) {
  return guarded([&] {
    auto r = request(s, type, exclusive, d_in, d_out, n, init, stream);
    r.op = to_op(op);
    r.segments = segments;
    scantune::detail::check_segments(r.segments);
    scantune::detail::ScannerAccess::scan(s->scanner, r);
  });
}

// A null key or offset array names itself (Segments would see no head source at all).
scantune_status_t segmented_null(scantune_scanner_t s, const char* what) {
  return guarded([&] {
    if (!s) scantune::detail::fail("null scanner handle");
    scantune::detail::fail("null {} pointer", what);
  });
}

} // namespace

extern "C" {

scantune_status_t scantune_scanner_create(scantune_scanner_t* scanner, int device,
                                          const char* database, const char* kernel_cache) {
  return guarded([&] {
    if (!scanner) scantune::detail::fail("null output handle pointer");
    *scanner = nullptr;
    *scanner = new scantune_scanner_s{scantune::Scanner(scantune::ScannerOptions{
        device, database ? database : "", kernel_cache ? kernel_cache : ""})};
  });
}

scantune_status_t scantune_scanner_destroy(scantune_scanner_t scanner) {
  return guarded([&] { delete scanner; });
}

scantune_status_t scantune_inclusive_scan(scantune_scanner_t s, scantune_dtype_t type,
                                          scantune_op_t op, const void* d_in, void* d_out, size_t n,
                                          cudaStream_t stream) {
  return guarded([&] {
    auto r = request(s, type, 0, d_in, d_out, n, nullptr, stream);
    r.op = to_op(op);
    scantune::detail::ScannerAccess::scan(s->scanner, r);
  });
}

scantune_status_t scantune_exclusive_scan(scantune_scanner_t s, scantune_dtype_t type,
                                          scantune_op_t op, const void* d_in, void* d_out, size_t n,
                                          const void* init, cudaStream_t stream) {
  return guarded([&] {
    auto r = request(s, type, 1, d_in, d_out, n, init, stream);
    r.op = to_op(op);
    scantune::detail::ScannerAccess::scan(s->scanner, r);
  });
}

scantune_status_t scantune_custom_scan(scantune_scanner_t s, scantune_dtype_t type, int exclusive,
                                       const char* name, const char* body, const char* identity,
                                       const void* d_in, void* d_out, size_t n, const void* init,
                                       cudaStream_t stream) {
  return guarded([&] {
    auto r = request(s, type, exclusive, d_in, d_out, n, init, stream);
    const scantune::CustomOp op{name ? name : "", body ? body : "", identity ? identity : ""};
    r.op = op;
    scantune::detail::ScannerAccess::scan(s->scanner, r);
  });
}

scantune_status_t scantune_scan_with_policy(scantune_scanner_t s, const char* policy_key,
                                            scantune_dtype_t type, scantune_op_t op, int exclusive,
                                            const void* d_in, void* d_out, size_t n,
                                            const void* init, cudaStream_t stream) {
  return guarded([&] {
    auto r = request(s, type, exclusive, d_in, d_out, n, init, stream);
    if (!policy_key) scantune::detail::fail("null policy key");
    const scantune::Policy policy = scantune::Policy::parse(policy_key);
    r.op = to_op(op);
    r.policy = &policy;
    scantune::detail::ScannerAccess::scan(s->scanner, r);
  });
}

scantune_status_t scantune_prepare(scantune_scanner_t s, scantune_dtype_t type, scantune_op_t op,
                                   int exclusive, size_t n) {
  return guarded([&] {
    const auto r = request(s, type, exclusive, nullptr, nullptr, n, nullptr, nullptr);
    s->scanner.prepare(r.type, to_op(op), r.kind, n);
  });
}

scantune_status_t scantune_workspace_bytes(scantune_scanner_t s, scantune_dtype_t type,
                                           scantune_op_t op, int exclusive, size_t n,
                                           size_t* bytes) {
  return guarded([&] {
    if (!bytes) scantune::detail::fail("null output pointer for the workspace size");
    const auto r = request(s, type, exclusive, nullptr, nullptr, n, nullptr, nullptr);
    *bytes = s->scanner.workspace_bytes(r.type, to_op(op), r.kind, n);
  });
}

scantune_status_t scantune_scan_ex(scantune_scanner_t s, scantune_dtype_t type, scantune_op_t op,
                                   int exclusive, const void* d_in, void* d_out, size_t n,
                                   const void* init, void* d_workspace, size_t workspace_bytes,
                                   cudaStream_t stream) {
  return guarded([&] {
    auto r = request(s, type, exclusive, d_in, d_out, n, init, stream);
    r.op = to_op(op);
    r.workspace = {d_workspace, workspace_bytes};
    scantune::detail::ScannerAccess::scan(s->scanner, r);
  });
}

scantune_status_t scantune_segmented_scan(scantune_scanner_t s, scantune_dtype_t type,
                                          scantune_op_t op, int exclusive, const void* d_in,
                                          void* d_out, size_t n, const void* d_head_flags,
                                          size_t row_length, const void* init,
                                          cudaStream_t stream) {
  scantune::Segments seg;
  seg.head_flags = static_cast<const std::uint8_t*>(d_head_flags);
  seg.row_length = row_length;
  return segmented(s, type, op, exclusive, d_in, d_out, n, seg, init, stream);
}

scantune_status_t scantune_scan_by_key(scantune_scanner_t s, scantune_dtype_t type,
                                       scantune_op_t op, int exclusive, const void* d_in,
                                       void* d_out, size_t n, const void* d_keys, int key_bytes,
                                       const void* init, cudaStream_t stream) {
  scantune::Segments seg;
  seg.keys = d_keys;
  seg.word_bytes = key_bytes;
  if (!d_keys) return segmented_null(s, "keys");
  return segmented(s, type, op, exclusive, d_in, d_out, n, seg, init, stream);
}

scantune_status_t scantune_segmented_scan_offsets(scantune_scanner_t s, scantune_dtype_t type,
                                                  scantune_op_t op, int exclusive, const void* d_in,
                                                  void* d_out, size_t n, const void* d_offsets,
                                                  int offset_bytes, size_t num_segments,
                                                  const void* init, cudaStream_t stream) {
  scantune::Segments seg;
  seg.offsets = d_offsets;
  seg.word_bytes = offset_bytes;
  seg.num_segments = num_segments;
  if (!d_offsets) return segmented_null(s, "offsets");
  return segmented(s, type, op, exclusive, d_in, d_out, n, seg, init, stream);
}

scantune_status_t scantune_axis_scan(scantune_scanner_t s, scantune_dtype_t type, scantune_op_t op,
                                     int exclusive, const void* d_in, void* d_out, size_t outer,
                                     size_t len, size_t inner, const void* init,
                                     cudaStream_t stream) {
  return guarded([&] {
    auto r = request(s, type, exclusive, d_in, d_out, 0, init, stream);
    r.op = to_op(op);
    scantune::detail::set_axis(r, outer, len, inner);
    scantune::detail::ScannerAccess::scan(s->scanner, r);
  });
}

scantune_status_t scantune_scan_from_device(scantune_scanner_t s, scantune_dtype_t type,
                                            scantune_op_t op, int exclusive, const void* d_in,
                                            void* d_out, size_t n, const void* d_start,
                                            cudaStream_t stream) {
  return guarded([&] {
    auto r = request(s, type, exclusive, d_in, d_out, n, nullptr, stream);
    if (!d_start) scantune::detail::fail("null device pointer for the scan's start value");
    r.op = to_op(op);
    r.start = d_start;
    r.seeded = !exclusive;
    scantune::detail::ScannerAccess::scan(s->scanner, r);
  });
}

scantune_status_t scantune_reverse_scan(scantune_scanner_t s, scantune_dtype_t type,
                                        scantune_op_t op, int exclusive, const void* d_in,
                                        void* d_out, size_t n, const void* init,
                                        cudaStream_t stream) {
  return guarded([&] {
    auto r = request(s, type, exclusive, d_in, d_out, n, init, stream);
    r.op = to_op(op);
    r.reverse = true;
    scantune::detail::ScannerAccess::scan(s->scanner, r);
  });
}

void scantune_logaddexp_op(const char** name, const char** body, const char** identity) {
  const scantune::CustomOp& op = scantune::logaddexp_op();
  if (name) *name = op.name.c_str();
  if (body) *body = op.body.c_str();
  if (identity) *identity = op.identity.c_str();
}

namespace {

void export_struct_op(const scantune::CustomOp& op, scantune_struct_op_t* out) {
  if (!out) return;
  *out = {op.name.c_str(),         op.body.c_str(),       op.identity.c_str(),
          op.value_struct.c_str(), op.value_type.c_str(), op.value_bytes};
}

} // namespace

void scantune_linear_recurrence_op(scantune_struct_op_t* op) {
  export_struct_op(scantune::linear_recurrence_op(), op);
}

void scantune_argmax_op(scantune_struct_op_t* op) {
  export_struct_op(scantune::argmax_op(), op);
}

scantune_status_t scantune_struct_scan(scantune_scanner_t s, const scantune_struct_op_t* op,
                                       int exclusive, const void* d_in, void* d_out, size_t n,
                                       const char* policy_key, cudaStream_t stream) {
  return guarded([&] {
    using scantune::detail::fail;
    if (!s) fail("null scanner handle");
    if (!op) fail("null struct operator");
    auto text = [](const char* p) { return std::string(p ? p : ""); };
    scantune::CustomOp custom{text(op->name),         text(op->body),       text(op->identity),
                              text(op->value_struct), text(op->value_type), op->value_bytes};
    if (custom.value_type.empty()) fail("struct operator '{}' has no value_type", custom.name);
    s->scanner.scan_struct(d_in, d_out, n, custom,
                           exclusive ? scantune::ScanKind::Exclusive
                                     : scantune::ScanKind::Inclusive,
                           stream, policy_key ? policy_key : "");
  });
}

scantune_status_t scantune_scan_types(scantune_scanner_t s, scantune_dtype_t in_type,
                                      scantune_dtype_t acc_type, scantune_dtype_t out_type,
                                      scantune_op_t op, int exclusive, int reverse,
                                      const void* d_in, void* d_out, size_t n, const void* init,
                                      cudaStream_t stream) {
  return guarded([&] {
    auto r = request(s, out_type, exclusive, d_in, d_out, n, init, stream);
    r.set_types(acc_type == SCANTUNE_ACC_DEFAULT
                    ? scantune::scan_types(to_type(in_type), to_type(out_type))
                    : scantune::ScanTypes{to_type(in_type), to_type(acc_type), to_type(out_type)});
    r.op = to_op(op);
    r.reverse = reverse != 0;
    scantune::detail::ScannerAccess::scan(s->scanner, r);
  });
}

scantune_status_t scantune_reduce(scantune_scanner_t s, scantune_dtype_t type, scantune_op_t op,
                                  const void* d_in, void* d_result, size_t n, cudaStream_t stream) {
  return guarded([&] {
    auto r = request(s, type, 0, d_in, d_result, n, nullptr, stream);
    r.op = to_op(op);
    r.reduce = true;
    scantune::detail::ScannerAccess::scan(s->scanner, r);
  });
}

static_assert(static_cast<int>(scantune::Compaction::PartitionIf) == SCANTUNE_PARTITION_IF,
              "scantune_compaction_t follows scantune::Compaction");

scantune_status_t scantune_compact(scantune_scanner_t s, scantune_compaction_t how,
                                   scantune_dtype_t type, const void* d_in, const void* d_flags,
                                   const char* predicate_name, const char* predicate_body,
                                   void* d_out, size_t n, uint64_t* d_num_selected,
                                   cudaStream_t stream) {
  return guarded([&] {
    using scantune::detail::fail;
    if (!s) fail("null scanner handle");
    if (!valid_dtype(type)) fail("unknown element type code {}", static_cast<int>(type));
    if (how < SCANTUNE_SELECT_FLAGGED || how > SCANTUNE_PARTITION_IF)
      fail("unknown compaction code {}", static_cast<int>(how));
    const auto mode = static_cast<scantune::Compaction>(how);
    const bool by_predicate =
        mode == scantune::Compaction::SelectIf || mode == scantune::Compaction::PartitionIf;
    const scantune::Predicate predicate{predicate_name ? predicate_name : "",
                                        predicate_body ? predicate_body : ""};
    s->scanner.run_select(static_cast<scantune::DataType>(type), mode, d_in,
                          static_cast<const std::uint8_t*>(d_flags),
                          by_predicate ? &predicate : nullptr, d_out, n, d_num_selected, stream);
  });
}

scantune_status_t scantune_sort(scantune_scanner_t s, scantune_dtype_t key_type,
                                const void* d_keys_in, void* d_keys_out, const void* d_values_in,
                                void* d_values_out, size_t value_bytes, size_t n, int descending,
                                unsigned begin_bit, unsigned end_bit, cudaStream_t stream) {
  return guarded([&] {
    using scantune::detail::fail;
    if (!s) fail("null scanner handle");
    if (!valid_dtype(key_type)) fail("unknown element type code {}", static_cast<int>(key_type));
    s->scanner.run_sort(static_cast<scantune::DataType>(key_type), d_keys_in, d_keys_out,
                        d_values_in, d_values_out, value_bytes, n,
                        descending ? scantune::SortOrder::Descending
                                   : scantune::SortOrder::Ascending,
                        begin_bit, end_bit, stream);
  });
}

scantune_status_t scantune_selected_count(const uint64_t* d_num_selected, cudaStream_t stream,
                                          uint64_t* count) {
  return guarded([&] {
    if (!count) scantune::detail::fail("null result pointer for the count");
    *count = scantune::selected_count(d_num_selected, stream);
  });
}

const char* scantune_status_string(scantune_status_t status) {
  switch (status) {
  case SCANTUNE_SUCCESS:
    return "success";
  case SCANTUNE_ERROR_INVALID_ARGUMENT:
    return "invalid argument";
  case SCANTUNE_ERROR_UNSUPPORTED:
    return "unsupported type or operator";
  case SCANTUNE_ERROR_COMPILE:
    return "kernel compilation failed";
  case SCANTUNE_ERROR_CUDA:
    return "CUDA error";
  case SCANTUNE_ERROR_NO_DEVICE:
    return "no CUDA device";
  case SCANTUNE_ERROR_INTERNAL:
    return "internal error";
  case SCANTUNE_ERROR_DATABASE:
    return "tuning database error";
  }
  return "unknown status";
}

const char* scantune_last_error(void) {
  return g_last_error.c_str();
}

const char* scantune_last_error_log(void) {
  return g_last_log.c_str();
}

} // extern "C"

namespace scantune {

Scanner* scanner_of(scantune_scanner_s* handle) {
  return handle ? &handle->scanner : nullptr;
}

int status_code(ErrorKind kind) {
  return status_of(kind);
}

} // namespace scantune

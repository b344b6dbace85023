/* scantune/scantune.h: C API over the scantune engine, for FFI.
 *
 * Every function returns a status code; on failure, scantune_last_error() gives
 * a message naming the problem (per calling thread). No C++ exception crosses
 * this boundary.
 *
 * Example:
 *   scantune_scanner_t s;
 *   if (scantune_scanner_create(&s, -1, NULL, NULL) != SCANTUNE_SUCCESS)
 *     fprintf(stderr, "%s\n", scantune_last_error());
 *   int32_t init = 0;
 *   scantune_exclusive_scan(s, SCANTUNE_INT32, SCANTUNE_OP_SUM, d_in, d_out, n, &init, stream);
 *   scantune_scanner_destroy(s);
 */
#ifndef SCANTUNE_SCANTUNE_H
#define SCANTUNE_SCANTUNE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

/* Marks the symbols libscantune exports (the same macro as in scantune/types.hpp). */
#ifndef SCANTUNE_API
#define SCANTUNE_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  SCANTUNE_SUCCESS = 0,
  SCANTUNE_ERROR_INVALID_ARGUMENT = 1, /* null pointer, misalignment, bad policy, ... */
  SCANTUNE_ERROR_UNSUPPORTED = 2,      /* e.g. a bitwise operator on a float type */
  SCANTUNE_ERROR_COMPILE = 3,   /* NVRTC rejected the generated source (log in the message) */
  SCANTUNE_ERROR_CUDA = 4,      /* a CUDA runtime call failed */
  SCANTUNE_ERROR_NO_DEVICE = 5, /* no CUDA device or driver */
  SCANTUNE_ERROR_INTERNAL = 6,
  SCANTUNE_ERROR_DATABASE = 7 /* the tuning database could not be read */
} scantune_status_t;

/* Element types. The narrow ones (INT8 .. BFLOAT16) are converted on load and store and
 * combined in an accumulator: int32 for INT8 and INT16, uint32 for UINT8 and UINT16,
 * float32 for FLOAT16 and BFLOAT16 (scantune::scan_types); an exclusive scan's `init`
 * then points to one accumulator. */
typedef enum {
  SCANTUNE_ACC_DEFAULT = -1, /* scantune_scan_types: the default accumulator */
  SCANTUNE_INT32 = 0,
  SCANTUNE_UINT32 = 1,
  SCANTUNE_INT64 = 2,
  SCANTUNE_UINT64 = 3,
  SCANTUNE_FLOAT32 = 4,
  SCANTUNE_FLOAT64 = 5,
  SCANTUNE_INT8 = 6,
  SCANTUNE_UINT8 = 7,
  SCANTUNE_INT16 = 8,
  SCANTUNE_UINT16 = 9,
  SCANTUNE_FLOAT16 = 10,
  SCANTUNE_BFLOAT16 = 11
} scantune_dtype_t;

typedef enum {
  SCANTUNE_OP_SUM = 0,
  SCANTUNE_OP_PRODUCT = 1,
  SCANTUNE_OP_MIN = 2,
  SCANTUNE_OP_MAX = 3,
  SCANTUNE_OP_BIT_AND = 4,
  SCANTUNE_OP_BIT_OR = 5,
  SCANTUNE_OP_BIT_XOR = 6
} scantune_op_t;

typedef struct scantune_scanner_s* scantune_scanner_t;

/* device: -1 = current device; database, kernel_cache: NULL = defaults. With the
 * environment variable SCANTUNE_REPRODUCIBLE=1, float scans give the same bits on every
 * run (ScannerOptions::reproducible of the C++ API). */
SCANTUNE_API scantune_status_t scantune_scanner_create(scantune_scanner_t* scanner, int device,
                                                       const char* database,
                                                       const char* kernel_cache);
SCANTUNE_API scantune_status_t scantune_scanner_destroy(scantune_scanner_t scanner);

SCANTUNE_API scantune_status_t scantune_inclusive_scan(scantune_scanner_t scanner,
                                                       scantune_dtype_t type, scantune_op_t op,
                                                       const void* d_in, void* d_out, size_t n,
                                                       cudaStream_t stream);
/* init points to one element of `type`. */
SCANTUNE_API scantune_status_t scantune_exclusive_scan(scantune_scanner_t scanner,
                                                       scantune_dtype_t type, scantune_op_t op,
                                                       const void* d_in, void* d_out, size_t n,
                                                       const void* init, cudaStream_t stream);
/* A custom operator: body of a function of a and b returning the type, and an identity expression.
 * exclusive != 0 selects an exclusive scan (init then required). */
SCANTUNE_API scantune_status_t scantune_custom_scan(scantune_scanner_t scanner,
                                                    scantune_dtype_t type, int exclusive,
                                                    const char* name, const char* body,
                                                    const char* identity, const void* d_in,
                                                    void* d_out, size_t n, const void* init,
                                                    cudaStream_t stream);
/* Runs an explicit policy key (e.g. "lookback_warp.tpb256.ipt12.vec4.warp_scans"). */
SCANTUNE_API scantune_status_t scantune_scan_with_policy(
    scantune_scanner_t scanner, const char* policy_key, scantune_dtype_t type, scantune_op_t op,
    int exclusive, const void* d_in, void* d_out, size_t n, const void* init, cudaStream_t stream);

/* Loads (compiles, or reads from the kernel cache) what a scan with these parameters
 * runs, so that the scan itself compiles nothing (before timing or graph capture). */
SCANTUNE_API scantune_status_t scantune_prepare(scantune_scanner_t scanner, scantune_dtype_t type,
                                                scantune_op_t op, int exclusive, size_t n);
/* Bytes of device workspace a scan with these parameters needs (0 = none), for
 * scantune_scan_ex. */
SCANTUNE_API scantune_status_t scantune_workspace_bytes(scantune_scanner_t scanner,
                                                        scantune_dtype_t type, scantune_op_t op,
                                                        int exclusive, size_t n, size_t* bytes);
/* A scan with a caller-owned workspace of workspace_bytes bytes at d_workspace: zeroed
 * once before its first use, then reused by scans in stream order without zeroing.
 * d_workspace == NULL: the scanner's own. init: exclusive scans only. */
SCANTUNE_API scantune_status_t scantune_scan_ex(scantune_scanner_t scanner, scantune_dtype_t type,
                                                scantune_op_t op, int exclusive, const void* d_in,
                                                void* d_out, size_t n, const void* init,
                                                void* d_workspace, size_t workspace_bytes,
                                                cudaStream_t stream);

/* A segmented scan: the scan restarts at every segment, and an exclusive scan starts
 * each segment at *init. Segments are given by exactly one of:
 *   d_head_flags  n bytes on the device (uint8 or bool), nonzero = a segment starts here;
 *   row_length    a segment every row_length elements: the rows of a row-major
 *                 (n / row_length) x row_length array, each scanned (a batched scan).
 * Pass NULL / 0 for the other. Element 0 always starts a segment. */
SCANTUNE_API scantune_status_t scantune_segmented_scan(scantune_scanner_t scanner,
                                                       scantune_dtype_t type, scantune_op_t op,
                                                       int exclusive, const void* d_in, void* d_out,
                                                       size_t n, const void* d_head_flags,
                                                       size_t row_length, const void* init,
                                                       cudaStream_t stream);

/* Scan by key: a segment is a run of equal keys; d_keys holds n keys of key_bytes (4 or
 * 8) bytes, compared by their bits (CUB's ScanByKey). */
SCANTUNE_API scantune_status_t scantune_scan_by_key(scantune_scanner_t scanner,
                                                    scantune_dtype_t type, scantune_op_t op,
                                                    int exclusive, const void* d_in, void* d_out,
                                                    size_t n, const void* d_keys, int key_bytes,
                                                    const void* init, cudaStream_t stream);
/* Segments by CSR begin offsets: num_segments + 1 offsets of offset_bytes (4 or 8) bytes;
 * segment s is [d_offsets[s], d_offsets[s + 1]); empty segments are allowed. The caller
 * guarantees d_offsets[0] == 0, d_offsets[num_segments] == n and that they never
 * decrease (CUB's DeviceSegmentedScan contract). */
SCANTUNE_API scantune_status_t scantune_segmented_scan_offsets(
    scantune_scanner_t scanner, scantune_dtype_t type, scantune_op_t op, int exclusive,
    const void* d_in, void* d_out, size_t n, const void* d_offsets, int offset_bytes,
    size_t num_segments, const void* init, cudaStream_t stream);

/* A scan along the middle axis of a row-major outer x len x inner array: each of the
 * outer * inner columns (len elements, inner apart) scanned on its own, as
 * torch.cumsum(x.view(outer, len, inner), dim=1); inner == 1 scans rows. */
SCANTUNE_API scantune_status_t scantune_axis_scan(scantune_scanner_t scanner, scantune_dtype_t type,
                                                  scantune_op_t op, int exclusive, const void* d_in,
                                                  void* d_out, size_t outer, size_t len,
                                                  size_t inner, const void* init,
                                                  cudaStream_t stream);

/* A reverse (suffix) scan with a built-in operator: inclusive, out[i] = in[i] op ... op
 * in[n-1]; exclusive, out[i] = in[i+1] op ... op in[n-1] op *init (out[n-1] = *init).
 * Scanner::reverse_inclusive_scan documents the order of the operands. */
SCANTUNE_API scantune_status_t scantune_reverse_scan(scantune_scanner_t scanner,
                                                     scantune_dtype_t type, scantune_op_t op,
                                                     int exclusive, const void* d_in, void* d_out,
                                                     size_t n, const void* init,
                                                     cudaStream_t stream);

/* The library's logaddexp operator (scantune::logaddexp_op), for scantune_custom_scan:
 * its inclusive scan is logcumsumexp. The strings live as long as the library. */
SCANTUNE_API void scantune_logaddexp_op(const char** name, const char** body,
                                        const char** identity);

/* A struct-valued custom operator (scantune::CustomOp with value_struct): body and
 * identity work on the struct that value_struct defines and value_type names, of
 * value_bytes bytes (its sizeof: 4, 8, 12 or 16). */
typedef struct {
  const char* name;
  const char* body;
  const char* identity;
  const char* value_struct;
  const char* value_type;
  int value_bytes;
} scantune_struct_op_t;

/* A scan of n structs (Scanner::scan_struct): an exclusive scan starts at the identity;
 * policy_key NULL lets the scanner choose. A struct of more than 16 bytes or not a
 * multiple of 4 fails with SCANTUNE_ERROR_UNSUPPORTED; source that does not compile,
 * or a value_bytes that is not its sizeof, with SCANTUNE_ERROR_COMPILE (the NVRTC log in
 * scantune_last_error_log). */
SCANTUNE_API scantune_status_t scantune_struct_scan(scantune_scanner_t scanner,
                                                    const scantune_struct_op_t* op, int exclusive,
                                                    const void* d_in, void* d_out, size_t n,
                                                    const char* policy_key, cudaStream_t stream);
/* The library's struct-valued operators (scantune::linear_recurrence_op: pairs of floats
 * (a, b), h[i] = a[i] * h[i-1] + b[i]; scantune::argmax_op: (float value, int32 index),
 * the first maximum). The strings live as long as the library. */
SCANTUNE_API void scantune_linear_recurrence_op(scantune_struct_op_t* op);
SCANTUNE_API void scantune_argmax_op(scantune_struct_op_t* op);

/* A scan that converts: elements of in_type combined in acc_type (SCANTUNE_ACC_DEFAULT:
 * the default for the pair, e.g. int32 for UINT8 into INT32) and stored as out_type; init
 * points to one acc_type element. `reverse`: a suffix scan. Unsupported pairs (an input
 * wider than the accumulator, a float into an integer) fail with
 * SCANTUNE_ERROR_UNSUPPORTED. */
SCANTUNE_API scantune_status_t
scantune_scan_types(scantune_scanner_t scanner, scantune_dtype_t in_type, scantune_dtype_t acc_type,
                    scantune_dtype_t out_type, scantune_op_t op, int exclusive, int reverse,
                    const void* d_in, void* d_out, size_t n, const void* init, cudaStream_t stream);

/* A scan that starts from one element of `type` in device memory at d_start, read when
 * the kernel runs (an earlier kernel on `stream` may write it): an exclusive scan's init,
 * or an inclusive scan's seed (out[i] = seed op in[0] op ... op in[i]). */
SCANTUNE_API scantune_status_t scantune_scan_from_device(scantune_scanner_t scanner,
                                                         scantune_dtype_t type, scantune_op_t op,
                                                         int exclusive, const void* d_in,
                                                         void* d_out, size_t n, const void* d_start,
                                                         cudaStream_t stream);
/* *d_result = in[0] op ... op in[n-1] (the identity when n == 0), on the device. */
SCANTUNE_API scantune_status_t scantune_reduce(scantune_scanner_t scanner, scantune_dtype_t type,
                                               scantune_op_t op, const void* d_in, void* d_result,
                                               size_t n, cudaStream_t stream);

/* Stream compaction (scantune::Scanner::select_flagged ...): the selected items in input
 * order to d_out, their count to *d_num_selected (device memory, or mapped pinned host
 * memory read after a stream synchronize). d_flags (n bytes,
 * nonzero = selected) for the FLAGGED ones; predicate_name and predicate_body (a function
 * body of x returning bool, e.g. "return x > 0;") for the IF ones; partitions store the
 * rejected items after the selected ones. Selections and unique may run in place.
 * Every element type, moved as it is (no accumulator); a predicate's x and unique's
 * comparison take FLOAT16 and BFLOAT16 elements as float. */
typedef enum {
  SCANTUNE_SELECT_FLAGGED = 0,
  SCANTUNE_SELECT_IF = 1,
  SCANTUNE_UNIQUE = 2,
  SCANTUNE_PARTITION_FLAGGED = 3,
  SCANTUNE_PARTITION_IF = 4
} scantune_compaction_t;
SCANTUNE_API scantune_status_t scantune_compact(scantune_scanner_t scanner,
                                                scantune_compaction_t how, scantune_dtype_t type,
                                                const void* d_in, const void* d_flags,
                                                const char* predicate_name,
                                                const char* predicate_body, void* d_out, size_t n,
                                                uint64_t* d_num_selected, cudaStream_t stream);
/* Stable LSD radix sort (scantune::Scanner::sort_keys, sort_pairs): d_keys_out = d_keys_in
 * sorted (equal keys in input order), keys of `key_type` (4 or 8 bytes; a narrower type
 * returns SCANTUNE_ERROR_UNSUPPORTED), by bits [begin_bit, end_bit) of
 * their order-preserving unsigned image (0 and 8 * key size: all bits); floats in IEEE
 * total order (-0.0 before +0.0, positive NaNs last). descending != 0 reverses the order.
 * d_values_in and d_values_out null sort keys only; d_values_in null and d_values_out not
 * writes each sorted key's input position there (an argsort: 0-based integers of
 * value_bytes, 4 for n <= 2^32, or 8); otherwise values of value_bytes (4 or 8) move with
 * their keys to d_values_out. Not in place: outputs may not overlap the inputs. */
SCANTUNE_API scantune_status_t scantune_sort(scantune_scanner_t scanner, scantune_dtype_t key_type,
                                             const void* d_keys_in, void* d_keys_out,
                                             const void* d_values_in, void* d_values_out,
                                             size_t value_bytes, size_t n, int descending,
                                             unsigned begin_bit, unsigned end_bit,
                                             cudaStream_t stream);
/* Reads a compaction's count back once the stream's work is done (synchronizes it). */
SCANTUNE_API scantune_status_t scantune_selected_count(const uint64_t* d_num_selected,
                                                       cudaStream_t stream, uint64_t* count);

/* Static text for a status. */
SCANTUNE_API const char* scantune_status_string(scantune_status_t status);
/* The message of this thread's last failure ("" if none). */
SCANTUNE_API const char* scantune_last_error(void);
/* The NVRTC log (and options) of this thread's last SCANTUNE_ERROR_COMPILE ("" if none). */
SCANTUNE_API const char* scantune_last_error_log(void);

#ifdef __cplusplus
}
#endif

#endif /* SCANTUNE_SCANTUNE_H */

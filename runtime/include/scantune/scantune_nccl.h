/* scantune/scantune_nccl.h: C API of the distributed scan over NCCL (libscantune_nccl,
 * the C form of scantune/nccl.hpp, whose header comment describes the algorithm, the
 * argument check and the errors).
 *
 * Each rank holds a contiguous chunk of the global array (sizes may differ, 0 allowed);
 * a call writes this rank's part of the global scan, in place or out of place. Status
 * codes are libscantune's; on failure scantune_nccl_last_error() names the problem (per
 * calling thread). When the ranks pass different types, operators or kinds, every rank
 * gets SCANTUNE_ERROR_INVALID_ARGUMENT with the same message.
 *
 * Example (one process per GPU):
 *   scantune_scanner_t s;
 *   scantune_scanner_create(&s, my_device, NULL, NULL);
 *   int32_t init = 0;
 *   if (scantune_nccl_scan(s, comm, SCANTUNE_INT32, SCANTUNE_OP_SUM, 1, d_in, d_out, n, &init,
 *                          stream) != SCANTUNE_SUCCESS)
 *     fprintf(stderr, "%s\n", scantune_nccl_last_error());
 */
#ifndef SCANTUNE_SCANTUNE_NCCL_H
#define SCANTUNE_SCANTUNE_NCCL_H

#include <stddef.h>

#include <nccl.h>

#include "scantune/scantune.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flags of scantune_nccl_scan_ranks. */
enum {
  /* Skip the all-gather and host comparison of the ranks' argument descriptors (one
   * small collective and one host synchronization per call); ranks that disagree are
   * then undefined behaviour. */
  SCANTUNE_NCCL_NO_CHECK = 1
};

/* One rank's part of a call from a process that drives several GPUs. */
typedef struct {
  scantune_scanner_t scanner; /* on the communicator's device */
  ncclComm_t comm;
  const void* d_in;
  void* d_out;
  size_t n;
  cudaStream_t stream;
} scantune_nccl_rank_t;

/* This rank's part of the global scan with a built-in operator. exclusive != 0: an
 * exclusive scan starting at *init (one element of `type`, the same on every rank). */
SCANTUNE_API scantune_status_t scantune_nccl_scan(scantune_scanner_t scanner, ncclComm_t comm,
                                                  scantune_dtype_t type, scantune_op_t op,
                                                  int exclusive, const void* d_in, void* d_out,
                                                  size_t n, const void* init, cudaStream_t stream);

/* The same with a custom operator: body of a function of a and b returning the type, and
 * an identity expression (as scantune_custom_scan). */
SCANTUNE_API scantune_status_t scantune_nccl_custom_scan(scantune_scanner_t scanner,
                                                         ncclComm_t comm, scantune_dtype_t type,
                                                         int exclusive, const char* name,
                                                         const char* body, const char* identity,
                                                         const void* d_in, void* d_out, size_t n,
                                                         const void* init, cudaStream_t stream);

/* Several ranks driven by this process (collective steps grouped with ncclGroupStart/End).
 * name == NULL: the built-in operator `op`; else the custom operator (name, body,
 * identity) and `op` is ignored. flags: 0 or SCANTUNE_NCCL_NO_CHECK. */
SCANTUNE_API scantune_status_t scantune_nccl_scan_ranks(const scantune_nccl_rank_t* ranks,
                                                        size_t num_ranks, scantune_dtype_t type,
                                                        scantune_op_t op, const char* name,
                                                        const char* body, const char* identity,
                                                        int exclusive, const void* init,
                                                        unsigned flags);

/* Frees the buffers cached for `comm` (call before ncclCommDestroy). */
SCANTUNE_API scantune_status_t scantune_nccl_release(ncclComm_t comm);

/* This thread's last error message ("" after a success). */
SCANTUNE_API const char* scantune_nccl_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* SCANTUNE_SCANTUNE_NCCL_H */

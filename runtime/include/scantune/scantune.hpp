// scantune/scantune.hpp: prefix scans on the GPU, with kernels generated and
// compiled at run time (NVRTC) for the detected GPU.
//
// Usage:
//
//   #include <scantune/scantune.hpp>
//
//   // d_in, d_out: device pointers to n int32 values (cudaMalloc'd).
//   scantune::inclusive_sum(d_in, d_out, n);              // process-wide scanner, default stream
//
//   scantune::Scanner scanner;                            // owns per-stream workspaces
//   scanner.exclusive_scan(d_in, d_out, n, scantune::Op::Max, INT32_MIN, stream);
//
//   scantune::CustomOp absmax{"absmax", "return fabs(a) > fabs(b) ? a : b;", "0.0"};
//   scanner.inclusive_scan(d_fin, d_fout, n, absmax, stream);   // float or double
//
//   scanner.reduce(d_in, d_total, n, scantune::Op::Sum, stream);  // into device memory
//   scanner.sort_pairs(d_keys, d_sorted_keys, d_vals, d_sorted_vals, n,  // stable radix sort
//                      scantune::SortOrder::Descending, stream);
//   scanner.sort_with_indices(d_keys, d_sorted_keys, d_order, n);  // and input positions
//   scanner.exclusive_scan(d_in, d_out, n, scantune::Op::Sum,      // init read on the device
//                          scantune::DeviceValue<int>{d_total}, stream);
//
//   scanner.inclusive_scan(d_bytes, d_counts, n, scantune::Op::Sum,  // uint8_t into int32_t,
//                          stream);                                 // counted in int32
//   scanner.reverse_inclusive_scan(d_in, d_out, n, scantune::Op::Sum, stream);  // suffix scan
//
//   scantune::ScannerOptions o;                                   // float scans with the same
//   o.reproducible = true;                                        // bits on every run
//   scantune::Scanner reproducible(o);
//
//   scantune::Plan p = scanner.plan(scantune::DataType::Int32, scantune::Op::Sum,
//                                   scantune::ScanKind::Inclusive, n);
//   std::printf("%s (%s)\n", p.policy.c_str(), std::string(to_string(p.match)).c_str());
//
//   scanner.prepare(scantune::DataType::Int32, scantune::Op::Sum,   // compile ahead, e.g.
//                   scantune::ScanKind::Inclusive, n);              // before graph capture
//
//   // A caller-owned workspace (CUB style): query, allocate, zero once, then reuse it
//   // for calls in stream order.
//   std::size_t bytes = scanner.workspace_bytes(scantune::DataType::Int32, scantune::Op::Sum,
//                                               scantune::ScanKind::Inclusive, n);
//   cudaMallocAsync(&d_ws, bytes, stream); cudaMemsetAsync(d_ws, 0, bytes, stream);
//   scanner.inclusive_scan(d_in, d_out, n, scantune::Op::Sum, stream, {d_ws, bytes});
//
// Dispatch: each call runs the configuration tuned for this GPU model, element
// type, operator, kind and size bucket (`scantune tune` stores them in the tuning
// database). Fallback chain, best first (Scanner::plan says which one a call gets):
//   Exact        this GPU model, this size bucket (two per octave: 2^k holds n in
//                (1.5 x 2^(k-1), 2^k], 1.5 x 2^k holds n in (2^k, 1.5 x 2^k])
//   NearestSize  this GPU model, the nearest tuned bucket on a log scale
//   SameArch     another GPU model of the same compute capability, nearest bucket
//   BuiltIn      compiled into the library: the table of this GPU model, else one of
//                its compute capability (the H100's for sm_90; the nearest tuned
//                problem of the same element size), heuristics elsewhere
// Entries of another compute capability are never used. The database is read once,
// when the Scanner is constructed (reload_database() reads it again); calls then
// look their configuration up in memory. SCANTUNE_LOG=info logs the database read
// and, once per problem and size bucket, every call that falls back.
//
// Hot path: after the first call of a (type, operator, kind, size bucket), a call
// does no database query, no allocation, no host synchronization and no NVRTC
// compile (unless a larger n on a stream needs a larger workspace, which is grown
// once with stream-ordered allocation).
//
// CUDA graphs: calls may be captured (cudaStreamBeginCapture) once they are warm,
// i.e. after one uncaptured call with the same (type, operator, kind, size bucket)
// so that nothing is compiled during capture. A captured call allocates its own
// workspace in the graph (stream-ordered allocation, zeroed, freed at the end of
// the call), so graph launches are independent of each other and of the stream.
//
// Tune on first use (optional): with SCANTUNE_AUTOTUNE=1, the first call of a size
// bucket that is not tuned for this GPU starts `scantune tune` for it in the
// background (one at a time; $SCANTUNE_AUTOTUNE_BUDGET, default 60s, bounds each).
// Calls keep using the fallback until it finishes; the scanner then rereads the
// database. The tuner is $SCANTUNE_TUNER, else the `scantune` installed next to
// the library, else `scantune` on PATH; its output goes to
// $XDG_CACHE_HOME/scantune/autotune.log.
//
// Semantics shared by every call:
// - Asynchronous and ordered on `stream`: the call enqueues work and returns.
// - One kernel launch per call for the single-pass algorithms (the default); no
//   memset or initialisation kernel per call. On sm_90 and up the launch is a
//   programmatic dependent launch: it may start while the stream's previous kernel
//   drains, and the kernel waits for that kernel before touching memory.
// - In place (d_in == d_out) is allowed. Pointers need only element alignment.
// - n == 0 is a no-op. Errors throw scantune::Error, whose what() names the problem
//   and kind() classifies it (scantune/types.hpp).
// - The first call for a (type, operator, kind, configuration) compiles a kernel
//   with NVRTC (tens of milliseconds); later calls reuse it.
//
// Integer Sum and Product wrap modulo 2^bits (no undefined behaviour on overflow).
// Floating-point sums and products depend on the association order, so they may
// differ in the last bits between configurations and between runs of look-back
// algorithms; float min and max do not (see Op).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <cuda_runtime_api.h>

#include "scantune/types.hpp"

struct scantune_scanner_s; // the C API's handle (scantune.h)

namespace scantune {

namespace detail {
struct ScannerAccess; // the internal core's way in (tuner, tests)
}

/// Where a Scanner runs and which files it reads.
struct ScannerOptions {
  int device = -1; ///< CUDA device ordinal; -1 = the current device at construction
  /// Tuning DB; empty = $SCANTUNE_DB or $XDG_DATA_HOME/scantune/tuning.db; "off" =
  /// none (built-in table only). Read-only: the scanner never creates or changes it.
  std::string database;
  std::string
      kernel_cache; ///< cubin cache dir; empty = $SCANTUNE_KERNEL_CACHE or $XDG_CACHE_HOME/scantune
  /// Programmatic dependent launch on sm_90 and up (also off with SCANTUNE_PDL=0): a
  /// call's kernel may be launched while the stream's previous kernel finishes, and
  /// waits for it before reading or writing memory, so results never change.
  bool programmatic_launch = true;
  /// Floating-point scans (float32, float64, built-in or custom operators) give the same
  /// bits on every run on one GPU model and input: the look-back algorithms combine tile
  /// prefixes in one fixed order instead of the order the timing of the run gives
  /// (docs/performance.md has its cost). Reductions are always reproducible. Also on
  /// with SCANTUNE_REPRODUCIBLE=1.
  bool reproducible = false;
};

/// What a call runs and why (Scanner::plan).
struct Plan {
  /// The configuration's key, e.g. "lookback_warp.tpb256.ipt12.vec4.warp_scans"
  /// (docs/design.md names its fields); Scanner::scan_with runs a key.
  std::string policy;
  Match match = Match::BuiltIn;
  std::uint64_t tuned_size = 0; ///< the size the chosen entry was tuned at; 0 = heuristic
  std::string source;           ///< e.g. "tuning DB /path/tuning.db: NVIDIA H100 ... at n = 2^20"
};

/// A caller-owned device workspace (see Scanner::workspace_bytes). Zero it once
/// (cudaMemsetAsync) before its first use; calls then reuse it without zeroing as
/// long as they run one after another in stream order (its status words carry a
/// generation). Empty (the default) = the scanner's own per-stream workspace.
struct Workspace {
  void* ptr = nullptr;
  std::size_t bytes = 0;
};

/// The stream compactions (Scanner::select_flagged ...).
enum class Compaction { SelectFlagged, SelectIf, Unique, PartitionFlagged, PartitionIf };

/// The order of a sort (Scanner::sort_keys, sort_pairs).
enum class SortOrder { Ascending, Descending };

/// A compaction's count, read back from device memory once `stream`'s work is done
/// (synchronizes the stream).
SCANTUNE_API std::uint64_t selected_count(const std::uint64_t* d_num_selected,
                                          cudaStream_t stream = nullptr);

/// Owns compiled kernels and per-stream workspaces for one device. Thread-safe:
/// one Scanner may be used from many host threads and streams at once.
class Scanner {
public:
  SCANTUNE_API explicit Scanner(ScannerOptions options = {});
  SCANTUNE_API ~Scanner();
  SCANTUNE_API Scanner(Scanner&&) noexcept;
  SCANTUNE_API Scanner& operator=(Scanner&&) noexcept;
  Scanner(const Scanner&) = delete;
  Scanner& operator=(const Scanner&) = delete;

  template <class T>
  void inclusive_scan(const T* d_in, T* d_out, std::size_t n, OpRef op,
                      cudaStream_t stream = nullptr, Workspace workspace = {}) {
    run(data_type_of<T>(), ScanKind::Inclusive, op, d_in, d_out, n, nullptr, stream, workspace, {});
  }
  template <class T>
  void exclusive_scan(const T* d_in, T* d_out, std::size_t n, OpRef op, T init,
                      cudaStream_t stream = nullptr, Workspace workspace = {}) {
    const accumulator_t<T> a = accumulator_value<accumulator_t<T>>(init);
    run(data_type_of<T>(), ScanKind::Exclusive, op, d_in, d_out, n, &a, stream, workspace, {});
  }

  /// Scans that convert (ScanTypes): elements of In are combined in an accumulator and
  /// stored as Out, with the accumulator scan_types(In, Out) picks: uint8_t or bool into
  /// int32_t counts in int32, __half into __half or float accumulates in float, int32_t
  /// into int64_t in int64. Narrow types alone (int8_t into int8_t) take these paths
  /// through the one-type calls above. In place needs In and Out of one size. `init` is
  /// converted to the accumulator. Run the types of your choice with run_types.
  ///   scanner.inclusive_scan(d_flags, d_counts, n, scantune::Op::Sum, stream); // uint8 -> int32
  template <class In, class Out>
  void inclusive_scan(const In* d_in, Out* d_out, std::size_t n, OpRef op,
                      cudaStream_t stream = nullptr) {
    run_types(scan_types(data_type_of<In>(), data_type_of<Out>()), ScanKind::Inclusive, op, d_in,
              d_out, n, nullptr, stream);
  }
  template <class In, class Out, class Init>
  void exclusive_scan(const In* d_in, Out* d_out, std::size_t n, OpRef op, Init init,
                      cudaStream_t stream = nullptr) {
    converted_exclusive(d_in, d_out, n, op, init, stream, false);
  }
  template <class In, class Out>
  void reverse_inclusive_scan(const In* d_in, Out* d_out, std::size_t n, OpRef op,
                              cudaStream_t stream = nullptr) {
    run_types(scan_types(data_type_of<In>(), data_type_of<Out>()), ScanKind::Inclusive, op, d_in,
              d_out, n, nullptr, stream, true);
  }
  template <class In, class Out, class Init>
  void reverse_exclusive_scan(const In* d_in, Out* d_out, std::size_t n, OpRef op, Init init,
                              cudaStream_t stream = nullptr) {
    converted_exclusive(d_in, d_out, n, op, init, stream, true);
  }

  /// Scans of a struct-valued custom operator (CustomOp::value_struct): `d_in` and
  /// `d_out` hold n structs of op.value_bytes bytes each, aligned to the largest power
  /// of two dividing that size; in place allowed. An exclusive scan starts at the
  /// operator's identity (out[0] = identity). A `policy_key` runs that configuration
  /// (benchmarks, the tuner). Throws Error: Unsupported for a struct of more than 16
  /// bytes or not a multiple of 4, Compile (with the NVRTC log) for struct source,
  /// body or identity that does not compile or a value_bytes that is not its sizeof.
  ///   scanner.scan_struct(d_pairs, d_out, n, scantune::linear_recurrence_op(),
  ///                       scantune::ScanKind::Inclusive, stream);
  SCANTUNE_API void scan_struct(const void* d_in, void* d_out, std::size_t n, const CustomOp& op,
                                ScanKind kind, cudaStream_t stream = nullptr,
                                std::string_view policy_key = {});
  /// The same on arrays of a host struct T, the device struct's twin (same layout);
  /// throws Error (InvalidArgument) where sizeof(T) is not op.value_bytes.
  template <class T>
  void scan_struct(const T* d_in, T* d_out, std::size_t n, const CustomOp& op, ScanKind kind,
                   cudaStream_t stream = nullptr) {
    static_assert(std::is_trivially_copyable_v<T>, "struct values are copied as bytes");
    check_struct_size(op, sizeof(T));
    scan_struct(static_cast<const void*>(d_in), static_cast<void*>(d_out), n, op, kind, stream);
  }
  /// The configuration a struct scan of n values runs (plan), and loading it (prepare).
  SCANTUNE_API Plan plan_struct(const CustomOp& op, ScanKind kind, std::size_t n) const;
  SCANTUNE_API void prepare_struct(const CustomOp& op, ScanKind kind, std::size_t n);

  /// The type-erased flat scan of any ScanTypes (and the C API's): `init` points to one
  /// accumulator (types.acc) for exclusive scans; `reverse`: a suffix scan; a
  /// `policy_key` runs that configuration (benchmarks), as scan_with does.
  SCANTUNE_API void run_types(const ScanTypes& types, ScanKind kind, OpRef op, const void* in,
                              void* out, std::size_t n, const void* init, cudaStream_t stream,
                              bool reverse = false, std::string_view policy_key = {});

  /// Reverse (suffix) scans, in one pass and without a copy (in place allowed):
  ///   inclusive: out[i] = in[i] op in[i+1] op ... op in[n-1]
  ///   exclusive: out[i] = in[i+1] op ... op in[n-1] op init, so out[n-1] = init
  /// The elements keep their left-to-right order inside every fold (init at the right
  /// end), which matters only for non-commutative custom operators. For sum this is
  /// what torch.flip(torch.cumsum(torch.flip(x, [0]), 0), [0]) and cupy's flip-cumsum-
  /// flip give; for a non-commutative operator flip-scan-flip would fold right to left
  /// instead. Same configurations and speed as the forward scans.
  template <class T>
  void reverse_inclusive_scan(const T* d_in, T* d_out, std::size_t n, OpRef op,
                              cudaStream_t stream = nullptr) {
    run_reverse(data_type_of<T>(), ScanKind::Inclusive, op, d_in, d_out, n, nullptr, stream);
  }
  template <class T>
  void reverse_exclusive_scan(const T* d_in, T* d_out, std::size_t n, OpRef op, T init,
                              cudaStream_t stream = nullptr) {
    const accumulator_t<T> a = accumulator_value<accumulator_t<T>>(init);
    run_reverse(data_type_of<T>(), ScanKind::Exclusive, op, d_in, d_out, n, &a, stream);
  }

  /// Scans that start from a value in device memory, read when the kernel runs (CUB's
  /// future value): an exclusive scan's init, or an inclusive scan's seed (out[i] =
  /// seed op in[0] op ... op in[i]). An earlier kernel on `stream` may compute it, so
  /// scans chain without a host round trip:
  ///   scanner.reduce(d_a, d_total, n_a, scantune::Op::Sum, stream);
  ///   scanner.inclusive_scan(d_b, d_out, n_b, scantune::Op::Sum,
  ///                          scantune::DeviceValue<int>{d_total}, stream);   // continues a
  /// Same configurations and speed as the host-init calls. The value is an accumulator
  /// (accumulator_t<T>: an int32 for int8_t elements).
  template <class T>
  void exclusive_scan(const T* d_in, T* d_out, std::size_t n, OpRef op,
                      DeviceValue<accumulator_t<T>> init, cudaStream_t stream = nullptr) {
    run_from_device(data_type_of<T>(), ScanKind::Exclusive, op, d_in, d_out, n, init.ptr, stream);
  }
  template <class T>
  void inclusive_scan(const T* d_in, T* d_out, std::size_t n, OpRef op,
                      DeviceValue<accumulator_t<T>> seed, cudaStream_t stream = nullptr) {
    run_from_device(data_type_of<T>(), ScanKind::Inclusive, op, d_in, d_out, n, seed.ptr, stream);
  }

  /// Reduction into device memory: *d_result = in[0] op ... op in[n-1] (the operator's
  /// identity when n == 0), combined in an order that does not depend on scheduling (the
  /// same bits run after run). Asynchronous on `stream`; no host synchronization.
  template <class T>
  void reduce(const T* d_in, T* d_result, std::size_t n, OpRef op, cudaStream_t stream = nullptr) {
    run_reduce(data_type_of<T>(), op, d_in, d_result, n, stream);
  }

  /// Stream compaction, on the same single-pass engine (one launch; partitions two):
  /// the selected items, in input order, to d_out[0 .. count), and the count to
  /// *d_num_selected (device memory, written when the kernel runs, so calls stay
  /// asynchronous; selected_count() reads it back; or mapped pinned host memory,
  /// cudaHostAllocMapped, read once the stream is synchronized, with no copy after
  /// the kernel). Every element type, the narrow ones too (int8_t .. uint16_t, __half,
  /// __nv_bfloat16, bool as uint8): items move as they are, never through an
  /// accumulator; a predicate's `x` and unique's comparison take half and bfloat16 as
  /// float (unique: -0.0 equals 0.0, a NaN equals nothing, as std::unique with ==).
  ///   select_flagged: keeps d_in[i] where d_flags[i] != 0 (CUB DeviceSelect::Flagged)
  ///   select_if:      keeps d_in[i] where the predicate holds (DeviceSelect::If)
  ///   unique:         keeps d_in[0] and each d_in[i] != d_in[i - 1] (DeviceSelect::Unique)
  ///   partition_*:    a stable two-way partition of all n items: the selected ones
  ///                   first, then the others, both in input order (std::stable_partition)
  /// Selections and unique may run in place (d_in == d_out); partitions may not. The
  /// flags may not overlap the output.
  ///   scanner.select_if(d_x, d_y, n, scantune::Predicate{"positive", "return x > 0;"},
  ///                     d_count, stream);
  template <class T>
  void select_flagged(const T* d_in, const std::uint8_t* d_flags, T* d_out, std::size_t n,
                      std::uint64_t* d_num_selected, cudaStream_t stream = nullptr) {
    run_select(data_type_of<T>(), Compaction::SelectFlagged, d_in, d_flags, nullptr, d_out, n,
               d_num_selected, stream);
  }
  template <class T>
  void select_if(const T* d_in, T* d_out, std::size_t n, const Predicate& predicate,
                 std::uint64_t* d_num_selected, cudaStream_t stream = nullptr) {
    run_select(data_type_of<T>(), Compaction::SelectIf, d_in, nullptr, &predicate, d_out, n,
               d_num_selected, stream);
  }
  template <class T>
  void unique(const T* d_in, T* d_out, std::size_t n, std::uint64_t* d_num_selected,
              cudaStream_t stream = nullptr) {
    run_select(data_type_of<T>(), Compaction::Unique, d_in, nullptr, nullptr, d_out, n,
               d_num_selected, stream);
  }
  template <class T>
  void partition_flagged(const T* d_in, const std::uint8_t* d_flags, T* d_out, std::size_t n,
                         std::uint64_t* d_num_selected, cudaStream_t stream = nullptr) {
    run_select(data_type_of<T>(), Compaction::PartitionFlagged, d_in, d_flags, nullptr, d_out, n,
               d_num_selected, stream);
  }
  template <class T>
  void partition_if(const T* d_in, T* d_out, std::size_t n, const Predicate& predicate,
                    std::uint64_t* d_num_selected, cudaStream_t stream = nullptr) {
    run_select(data_type_of<T>(), Compaction::PartitionIf, d_in, nullptr, &predicate, d_out, n,
               d_num_selected, stream);
  }

  /// The compactions' type-erased entry (and the C API's): `flags` for the flagged
  /// ones, `predicate` for the _if ones, null otherwise.
  SCANTUNE_API void run_select(DataType type, Compaction how, const void* in,
                               const std::uint8_t* flags, const Predicate* predicate, void* out,
                               std::size_t n, std::uint64_t* d_num_selected, cudaStream_t stream);

  /// Stable LSD radix sort (onesweep: one histogram pass over the keys, then one pass
  /// per 8-bit digit): d_keys_out = d_keys_in sorted, equal keys in input order
  /// (std::stable_sort). Keys of 4 and 8 bytes (int32, uint32, float32, int64, uint64,
  /// float64; narrower ones throw ErrorKind::Unsupported). Floats sort in IEEE total order:
  /// -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN (NaNs by their bit pattern;
  /// std::numeric_limits' NaNs are positive: last). Descending reverses the key order,
  /// still stable. sort_pairs moves each value with its key; values are any type of 4
  /// or 8 bytes, moved as raw bits. The bit-range variants sort by bits
  /// [begin_bit, end_bit) of the order-preserving unsigned image of the keys (for
  /// unsigned integers the keys' own bits); the others by all bits. Digits that every
  /// key shares (the high bytes of small integers such as indices or labels) cost no
  /// pass where two of them follow each other: such keys sort faster without a range.
  /// Not in place: the outputs may not overlap the inputs or each other. The scanner's
  /// per-stream workspace holds a second copy of the keys (and values) for the
  /// ping-pong between passes; the last pass writes the outputs. Asynchronous on
  /// `stream`; n = 0 does nothing, n = 1 copies.
  ///   scanner.sort_keys(d_in, d_out, n);                               // ascending
  ///   scanner.sort_pairs(d_k, d_k_out, d_idx, d_idx_out, n, scantune::SortOrder::Descending);
  ///   scanner.sort_keys(d_u, d_u_out, n, 0, 16);                       // by the low 16 bits
  template <class K>
  void sort_keys(const K* d_keys_in, K* d_keys_out, std::size_t n,
                 SortOrder order = SortOrder::Ascending, cudaStream_t stream = nullptr) {
    sort_keys(d_keys_in, d_keys_out, n, 0, 8 * sizeof(K), order, stream);
  }
  template <class K>
  void sort_keys(const K* d_keys_in, K* d_keys_out, std::size_t n, unsigned begin_bit,
                 unsigned end_bit, SortOrder order = SortOrder::Ascending,
                 cudaStream_t stream = nullptr) {
    run_sort(data_type_of<K>(), d_keys_in, d_keys_out, nullptr, nullptr, 0, n, order, begin_bit,
             end_bit, stream);
  }
  template <class K, class V>
  void sort_pairs(const K* d_keys_in, K* d_keys_out, const V* d_values_in, V* d_values_out,
                  std::size_t n, SortOrder order = SortOrder::Ascending,
                  cudaStream_t stream = nullptr) {
    sort_pairs(d_keys_in, d_keys_out, d_values_in, d_values_out, n, 0, 8 * sizeof(K), order,
               stream);
  }
  template <class K, class V>
  void sort_pairs(const K* d_keys_in, K* d_keys_out, const V* d_values_in, V* d_values_out,
                  std::size_t n, unsigned begin_bit, unsigned end_bit,
                  SortOrder order = SortOrder::Ascending, cudaStream_t stream = nullptr) {
    run_sort(data_type_of<K>(), d_keys_in, d_keys_out, d_values_in, d_values_out, sizeof(V), n,
             order, begin_bit, end_bit, stream);
  }

  /// Sorts keys and writes, for each sorted key, its position in the input to
  /// d_indices_out (torch.sort's indices, an argsort): the first pass makes them, so no
  /// index array is read. Index: any integer type of 4 or 8 bytes (4 bytes: n <= 2^32).
  /// 8-byte indices of up to 2^32 keys move between passes as 4-byte positions and only
  /// the last pass writes them 8 bytes wide, so they cost about what 4-byte ones do.
  ///   scanner.sort_with_indices(d_k, d_k_out, d_order, n);  // d_order: std::int64_t*
  template <class K, class Index>
  void sort_with_indices(const K* d_keys_in, K* d_keys_out, Index* d_indices_out, std::size_t n,
                         SortOrder order = SortOrder::Ascending, cudaStream_t stream = nullptr) {
    sort_with_indices(d_keys_in, d_keys_out, d_indices_out, n, 0, 8 * sizeof(K), order, stream);
  }
  template <class K, class Index>
  void sort_with_indices(const K* d_keys_in, K* d_keys_out, Index* d_indices_out, std::size_t n,
                         unsigned begin_bit, unsigned end_bit,
                         SortOrder order = SortOrder::Ascending, cudaStream_t stream = nullptr) {
    static_assert(std::is_integral_v<Index> && (sizeof(Index) == 4 || sizeof(Index) == 8),
                  "indices are integers of 4 or 8 bytes");
    if (!d_indices_out && n) // else it would read as a sort of keys only
      throw Error("null index output pointer with n = " + std::to_string(n));
    run_sort(data_type_of<K>(), d_keys_in, d_keys_out, nullptr, d_indices_out, sizeof(Index), n,
             order, begin_bit, end_bit, stream);
  }

  /// The sorts' type-erased entry (and the C API's): `values_in` and `values_out` null
  /// sort keys only; `values_in` null and `values_out` not: the keys' input positions of
  /// `value_bytes` (4 or 8) go along (sort_with_indices); otherwise values of
  /// `value_bytes` (4 or 8).
  SCANTUNE_API void run_sort(DataType key_type, const void* keys_in, void* keys_out,
                             const void* values_in, void* values_out, std::size_t value_bytes,
                             std::size_t n, SortOrder order, unsigned begin_bit, unsigned end_bit,
                             cudaStream_t stream);

  /// Segmented scans: the scan restarts at every segment (see Segments). Exclusive
  /// scans start every segment at `init`. In place allowed; the flags may not
  /// overlap the output.
  ///   scanner.segmented_inclusive_scan(d_in, d_out, n, scantune::Segments::flags(d_heads),
  ///                                    scantune::Op::Sum, stream);
  ///   // a rows x len row-major matrix, each row scanned (torch.cumsum(x, dim=-1)):
  ///   scanner.segmented_inclusive_scan(d_x, d_y, rows * len, scantune::Segments::rows(len),
  ///                                    scantune::Op::Sum, stream);
  template <class T>
  void segmented_inclusive_scan(const T* d_in, T* d_out, std::size_t n, Segments segments, OpRef op,
                                cudaStream_t stream = nullptr) {
    run_segmented(data_type_of<T>(), ScanKind::Inclusive, op, d_in, d_out, n, nullptr, segments,
                  stream, {});
  }
  template <class T>
  void segmented_exclusive_scan(const T* d_in, T* d_out, std::size_t n, Segments segments, OpRef op,
                                T init, cudaStream_t stream = nullptr) {
    run_segmented(data_type_of<T>(), ScanKind::Exclusive, op, d_in, d_out, n, &init, segments,
                  stream, {});
  }

  /// Scans along the middle axis of a row-major outer x len x inner array: each of its
  /// outer * inner columns (len elements, `inner` apart) on its own, without a
  /// transposing copy: torch.cumsum(x.view(outer, len, inner), dim=1). A 2-d rows x
  /// cols array scanned down its columns is outer = 1, len = rows, inner = cols; inner =
  /// 1 is a batched scan of rows. Exclusive scans start every column at `init`.
  ///   scanner.axis_inclusive_scan(d_x, d_y, 1, rows, cols, scantune::Op::Sum, stream);
  template <class T>
  void axis_inclusive_scan(const T* d_in, T* d_out, std::size_t outer, std::size_t len,
                           std::size_t inner, OpRef op, cudaStream_t stream = nullptr) {
    run_axis(data_type_of<T>(), ScanKind::Inclusive, op, d_in, d_out, outer, len, inner, nullptr,
             stream);
  }
  template <class T>
  void axis_exclusive_scan(const T* d_in, T* d_out, std::size_t outer, std::size_t len,
                           std::size_t inner, OpRef op, T init, cudaStream_t stream = nullptr) {
    run_axis(data_type_of<T>(), ScanKind::Exclusive, op, d_in, d_out, outer, len, inner, &init,
             stream);
  }

  /// Runs an explicit configuration by its key (benchmarks, experiments). `init` is
  /// ignored for inclusive scans. Throws Error if the key does not parse or cannot
  /// run on T.
  template <class T>
  void scan_with(std::string_view policy_key, ScanKind kind, const T* d_in, T* d_out, std::size_t n,
                 OpRef op, T init = T{}, cudaStream_t stream = nullptr) {
    const accumulator_t<T> a = accumulator_value<accumulator_t<T>>(init);
    run(data_type_of<T>(), kind, op, d_in, d_out, n, &a, stream, {}, policy_key);
  }

  /// The configuration a call with these parameters runs, and how it was matched (a
  /// narrow `type`: the scan_types(type) it converts through).
  SCANTUNE_API Plan plan(DataType type, OpRef op, ScanKind kind, std::size_t n) const;
  SCANTUNE_API Plan plan(const ScanTypes& types, OpRef op, ScanKind kind, std::size_t n) const;
  /// The same for a compaction of n elements of `type` (`predicate`: the _if ones') and
  /// for a radix sort of n `key` keys with values of `value_bytes` (0: sort_keys, 4 or 8:
  /// sort_pairs); their policy keys are a scan policy's and "radix.tpb384.ipt12.rb8".
  SCANTUNE_API Plan select_plan(DataType type, Compaction how, std::size_t n,
                                const Predicate* predicate = nullptr) const;
  SCANTUNE_API Plan sort_plan(DataType key, std::size_t value_bytes, std::size_t n) const;
  /// Loads (compiles, or reads from the kernel cache) what a call with these
  /// parameters runs, so that the call itself compiles nothing: before timing, or
  /// before capturing calls into a CUDA graph.
  SCANTUNE_API void prepare(DataType type, OpRef op, ScanKind kind, std::size_t n);
  SCANTUNE_API void prepare(const ScanTypes& types, OpRef op, ScanKind kind, std::size_t n);
  /// Bytes of device workspace a call with these parameters needs (0 = none): the
  /// size of a caller-provided Workspace.
  SCANTUNE_API std::size_t workspace_bytes(DataType type, OpRef op, ScanKind kind,
                                           std::size_t n) const;

  /// Rereads the tuning database (e.g. after `scantune tune` ran in another
  /// process). Calls in flight on other threads finish with the old table.
  SCANTUNE_API void reload_database();
  /// The tuning database this scanner reads ("" when none: "off", or no file).
  SCANTUNE_API std::string database_path() const;
  /// Blocks until background tunings started by SCANTUNE_AUTOTUNE=1 have finished
  /// and the database has been reread (tests, benchmarks).
  SCANTUNE_API void wait_for_autotune();

  /// The device this scanner launches on.
  SCANTUNE_API int device() const;

private:
  friend struct detail::ScannerAccess;
  /// Throws Error (InvalidArgument) unless `host_bytes` is op.value_bytes.
  SCANTUNE_API static void check_struct_size(const CustomOp& op, std::size_t host_bytes);
  template <class In, class Out, class Init>
  void converted_exclusive(const In* d_in, Out* d_out, std::size_t n, OpRef op, const Init& init,
                           cudaStream_t stream, bool reverse) {
    const ScanTypes t = scan_types(data_type_of<In>(), data_type_of<Out>());
    visit_type(t.acc, [&](auto tag) {
      const auto a = accumulator_value<decltype(tag)>(init);
      run_types(t, ScanKind::Exclusive, op, d_in, d_out, n, &a, stream, reverse);
    });
  }
  /// The type-erased call behind the typed ones (and the C API); an empty
  /// `policy_key` lets the scanner choose.
  SCANTUNE_API void run(DataType type, ScanKind kind, OpRef op, const void* in, void* out,
                        std::size_t n, const void* init, cudaStream_t stream, Workspace workspace,
                        std::string_view policy_key);

  /// The device-start scans' type-erased entry (`start`: a device pointer).
  SCANTUNE_API void run_from_device(DataType type, ScanKind kind, OpRef op, const void* in,
                                    void* out, std::size_t n, const void* start,
                                    cudaStream_t stream);
  /// The reverse scans' type-erased entry (and the C API's).
  SCANTUNE_API void run_reverse(DataType type, ScanKind kind, OpRef op, const void* in, void* out,
                                std::size_t n, const void* init, cudaStream_t stream);
  /// The reduction's type-erased entry.
  SCANTUNE_API void run_reduce(DataType type, OpRef op, const void* in, void* result, std::size_t n,
                               cudaStream_t stream);

  /// The axis scans' type-erased entry.
  SCANTUNE_API void run_axis(DataType type, ScanKind kind, OpRef op, const void* in, void* out,
                             std::size_t outer, std::size_t len, std::size_t inner,
                             const void* init, cudaStream_t stream);
  /// The segmented calls' type-erased entry (and the C API's).
  SCANTUNE_API void run_segmented(DataType type, ScanKind kind, OpRef op, const void* in, void* out,
                                  std::size_t n, const void* init, Segments segments,
                                  cudaStream_t stream, std::string_view policy_key);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// For C++ libraries on libscantune with a C API of their own (libscantune_nccl): the
/// Scanner behind a C handle (scantune.h's scantune_scanner_t; nullptr for a null
/// handle), and the scantune_status_t code of an error kind, so that their C calls
/// share the caller's scanner and report errors as libscantune's do.
SCANTUNE_API Scanner* scanner_of(scantune_scanner_s* handle);
SCANTUNE_API int status_code(ErrorKind kind);

/// The process-wide Scanner of the current device (created on first use).
SCANTUNE_API Scanner& default_scanner();

/// Inclusive prefix sum on the process-wide Scanner for the current device.
template <class T>
void inclusive_sum(const T* d_in, T* d_out, std::size_t n, cudaStream_t stream = nullptr) {
  default_scanner().inclusive_scan(d_in, d_out, n, Op::Sum, stream);
}
/// Exclusive prefix sum (init 0) on the process-wide Scanner for the current device.
template <class T>
void exclusive_sum(const T* d_in, T* d_out, std::size_t n, cudaStream_t stream = nullptr) {
  default_scanner().exclusive_scan(d_in, d_out, n, Op::Sum, T{}, stream);
}

} // namespace scantune

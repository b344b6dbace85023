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
//   scantune::Plan p = scanner.plan(scantune::DataType::Int32, scantune::Op::Sum,
//                                   scantune::ScanKind::Inclusive, n);
//   std::printf("%s (%s)\n", p.policy.key().c_str(), std::string(to_string(p.match)).c_str());
//
// Dispatch: each call runs the configuration tuned for this GPU model, element
// type, operator, kind and size bucket (`scantune tune` stores them in the tuning
// database). Fallback chain, best first (Scanner::plan says which one a call gets):
//   Exact        this GPU model, this size bucket (two per octave: 2^k holds n in
//                (1.5 x 2^(k-1), 2^k], 1.5 x 2^k holds n in (2^k, 1.5 x 2^k])
//   NearestSize  this GPU model, the nearest tuned bucket on a log scale
//   SameArch     another GPU model of the same compute capability, nearest bucket
//   BuiltIn      compiled into the library: an H100 tuning for sm_90 (the nearest
//                tuned problem of the same element size), heuristics elsewhere
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
// - n == 0 is a no-op. Errors throw scantune::Error, whose what() names the problem.
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
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "scantune/policy.hpp"

namespace scantune {

/// Built-in associative operators. BitAnd/BitOr/BitXor apply to integer types only.
/// On float and double, Min and Max ignore NaN elements (IEEE 754 minNum/maxNum, as
/// fminf/fmaxf), so an output is NaN only where every element so far is NaN (an
/// exclusive scan's init counts as an element).
enum class Op { Sum, Product, Min, Max, BitAnd, BitOr, BitXor };

/// An operator given as CUDA source at run time. It must be associative, and
/// `identity` must be its identity element (identity op x == x op identity == x).
struct CustomOp {
  std::string name;     ///< identifier, e.g. "absmax"
  std::string body;     ///< body of a function of `a` and `b` (both T) returning T
  std::string identity; ///< expression for the identity element, e.g. "0.0"
};

/// Every failure of the library. what() names the problem (and carries the NVRTC
/// log and options when generated code fails to compile).
class Error : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

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
};

std::string_view
to_string(Op op);                ///< "sum", "product", "min", "max", "bit_and", "bit_or", "bit_xor"
Op parse_op(std::string_view s); ///< inverse of to_string; throws Error

/// The operator of a scan: a built-in Op or a CustomOp (not owned).
struct OpRef {
  Op op = Op::Sum;
  const CustomOp* custom = nullptr;
  OpRef(Op o) : op(o) {}                   // NOLINT: implicit on purpose
  OpRef(const CustomOp& c) : custom(&c) {} // NOLINT
};

/// How a call's configuration was found (see "Dispatch" above), best first.
enum class Match {
  Exact,       ///< tuning DB: this GPU model, problem and size bucket
  NearestSize, ///< tuning DB: this GPU model and problem, the nearest tuned size bucket
  SameArch,    ///< tuning DB: another GPU model of the same compute capability
  BuiltIn,     ///< compiled into the library (built-in table or heuristic)
};
std::string_view to_string(Match m); ///< "exact", "nearest_size", "same_arch", "builtin"

/// What a call runs and why (Scanner::plan).
struct Plan {
  Policy policy;
  Match match = Match::BuiltIn;
  std::uint64_t tuned_size = 0; ///< the size the chosen entry was tuned at; 0 = heuristic
  std::string source;           ///< e.g. "tuning DB /path/tuning.db: NVIDIA H100 ... at n = 2^20"
};

/// The DataType of a C++ element type (int32_t, uint32_t, int64_t, uint64_t, float, double).
template <class T>
constexpr DataType data_type_of() {
  if constexpr (std::is_same_v<T, std::int32_t>)
    return DataType::Int32;
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return DataType::UInt32;
  else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, long long>)
    return DataType::Int64;
  else if constexpr (std::is_same_v<T, std::uint64_t> || std::is_same_v<T, unsigned long long>)
    return DataType::UInt64;
  else if constexpr (std::is_same_v<T, float>)
    return DataType::Float32;
  else {
    static_assert(std::is_same_v<T, double>,
                  "scantune scans int32, uint32, int64, uint64, float and double");
    return DataType::Float64;
  }
}

/// One type-erased scan request; the typed calls below fill it in.
struct ScanRequest {
  DataType type = DataType::Int32;
  ScanKind kind = ScanKind::Inclusive;
  OpRef op = Op::Sum;
  const void* in = nullptr;
  void* out = nullptr;
  std::size_t n = 0;
  const void* init = nullptr; ///< exclusive scans: points to one element of `type`
  cudaStream_t stream = nullptr;
  const Policy* policy = nullptr; ///< nullptr = the scanner chooses
};

/// Owns compiled kernels and per-stream workspaces for one device. Thread-safe:
/// one Scanner may be used from many host threads and streams at once.
class Scanner {
public:
  explicit Scanner(ScannerOptions options = {});
  ~Scanner();
  Scanner(Scanner&&) noexcept;
  Scanner& operator=(Scanner&&) noexcept;
  Scanner(const Scanner&) = delete;
  Scanner& operator=(const Scanner&) = delete;

  template <class T>
  void inclusive_scan(const T* d_in, T* d_out, std::size_t n, Op op,
                      cudaStream_t stream = nullptr) {
    scan(make<T>(ScanKind::Inclusive, d_in, d_out, n, op, nullptr, stream, nullptr));
  }
  template <class T>
  void exclusive_scan(const T* d_in, T* d_out, std::size_t n, Op op, T init,
                      cudaStream_t stream = nullptr) {
    scan(make<T>(ScanKind::Exclusive, d_in, d_out, n, op, &init, stream, nullptr));
  }
  template <class T>
  void inclusive_scan(const T* d_in, T* d_out, std::size_t n, const CustomOp& op,
                      cudaStream_t stream = nullptr) {
    scan(make<T>(ScanKind::Inclusive, d_in, d_out, n, op, nullptr, stream, nullptr));
  }
  template <class T>
  void exclusive_scan(const T* d_in, T* d_out, std::size_t n, const CustomOp& op, T init,
                      cudaStream_t stream = nullptr) {
    scan(make<T>(ScanKind::Exclusive, d_in, d_out, n, op, &init, stream, nullptr));
  }

  /// Runs an explicit policy (for the tuner, tests and benchmarks). `init` is
  /// ignored for inclusive scans. Throws Error if the policy is invalid for T.
  template <class T>
  void scan_with(const Policy& policy, ScanKind kind, const T* d_in, T* d_out, std::size_t n,
                 OpRef op, T init = T{}, cudaStream_t stream = nullptr) {
    scan(make<T>(kind, d_in, d_out, n, op, &init, stream, &policy));
  }

  /// The type-erased entry point behind every call above (and the C API).
  void scan(const ScanRequest& request);

  /// The configuration a call with these parameters runs, and how it was matched.
  Plan plan(DataType type, OpRef op, ScanKind kind, std::size_t n) const;
  /// plan(...).policy.
  Policy choose_policy(DataType type, OpRef op, ScanKind kind, std::size_t n) const;

  /// Rereads the tuning database (e.g. after `scantune tune` ran in another
  /// process). Calls in flight on other threads finish with the old table.
  void reload_database();
  /// The tuning database this scanner reads ("" when none: "off", or no file).
  std::string database_path() const;
  /// Blocks until background tunings started by SCANTUNE_AUTOTUNE=1 have finished
  /// and the database has been reread (tests, benchmarks).
  void wait_for_autotune();

  /// The device this scanner launches on.
  int device() const;

private:
  template <class T>
  static ScanRequest make(ScanKind kind, const T* in, T* out, std::size_t n, OpRef op,
                          const T* init, cudaStream_t stream, const Policy* policy) {
    ScanRequest r;
    r.type = data_type_of<T>();
    r.kind = kind;
    r.op = op;
    r.in = in;
    r.out = out;
    r.n = n;
    r.init = init;
    r.stream = stream;
    r.policy = policy;
    return r;
  }

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The process-wide Scanner of the current device (created on first use).
Scanner& default_scanner();

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

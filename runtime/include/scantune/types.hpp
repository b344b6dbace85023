// scantune/types.hpp: the vocabulary of the scantune API: element types, operators,
// scan kinds, dispatch matches and the error type with its kinds.
//
// Example:
//   try {
//     scantune::default_scanner().exclusive_scan(d_in, d_out, n, scantune::Op::BitXor, 0.0f);
//   } catch (const scantune::Error& e) {
//     if (e.kind() == scantune::ErrorKind::Unsupported) ...   // bit_xor on float
//     if (e.kind() == scantune::ErrorKind::Compile) std::puts(e.log().c_str()); // NVRTC log
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

/// Marks the symbols libscantune exports; everything else in the library is hidden.
#define SCANTUNE_API __attribute__((visibility("default")))

namespace scantune {

/// Element types a scan accepts.
enum class DataType { Int32, UInt32, Int64, UInt64, Float32, Float64 };

/// Inclusive (out[i] = x0 op ... op xi) or exclusive (out[0] = init, out[i] = init op x0 op ... op
/// x(i-1)).
enum class ScanKind { Inclusive, Exclusive };

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

/// A compaction's predicate given as CUDA source at run time (Scanner::select_if,
/// partition_if), compiled with NVRTC like a custom operator.
struct Predicate {
  std::string name; ///< identifier, e.g. "positive"
  std::string body; ///< body of a function of `x` (the element type) returning bool
};

/// The operator of a scan: a built-in Op or a CustomOp (not owned).
struct OpRef {
  Op op = Op::Sum;
  const CustomOp* custom = nullptr;
  OpRef(Op o) : op(o) {}                   // NOLINT: implicit on purpose
  OpRef(const CustomOp& c) : custom(&c) {} // NOLINT
};

/// A value of type T in device memory that a kernel reads when it runs, not when the
/// call is made (CUB's future value): a scan's start value computed by an earlier
/// kernel on the same stream (Scanner::exclusive_scan / inclusive_scan overloads).
template <class T>
struct DeviceValue {
  const T* ptr = nullptr; ///< device pointer to one element
};

/// How a segmented scan's input splits into segments: a scan restarts at every
/// segment's first element (element 0 always starts one). Exactly one of:
///  - head flags: a device array of n bytes (uint8_t or bool), nonzero = a segment
///    starts here (Sengupta et al.'s head-flag representation);
///  - rows: a segment every `row_length` elements, i.e. a row-major rows x
///    row_length array whose rows are scanned independently (a batched scan);
///  - keys: n keys of 4 or 8 bytes on the device; a segment is a run of equal keys
///    (CUB's ScanByKey; keys compare by their bits);
///  - offsets: CSR begin offsets, num_segments + 1 entries of 4 or 8 bytes on the
///    device; segment s is [offsets[s], offsets[s + 1]); empty segments are allowed.
///    The caller guarantees offsets[0] == 0, offsets[num_segments] == n and that
///    they never decrease (CUB's DeviceSegmentedScan contract).
/// Build one with the factories: Segments::flags(d), ::rows(len), ::keys(d_keys),
/// ::offsets(d_offsets, num_segments).
struct Segments {
  const std::uint8_t* head_flags = nullptr; ///< device pointer to n flags, or null
  std::size_t row_length = 0;               ///< elements per row, or 0
  const void* keys = nullptr;               ///< device pointer to n keys, or null
  const void* offsets = nullptr;            ///< device pointer to num_segments + 1 offsets
  std::size_t num_segments = 0;
  int word_bytes = 0; ///< bytes of a key or an offset: 4 or 8

  static Segments flags(const void* d_head_flags) {
    Segments s;
    s.head_flags = static_cast<const std::uint8_t*>(d_head_flags);
    return s;
  }
  static Segments rows(std::size_t row_length) {
    Segments s;
    s.row_length = row_length;
    return s;
  }
  template <class K>
  static Segments keys_of(const K* d_keys) {
    static_assert(sizeof(K) == 4 || sizeof(K) == 8, "keys of 4 or 8 bytes");
    Segments s;
    s.keys = d_keys;
    s.word_bytes = static_cast<int>(sizeof(K));
    return s;
  }
  template <class O>
  static Segments offsets_of(const O* d_offsets, std::size_t num_segments) {
    static_assert(sizeof(O) == 4 || sizeof(O) == 8, "offsets of 4 or 8 bytes");
    Segments s;
    s.offsets = d_offsets;
    s.num_segments = num_segments;
    s.word_bytes = static_cast<int>(sizeof(O));
    return s;
  }
};

/// How a call's configuration was found (Scanner::plan), best first.
enum class Match {
  Exact,       ///< tuning DB: this GPU model, problem and size bucket
  NearestSize, ///< tuning DB: this GPU model and problem, the nearest tuned size bucket
  SameArch,    ///< tuning DB: another GPU model of the same compute capability
  BuiltIn,     ///< compiled into the library (built-in table or heuristic)
};

/// What went wrong, so that callers can tell a bad argument from a compile failure.
enum class ErrorKind {
  InvalidArgument, ///< null or misaligned pointer, overlapping ranges, a bad policy key, ...
  Unsupported,     ///< a valid request this library or GPU cannot run (bit_xor on float, ...)
  Compile,         ///< NVRTC rejected generated source (Error::log() holds its log)
  Cuda,            ///< a CUDA runtime call or a launch failed
  NoDevice,        ///< no CUDA device or no driver
  Database,        ///< the tuning database could not be read or written
  Internal,        ///< a bug in scantune
};

/// Every failure of the library. what() names the problem; kind() classifies it;
/// log() holds the NVRTC log (and options) of a compile error, else "".
class SCANTUNE_API Error : public std::runtime_error {
public:
  // Inline, so that code below the runtime (the caches) throws it without linking it.
  explicit Error(const std::string& what, ErrorKind kind = ErrorKind::InvalidArgument,
                 std::string log = {})
      : std::runtime_error(what), kind_(kind), log_(std::move(log)) {}
  ErrorKind kind() const noexcept { return kind_; }
  const std::string& log() const noexcept { return log_; }

private:
  ErrorKind kind_;
  std::string log_;
};

/// Size in bytes of one element of `t`.
SCANTUNE_API std::size_t size_of(DataType t);
/// "int32", "uint32", "int64", "uint64", "float32", "float64".
SCANTUNE_API std::string_view to_string(DataType t);
SCANTUNE_API std::string_view to_string(ScanKind k); ///< "inclusive", "exclusive"
/// "sum", "product", "min", "max", "bit_and", "bit_or", "bit_xor"
SCANTUNE_API std::string_view to_string(Op op);
SCANTUNE_API std::string_view
to_string(Match m); ///< "exact", "nearest_size", "same_arch", "builtin"
/// "invalid_argument", "unsupported", "compile", "cuda", "no_device", "database", "internal"
SCANTUNE_API std::string_view to_string(ErrorKind k);
/// Inverses of to_string; throw Error (InvalidArgument) naming the bad text.
SCANTUNE_API DataType parse_data_type(std::string_view s);
SCANTUNE_API ScanKind parse_scan_kind(std::string_view s);
SCANTUNE_API Op parse_op(std::string_view s);

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

/// Calls f(T{}) with the C++ element type T of `t` (int32_t ... double) and returns what
/// it returns: one switch for code that handles every DataType generically, e.g.
///   scantune::visit_type(t, [&](auto tag) { using T = decltype(tag); ... });
/// Throws Error (InvalidArgument) for a value outside the enumeration.
template <class F>
decltype(auto) visit_type(DataType t, F&& f) {
  switch (t) {
  case DataType::Int32:
    return f(std::int32_t{});
  case DataType::UInt32:
    return f(std::uint32_t{});
  case DataType::Int64:
    return f(std::int64_t{});
  case DataType::UInt64:
    return f(std::uint64_t{});
  case DataType::Float32:
    return f(float{});
  case DataType::Float64:
    return f(double{});
  }
  throw Error("unknown element type code " + std::to_string(static_cast<int>(t)));
}

} // namespace scantune

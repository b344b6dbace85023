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

/// Element types. The first six are also accumulator types, in which scans combine
/// elements; the narrow ones (8- and 16-bit integers, IEEE half, bfloat16) are
/// input and output types only: a scan converts them on load and store and combines
/// in an accumulator (ScanTypes). bool input is UInt8 (0 or 1).
enum class DataType {
  Int32,
  UInt32,
  Int64,
  UInt64,
  Float32,
  Float64,
  Int8,
  UInt8,
  Int16,
  UInt16,
  Float16, ///< IEEE 754 binary16 (CUDA's __half)
  BFloat16 ///< bfloat16 (CUDA's __nv_bfloat16)
};

/// The types of a scan whose input, accumulator and output types may differ
/// (torch.cumsum of uint8 into int64, half accumulated in float). Elements are
/// converted from `in` to `acc` on load, combined in `acc` (one of the first six
/// DataTypes), and converted to `out` on store: integers by C++'s conversions (a
/// narrower output keeps the low bits, as the accumulator's own wrap-around does:
/// integer sums are exact modulo 2^bits of the output), half and bfloat16 round to
/// nearest even from float. Neither `in` nor `out` may be wider than `acc`.
/// scan_types() picks the default accumulator.
struct ScanTypes {
  DataType in = DataType::Int32, acc = DataType::Int32, out = DataType::Int32;
  bool uniform() const { return in == acc && acc == out; }
  friend bool operator==(const ScanTypes& a, const ScanTypes& b) {
    return a.in == b.in && a.acc == b.acc && a.out == b.out;
  }
  friend bool operator!=(const ScanTypes& a, const ScanTypes& b) { return !(a == b); }
};

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
///
/// Struct-valued operators combine values of a struct given as source (up to 16
/// bytes, a multiple of 4): set `value_struct` to its definition, `value_type` to its
/// name and `value_bytes` to its sizeof (the generated source static_asserts it, so a
/// mismatch is a Compile error). `body` and `identity` then work on that struct, and
/// the scan runs through Scanner::scan_struct on arrays of it, e.g. a first-order
/// linear recurrence h[i] = a[i] * h[i-1] + b[i] as a scan of (a, b) pairs:
///   scantune::CustomOp linrec{"linrec",
///       "return linrec_t{a.a * b.a, b.a * a.b + b.b};", "linrec_t{1.0f, 0.0f}",
///       "struct linrec_t { float a, b; };", "linrec_t", 8};
///   struct Pair { float a, b; };   // the host's twin of linrec_t
///   scanner.scan_struct(d_pairs, d_out, n, linrec, scantune::ScanKind::Inclusive);
///   // d_out[i].b == h[i] (with h[-1] = 0)
/// linear_recurrence_op() and argmax_op() are ready-made ones.
struct CustomOp {
  std::string name;              ///< identifier, e.g. "absmax"
  std::string body;              ///< body of a function of `a` and `b` (both T) returning T
  std::string identity;          ///< expression for the identity element, e.g. "0.0"
  std::string value_struct = {}; ///< struct-valued: CUDA source defining `value_type`
  std::string value_type = {};   ///< struct-valued: the struct's name, e.g. "linrec_t"
  int value_bytes = 0;           ///< struct-valued: its sizeof: 4, 8, 12 or 16
  /// Whether the operator combines struct values (`value_type` set).
  bool is_struct() const { return !value_type.empty(); }
};

/// log(exp(a) + exp(b)), computed stably as max + log1p(exp(min - max)), with the
/// identity -inf, as a CustomOp: its scan is torch.logcumsumexp. For float and double
/// (and half and bfloat16, combined in float); (-inf, -inf) gives -inf, NaN propagates.
///   scanner.inclusive_scan(d_x, d_y, n, scantune::logaddexp_op(), stream);
SCANTUNE_API const CustomOp& logaddexp_op();

/// The host's twin of linear_recurrence_op()'s struct: the map h -> a * h + b.
struct LinearRecurrence {
  float a, b;
};
/// A first-order linear recurrence h[i] = a[i] * h[i-1] + b[i] (h[-1] = 0) as a
/// struct-valued CustomOp on (a, b) pairs (LinearRecurrence, 8 bytes): composing
/// x then y gives (x.a * y.a, y.a * x.b + y.b), identity (1, 0). An inclusive scan's
/// out[i].b is h[i] and out[i].a the product a[0] * ... * a[i].
///   scanner.scan_struct(d_pairs, d_out, n, scantune::linear_recurrence_op(),
///                       scantune::ScanKind::Inclusive, stream);
SCANTUNE_API const CustomOp& linear_recurrence_op();

/// The host's twin of argmax_op()'s struct: a value and its index.
struct ValueIndex {
  float value;
  std::int32_t index;
};
/// The running maximum with its index as a struct-valued CustomOp on (value, index)
/// pairs (ValueIndex, 8 bytes): the larger value wins and ties go to the smaller
/// index, the first occurrence in an inclusive scan; identity (-inf, INT32_MAX).
/// Values must not be NaN (comparisons with NaN would break associativity).
SCANTUNE_API const CustomOp& argmax_op();

/// A compaction's predicate given as CUDA source at run time (Scanner::select_if,
/// partition_if), compiled with NVRTC like a custom operator.
struct Predicate {
  std::string name; ///< identifier, e.g. "positive"
  /// Body of a function of `x` returning bool: `x` is the element (int8_t, ..., double),
  /// or for half and bfloat16 elements their value as float.
  std::string body;
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
/// "int32", "uint32", "int64", "uint64", "float32", "float64", "int8", "uint8",
/// "int16", "uint16", "float16", "bfloat16".
SCANTUNE_API std::string_view to_string(DataType t);
/// Whether scans can combine in `t` (the first six DataTypes).
SCANTUNE_API bool is_accumulator(DataType t);
/// The default types of a scan from `in` to `out`: the accumulator is `out` widened
/// to 32 bits (8- and 16-bit integers: int32 or uint32 by the output's sign; half and
/// bfloat16: float32), or float64 when the input is double. Throws Error (Unsupported)
/// for a pair no accumulator serves (an input wider than the output's accumulator,
/// e.g. int64 into int32, or a float into an integer).
SCANTUNE_API ScanTypes scan_types(DataType in, DataType out);
/// scan_types(t, t): int8 scans combine in int32 and store int8.
SCANTUNE_API ScanTypes scan_types(DataType t);
/// Throws Error (Unsupported) naming the problem unless `t` is a valid combination.
SCANTUNE_API void check_scan_types(const ScanTypes& t);
/// "int32" (uniform), "uint8:int32" (in:acc, out == acc), "float16:float32:float16".
SCANTUNE_API std::string to_string(const ScanTypes& t);
/// The inverse of to_string(ScanTypes); a single narrow type reads as scan_types(t).
SCANTUNE_API ScanTypes parse_scan_types(std::string_view s);
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

/// The DataType of a C++ element type: int32_t, uint32_t, int64_t, uint64_t, float,
/// double, int8_t, uint8_t, bool (as UInt8), int16_t, uint16_t, and, where their CUDA
/// headers are included first, __half and __nv_bfloat16.
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
  else if constexpr (std::is_same_v<T, std::int8_t>)
    return DataType::Int8;
  else if constexpr (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, bool>)
    return DataType::UInt8;
  else if constexpr (std::is_same_v<T, std::int16_t>)
    return DataType::Int16;
  else if constexpr (std::is_same_v<T, std::uint16_t>)
    return DataType::UInt16;
#ifdef __CUDA_FP16_TYPES_EXIST__
  else if constexpr (std::is_same_v<T, __half>)
    return DataType::Float16;
#endif
#ifdef __CUDA_BF16_TYPES_EXIST__
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return DataType::BFloat16;
#endif
  else {
    static_assert(std::is_same_v<T, double>, "scantune scans int8 .. int64, uint8 .. uint64, "
                                             "float, double, __half and __nv_bfloat16");
    return DataType::Float64;
  }
}

/// The default accumulator of a C++ element type, scan_types(data_type_of<T>()).acc:
/// int32_t for int8_t and int16_t, uint32_t for uint8_t, bool and uint16_t, float for
/// __half and __nv_bfloat16, T itself for the accumulator types.
template <class T>
struct accumulator_of {
  using type = T;
};
template <>
struct accumulator_of<std::int8_t> {
  using type = std::int32_t;
};
template <>
struct accumulator_of<std::int16_t> {
  using type = std::int32_t;
};
template <>
struct accumulator_of<std::uint8_t> {
  using type = std::uint32_t;
};
template <>
struct accumulator_of<bool> {
  using type = std::uint32_t;
};
template <>
struct accumulator_of<std::uint16_t> {
  using type = std::uint32_t;
};
#ifdef __CUDA_FP16_TYPES_EXIST__
template <>
struct accumulator_of<__half> {
  using type = float;
};
#endif
#ifdef __CUDA_BF16_TYPES_EXIST__
template <>
struct accumulator_of<__nv_bfloat16> {
  using type = float;
};
#endif
template <class T>
using accumulator_t = typename accumulator_of<T>::type;

/// `v` as an accumulator of type A (half and bfloat16 through float): the form in
/// which the typed calls pass an exclusive init.
template <class A, class V>
A accumulator_value(const V& v) {
  if constexpr (std::is_arithmetic_v<V>)
    return static_cast<A>(v);
  else
    return static_cast<A>(static_cast<float>(v));
}

/// Calls f(T{}) with the C++ element type T of the accumulator type `t` (int32_t ...
/// double) and returns what it returns: one switch for code that handles every
/// accumulator type generically, e.g.
///   scantune::visit_type(t, [&](auto tag) { using T = decltype(tag); ... });
/// Throws Error (InvalidArgument) for a value outside the enumeration and Error
/// (Unsupported) for a narrow type.
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
  default:
    break;
  }
  if (static_cast<int>(t) >= 0 && t <= DataType::BFloat16)
    throw Error("element type " + std::string(to_string(t)) + " is not an accumulator type",
                ErrorKind::Unsupported);
  throw Error("unknown element type code " + std::to_string(static_cast<int>(t)));
}

} // namespace scantune

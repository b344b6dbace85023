// One type-erased scan call, and the internal core's entry to a Scanner: the tuner
// and the tests run parsed policies without a key round trip per launch.
#pragma once

#include <optional>

#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "segments.hpp"
#include "shape_class.hpp"

namespace scantune {

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
  Workspace workspace;            ///< empty = the scanner's per-stream workspace
  Segments segments;              ///< segmented scans: where segments start; empty = flat
  /// Axis scans: n = outer * len * inner elements, columns of `len` (stride `inner`).
  struct Axis {
    std::size_t len = 0, inner = 0; ///< inner == 0: not an axis scan
  } axis;
  /// A start value in device memory, read when the kernel runs (Scanner::run_from_device):
  /// an exclusive scan's init, or with `seeded` an inclusive scan's seed; null = `init`.
  const void* start = nullptr;
  bool seeded = false;  ///< inclusive scans: out[i] = start op in[0] op ... op in[i]
  bool reduce = false;  ///< not a scan: out[0] = in[0] op ... op in[n-1] (Scanner::run_reduce)
  bool reverse = false; ///< a suffix scan (Scanner::reverse_inclusive_scan)
  /// Not a scan: a compaction (Heads::SelectFlags ...; Scanner::run_select). Its flags are
  /// segments.head_flags, a predicate is `op` (a CustomOp whose identity is unused), and
  /// the count of selected items goes to `num_selected` (device memory).
  detail::Heads compaction = detail::Heads::None;
  std::uint64_t* num_selected = nullptr;
  /// A converting scan's types (in, acc == type, out); empty when both are `type`.
  std::optional<ScanTypes> converts = std::nullopt;

  /// A struct-valued custom operator's value size (its scans hold `type` UInt32 as a
  /// stand-in, Scanner::scan_struct), else 0.
  std::size_t struct_bytes() const {
    return op.custom && op.custom->is_struct() ? static_cast<std::size_t>(op.custom->value_bytes)
                                               : 0;
  }
  /// Bytes of one value in registers, of one input and of one output element.
  std::size_t acc_bytes() const { return struct_bytes() ? struct_bytes() : size_of(type); }
  std::size_t in_bytes() const { return struct_bytes() ? struct_bytes() : size_of(in_type()); }
  std::size_t out_bytes() const { return struct_bytes() ? struct_bytes() : size_of(out_type()); }
  DataType in_type() const { return converts ? converts->in : type; }
  /// `converts`, or `type` throughout (a compaction's element type, a uniform scan's).
  ScanTypes types() const { return converts ? *converts : ScanTypes{type, type, type}; }
  DataType out_type() const { return converts ? converts->out : type; }
  /// Sets `type` and `converts` from a scan's types (a narrow type: scan_types(t)).
  void set_types(const ScanTypes& t) {
    type = t.acc;
    converts.reset();
    if (!t.uniform()) converts = t;
  }

  /// A compaction `how` of n elements of `type` (`flags`: those of the flag kinds). It
  /// moves elements as they are, narrow ones too: `type` is the element type, no
  /// accumulator, nothing converts.
  static ScanRequest compaction_of(DataType type, detail::Heads how, const void* in,
                                   const std::uint8_t* flags, void* out, std::size_t n,
                                   std::uint64_t* num_selected, cudaStream_t stream) {
    ScanRequest r;
    r.type = type;
    r.in = in;
    r.out = out;
    r.n = n;
    r.stream = stream;
    r.compaction = how;
    r.num_selected = num_selected;
    r.segments.head_flags = flags;
    return r;
  }
};

namespace detail {

struct Choice;
struct SortChoice;
struct SortRequest;
struct SortPolicy;
class WorkspacePool;

struct ScannerAccess {
  static void scan(Scanner& s, const ScanRequest& r);
  /// The route a call with these parameters takes (lives as long as the scanner);
  /// `heads`, `shape`: those of a segmented call (shape_class_of).
  static const Choice& choice(const Scanner& s, DataType type, OpRef op, ScanKind kind,
                              std::size_t n, Heads heads = Heads::None, ShapeClass shape = {});
  /// The same for a flat scan of `types` (a converting one unless uniform).
  static const Choice& choice(const Scanner& s, const ScanTypes& types, OpRef op, ScanKind kind,
                              std::size_t n);
  /// The policy a call with these parameters runs (Scanner::plan's, parsed).
  static Policy choose(const Scanner& s, DataType type, OpRef op, ScanKind kind, std::size_t n);
  /// A radix sort (Scanner::run_sort); `policy` null: the default one.
  static void sort(Scanner& s, const SortRequest& r, const SortPolicy* policy = nullptr);
  /// The route a sort of n `key` keys with values of `value_bytes` (0: none) takes;
  /// `indices`: values the sort makes (sort_with_indices).
  static const SortChoice& sort_choice(const Scanner& s, DataType key, std::size_t value_bytes,
                                       std::size_t n, bool indices = false);
  /// The scanner's per-stream workspaces (tests: the sorts' tags); throws NoDevice without one.
  static WorkspacePool& workspaces(Scanner& s);
};

/// Fills a ScanRequest from typed arguments (tests, tuner).
template <class T>
ScanRequest make_request(ScanKind kind, const T* in, T* out, std::size_t n, OpRef op, const T* init,
                         cudaStream_t stream, const Policy* policy) {
  return {data_type_of<T>(), kind,  op,   in, out, n, init, stream, policy, {}, {}, {},
          nullptr,           false, false};
}

/// Runs an explicit policy: Scanner::scan_with without parsing a key.
template <class T>
void scan_with(Scanner& s, const Policy& policy, ScanKind kind, const T* in, T* out, std::size_t n,
               OpRef op, T init = T{}, cudaStream_t stream = nullptr) {
  ScannerAccess::scan(s, make_request<T>(kind, in, out, n, op, &init, stream, &policy));
}

} // namespace detail
} // namespace scantune

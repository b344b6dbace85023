// Every policy field, described once: its key token, default, range and the
// algorithms that take it, its template argument and static_assert in the generated
// `scantune::policy<...>` type. Keys, parsing, validation and code generation read
// this table; the tuner's grid adds each field's search values (tuner/search_space.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms.hpp"

namespace scantune::detail {

/// How a field appears in a key.
enum class KeyForm {
  Always,   ///< always: "<token><N>" (tpb256) or the enumerator's name (warp_scans)
  Number,   ///< "<token><N>" where it differs from the default (bo200)
  Flag,     ///< "<token>" where set (cs)
  EnumName, ///< the enumerator's name where it differs from the default (direct)
};

struct FieldDesc {
  std::string_view name; ///< the device-side constant: "backoff_ns"
  std::string_view what; ///< in messages: "backoff"
  KeyForm form;
  std::string_view token; ///< key prefix or flag ("bo", "cs"); enum fields: empty
  std::string_view usage; ///< its part of the key syntax in parse errors: "[.bo<ns>]"
  /// Enumerators' names in keys (to_string) and on the device (policy.cuh), or empty.
  const std::string_view* names;
  const std::string_view* device_names;
  int default_value;    ///< Policy{}'s
  int sequential_value; ///< Policy::sequential()'s
  int min, max;         ///< the range checked with range_message ({} = the value)
  std::string_view range_message;
  /// Whether `a` takes a value other than the default; else applies_message.
  bool (*takes)(const AlgorithmDesc& a);
  std::string_view applies_message; ///< "a backoff applies only to ...", then ", not <alg>"
  /// Further rules (multiples, vector bytes), checked after the range, or null.
  std::optional<std::string> (*check)(const Policy& p, const ScanTypes& t);
  /// Position among scantune::policy<ALG, ...>'s arguments (1 = right after ALG).
  int template_slot;
  /// Whether the argument is omitted at its default (a trailing defaulted parameter,
  /// so that earlier policies keep their generated source).
  bool omit_default_argument;
  bool asserted;         ///< restated in the generated static_assert
  bool assert_as_number; ///< an enum field asserted by its number, not its enumerator
  int (*get)(const Policy& p);
  void (*set)(Policy& p, int value);
};

/// The fields in key order.
const std::vector<FieldDesc>& policy_fields();
/// The field whose Policy member is `name`; throws std::out_of_range for another.
const FieldDesc& field_named(std::string_view name);

/// Text of a field's value in a key ("256", "direct").
std::string key_value(const FieldDesc& f, int value);
/// Text of a field's value as a template argument ("256", "scantune::IO_DIRECT").
std::string device_value(const FieldDesc& f, int value);

/// Why `p` (a tile algorithm's policy) breaks a field's rule for type `t`, or nothing.
std::optional<std::string> field_problem(const Policy& p, const ScanTypes& t);

} // namespace scantune::detail

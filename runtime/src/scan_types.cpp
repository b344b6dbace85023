// Input, accumulator and output types of a scan (scantune::ScanTypes).
#include <fmt/format.h>

#include "errors.hpp"
#include "strings.hpp"

namespace scantune {
namespace {

bool is_float(DataType t) {
  return t == DataType::Float32 || t == DataType::Float64 || t == DataType::Float16 ||
         t == DataType::BFloat16;
}
bool is_signed_integer(DataType t) {
  return t == DataType::Int8 || t == DataType::Int16 || t == DataType::Int32 ||
         t == DataType::Int64;
}

// `t` widened to an accumulator: 8- and 16-bit integers to 32 bits, half and bfloat16
// to float32.
DataType widened(DataType t) {
  if (is_accumulator(t)) return t;
  if (is_float(t)) return DataType::Float32;
  return is_signed_integer(t) ? DataType::Int32 : DataType::UInt32;
}

} // namespace

bool is_accumulator(DataType t) {
  return static_cast<int>(t) >= 0 && t <= DataType::Float64;
}

ScanTypes scan_types(DataType in, DataType out) {
  ScanTypes t{in, widened(out), out};
  if (in == DataType::Float64 && t.acc == DataType::Float32) t.acc = DataType::Float64;
  check_scan_types(t);
  return t;
}

ScanTypes scan_types(DataType t) {
  return scan_types(t, t);
}

void check_scan_types(const ScanTypes& t) {
  if (static_cast<int>(t.in) < 0 || t.in > DataType::BFloat16 || static_cast<int>(t.out) < 0 ||
      t.out > DataType::BFloat16 || static_cast<int>(t.acc) < 0 || t.acc > DataType::BFloat16)
    detail::fail("unknown element type code in the scan types");
  if (!is_accumulator(t.acc))
    detail::fail<detail::Unsupported>("scans cannot accumulate in {} (types {}): accumulators are "
                                      "int32, uint32, int64, uint64, float32 and float64",
                                      to_string(t.acc), to_string(t));
  if (size_of(t.in) > size_of(t.acc) || size_of(t.out) > size_of(t.acc))
    detail::fail<detail::Unsupported>(
        "scan types {}: the input and the output may not be wider than the accumulator {}",
        to_string(t), to_string(t.acc));
  if (is_float(t.in) && !is_float(t.acc))
    detail::fail<detail::Unsupported>(
        "scan types {}: a floating-point input needs a floating-point accumulator", to_string(t));
}

std::string to_string(const ScanTypes& t) {
  if (t.uniform()) return std::string(to_string(t.acc));
  if (t.out == t.acc) return fmt::format("{}:{}", to_string(t.in), to_string(t.acc));
  return fmt::format("{}:{}:{}", to_string(t.in), to_string(t.acc), to_string(t.out));
}

ScanTypes parse_scan_types(std::string_view s) {
  const std::vector<std::string_view> parts = detail::split(s, ':');
  if (parts.size() > 3)
    detail::fail("scan types '{}': expected <type>, <in>:<acc> or <in>:<acc>:<out>", s);
  std::vector<DataType> t;
  for (std::string_view p : parts)
    t.push_back(parse_data_type(p));
  ScanTypes r;
  if (t.size() == 1)
    r = is_accumulator(t[0]) ? ScanTypes{t[0], t[0], t[0]} : scan_types(t[0]);
  else
    r = ScanTypes{t[0], t[1], t.size() == 3 ? t[2] : t[1]};
  check_scan_types(r);
  return r;
}

} // namespace scantune

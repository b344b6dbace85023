// Options and helpers shared by the commands (show, compare, plot, export, import,
// bench, devices, tune): the database option, the problem filter, reading a
// database without creating one, and custom operators.
#pragma once

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "cache/tuning_db.hpp"
#include "scantune/types.hpp"
#include "strings.hpp"
#include "tuner/report/db_report.hpp"

namespace scantune::cli {

inline constexpr DataType kAllTypes[] = {DataType::Int32,  DataType::UInt32,  DataType::Int64,
                                         DataType::UInt64, DataType::Float32, DataType::Float64};
inline constexpr Op kAllOps[] = {Op::Sum,    Op::Product, Op::Min,   Op::Max,
                                 Op::BitAnd, Op::BitOr,   Op::BitXor};
inline constexpr ScanKind kAllKinds[] = {ScanKind::Inclusive, ScanKind::Exclusive};

/// A comma-separated list of names, or "all"; duplicates dropped, order kept.
template <class E, std::size_t N, class Parse>
std::vector<E> parse_names(std::string_view list, const E (&all)[N], Parse parse) {
  if (list == "all") return {std::begin(all), std::end(all)};
  std::vector<E> values;
  for (auto item : detail::split(list, ',')) {
    E v = parse(item);
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
  }
  return values;
}

/// A --type list of `tune` and `bench`: comma-separated scan types (int32, a converting
/// uint8:int32 or float16:float32:float16, a narrow int8 meaning scan_types(int8) =
/// int8:int32:int8), or "all" (the six accumulator types). Throws scantune::Error naming
/// an unknown type or a combination the library refuses (int64:int32).
std::vector<ScanTypes> parse_scan_type_list(std::string_view list);

/// A usage error (Exit) unless `t` is one element type: `what` (sorts, segmented scans)
/// takes no conversion, so no narrow type either.
void require_element_type(const ScanTypes& t, std::string_view what);
/// The element type a compaction moves: `t` without a conversion, or a narrow type named
/// alone (`int8`, which a scan reads as int8:int32:int8). A usage error (Exit) otherwise.
DataType compaction_element_type(const ScanTypes& t);

/// --custom-op "NAME:BODY:IDENTITY" (the body may contain ':': the name ends at the
/// first ':', the identity starts after the last; a bare expression becomes
/// `return EXPR;`), or NAME alone for a sample with a compiled CUB twin
/// (tuner/custom_op_twins.hpp) or one of the library's struct-valued operators
/// (linear_recurrence, argmax). Throws scantune::Error (a usage error) otherwise.
CustomOp parse_custom_op(const std::string& text);

/// --db PATH, "the tuning database to read" (default: db::default_db_path).
CLI::Option* add_db_option(CLI::App* app, std::string& path);
/// --type, --op, --kind (and --device unless `device` is false) into `f`.
void add_filter_options(CLI::App* app, tuner::ReportFilter& f, bool device = true);
/// Usage errors (exit 2) for an unknown --type or --kind.
void check_filter(std::string_view command, const tuner::ReportFilter& f);

/// The database at `path` (or the default), read-only; a missing one ends the
/// command with exit 1 and says so; nothing is created.
db::TuningDb open_for_reading(std::string_view command, const std::string& path);

/// Writes `bytes` (text or a binary such as a CUBIN) to `path`, or ends the command
/// with exit 1 naming the problem.
void write_file(std::string_view command, const std::string& path, std::string_view bytes);

/// "13.0" from a CUDA version number (13000).
std::string cuda_version(int v);

} // namespace scantune::cli

// Shared option handling of the inspection commands (see cli_shared.hpp).
#include "tuner/cli/cli_shared.hpp"

#include <fstream>

#include <fmt/format.h>

#include "axis_columns.hpp"
#include "tuner/cli/cli.hpp"
#include "tuner/gpu/custom_op_twins.hpp"

namespace scantune::cli {

void require_element_type(const ScanTypes& t, std::string_view what) {
  if (!t.uniform())
    throw Exit(kExitUsage,
               fmt::format("--type {}: {} take element types of 4 and 8 bytes, without conversions",
                           to_string(t), what));
}

DataType compaction_element_type(const ScanTypes& t) {
  if (t.uniform()) return t.in;
  if (t != scan_types(t.in))
    throw Exit(kExitUsage,
               fmt::format("--type {}: compactions move one element type, without conversions",
                           to_string(t)));
  return t.in;
}

std::vector<ScanTypes> parse_scan_type_list(std::string_view list) {
  std::vector<ScanTypes> out;
  if (list == "all") {
    for (DataType t : kAllTypes)
      out.push_back(ScanTypes{t, t, t});
    return out;
  }
  for (auto item : detail::split(list, ',')) {
    const ScanTypes t = parse_scan_types(item);
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  }
  return out;
}

CustomOp parse_custom_op(const std::string& text) {
  const auto first = text.find(':');
  const auto last = text.rfind(':');
  if (first == std::string::npos) {
    if (auto twin = tuner::custom_op_twin_named(text)) return *twin;
    // The library's struct-valued operators, by name (their structs are source).
    for (const CustomOp* op : {&linear_recurrence_op(), &argmax_op()})
      if (text == op->name) return *op;
    if (const CustomOp* columns = detail::columns_struct_op_named(text)) return *columns;
  }
  if (first == std::string::npos || first == last)
    throw Error(fmt::format("--custom-op '{}': expected NAME:BODY:IDENTITY, e.g. "
                            "'absmax:return fabs(a) > fabs(b) ? a : b;:0.0', or a sample's name "
                            "(absmax, shifted_product, and the struct-valued linear_recurrence, "
                            "argmax and columns_TYPExN_OP, e.g. columns_float32x4_sum)",
                            text));
  CustomOp op{text.substr(0, first), text.substr(first + 1, last - first - 1),
              text.substr(last + 1)};
  // A bare expression is the common case on a command line; the generator wants
  // a function body.
  if (op.body.find("return") == std::string::npos) op.body = "return " + op.body + ";";
  return op;
}

CLI::Option* add_db_option(CLI::App* app, std::string& path) {
  return app
      ->add_option("--db", path,
                   "Tuning database. Default: $SCANTUNE_DB, else\n"
                   "$XDG_DATA_HOME/scantune/tuning.db")
      ->type_name("PATH");
}

void add_filter_options(CLI::App* app, tuner::ReportFilter& f, bool device) {
  if (device)
    app->add_option("--device", f.device,
                    "Device models containing this text (case-insensitive),\n"
                    "e.g. H100")
        ->type_name("MODEL");
  app->add_option("--type", f.type,
                  "Element type: int32, uint32, int64, uint64, float32, float64,\n"
                  "or converting types: uint8:int32, int8 (= int8:int32:int8), ...")
      ->type_name("TYPE");
  app->add_option("--op", f.op, "Operator: sum, product, min, max, bit_and, ... or a custom name")
      ->type_name("OP");
  app->add_option("--kind", f.kind, "inclusive or exclusive")->type_name("KIND");
}

void check_filter(std::string_view command, const tuner::ReportFilter& f) {
  try {
    if (!f.type.empty()) parse_scan_types(f.type); // int32, or a converting uint8:int32
    if (!f.kind.empty()) parse_scan_kind(f.kind);
  } catch (const Error& e) {
    fail(kExitUsage, command, e.what());
  }
}

db::TuningDb open_for_reading(std::string_view command, const std::string& path) {
  const auto file = db::default_db_path(path);
  try {
    if (auto db = db::TuningDb::open_existing_read_only(file)) return std::move(*db);
  } catch (const std::runtime_error& e) { // scantune::Error or CacheError
    fail(kExitFailure, command, e.what());
  }
  fail(kExitFailure, command,
       fmt::format("no tuning database at {} (give --db PATH or set SCANTUNE_DB)", file.string()));
}

void write_file(std::string_view command, const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  out.flush();
  if (!out) fail(kExitFailure, command, fmt::format("cannot write {}", path));
}

std::string cuda_version(int v) {
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

} // namespace scantune::cli

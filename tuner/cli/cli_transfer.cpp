// `scantune export | import`: move tuning results between databases as JSON
// (TuningDb::export_file / import_file; docs/cli.md, docs/database.md).
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "tuner/cli/cli.hpp"
#include "tuner/cli/cli_shared.hpp"
#include "tuner/report/db_report.hpp"

namespace scantune::cli {
namespace {

struct TransferOptions {
  std::string db, device, file;
  bool no_measurements = false;
};

void run_export(const TransferOptions& o) {
  const db::TuningDb db = open_for_reading("export", o.db);
  db::ExportFilter f;
  f.measurements = !o.no_measurements;
  if (!o.device.empty()) {
    std::vector<std::string> models;
    for (const db::DeviceInfo& d : db.list_devices())
      models.push_back(d.model());
    const std::vector<std::string> hits = tuner::match_models(models, o.device);
    if (hits.size() != 1)
      fail(hits.empty() ? kExitFailure : kExitUsage, "export",
           fmt::format("{} device models in {} match '{}'", hits.size(), db.path().string(),
                       o.device));
    f.model = hits.front();
  }
  try {
    db.export_file(o.file, f);
  } catch (const std::runtime_error& e) { // scantune::Error or CacheError
    fail(kExitFailure, "export", e.what());
  }
  const nlohmann::json doc = nlohmann::json::parse(std::ifstream(o.file));
  fmt::print("exported {} device(s), {} run(s), {} measurement(s), {} baseline(s) and {} best "
             "entries from {} to {}\n",
             doc["devices"].size(), doc["runs"].size(), doc["measurements"].size(),
             doc["baselines"].size(), doc["best"].size(), db.path().string(), o.file);
}

void run_import(const TransferOptions& o) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(o.file, ec))
    fail(kExitUsage, "import", fmt::format("no such file '{}'", o.file));
  db::ImportStats s;
  std::string path;
  try {
    db::TuningDb db = db::TuningDb::open(db::default_db_path(o.db));
    path = db.path().string();
    s = db.import_file(o.file);
  } catch (const std::runtime_error& e) { // scantune::Error or CacheError
    fail(kExitFailure, "import", e.what());
  }
  fmt::print("imported {} into {}\n"
             "  devices:      {} added, {} matched\n"
             "  runs:         {} added, {} matched\n"
             "  measurements: {} added, {} skipped (already present)\n"
             "  baselines:    {} added, {} replaced, {} kept\n"
             "  best entries: {} added, {} replaced, {} kept\n",
             o.file, path, s.devices_added, s.devices_matched, s.runs_added, s.runs_matched,
             s.measurements_added, s.measurements_skipped, s.baselines_added, s.baselines_replaced,
             s.baselines_kept, s.best_added, s.best_replaced, s.best_kept);
}

} // namespace

void register_transfer_commands(CLI::App& app) {
  auto eo = std::make_shared<TransferOptions>();
  CLI::App* exp = app.add_subcommand("export", "Write the tuning database (or one device) as JSON");
  add_db_option(exp, eo->db);
  exp->add_option("--device", eo->device, "Only this device model (case-insensitive substring)")
      ->type_name("MODEL");
  exp->add_flag("--no-measurements", eo->no_measurements,
                "Leave out the measurements (winners, baselines and runs only)");
  exp->add_option("--out", eo->file, "The JSON file to write")->type_name("FILE.json")->required();
  exp->footer("Example:\n  scantune export --device H100 --no-measurements --out h100.json");
  exp->callback([eo] { run_export(*eo); });

  auto io = std::make_shared<TransferOptions>();
  CLI::App* imp = app.add_subcommand(
      "import", "Merge a JSON export into the tuning database (created if missing)");
  add_db_option(imp, io->db);
  imp->add_option("file", io->file, "A file written by `scantune export`")
      ->type_name("FILE.json")
      ->required();
  imp->footer("Devices are matched by UUID, runs by uid; baselines and winners keep the\n"
              "faster of the two; importing the same file twice adds nothing.\n\n"
              "Example:\n  scantune import --db ~/.local/share/scantune/tuning.db h100.json");
  imp->callback([io] { run_import(*io); });
}

} // namespace scantune::cli

// scantune_builtin_gen: the built-in tuning table's two steps (table_gen.hpp).
//
//   scantune_builtin_gen --table OUT.json INPUT.json...
//     writes a committed table from `scantune export` documents and tables; a later
//     input's row replaces an earlier one's of the same bucket.
//   scantune_builtin_gen --out FILE.cpp TABLE.json...
//     the build step: writes the table's C++ source, rewritten only when it changes
//     so builds stay incremental.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/hash.hpp"
#include "scantune/scantune.hpp"
#include "table_gen.hpp"

namespace {

namespace fs = std::filesystem;
using scantune::builtin::Source;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw scantune::Error("cannot read " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Source read_source(const fs::path& path) {
  const std::string text = read_text(path);
  return {path.filename().string(), nlohmann::json::parse(text), scantune::sha256_hex(text)};
}

// Writes `text` unless the file already holds it.
void write_if_changed(const fs::path& out, const std::string& text) {
  if (fs::exists(out) && read_text(out) == text) return;
  std::ofstream f(out, std::ios::binary);
  if (!(f << text)) throw scantune::Error("cannot write " + out.string());
}

int run(const std::string& mode, const fs::path& out, const std::vector<std::string>& inputs) {
  std::vector<Source> sources;
  for (const std::string& in : inputs)
    sources.push_back(read_source(in));
  if (mode == "--out") {
    write_if_changed(out, scantune::builtin::generate_table_source(sources));
    return 0;
  }
  std::vector<scantune::builtin::Table> tables;
  for (const Source& s : sources)
    tables.push_back(scantune::builtin::read_input(s));
  std::string command = "scantune_builtin_gen --table " + out.string();
  for (const std::string& in : inputs)
    command += " " + in;
  write_if_changed(out, scantune::builtin::table_json(scantune::builtin::merge(tables), command));
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (argc < 3 || (mode != "--out" && mode != "--table") || (mode == "--table" && argc < 4)) {
    std::fprintf(stderr, "usage: scantune_builtin_gen --table OUT.json INPUT.json...\n"
                         "       scantune_builtin_gen --out FILE.cpp TABLE.json...\n");
    return 2;
  }
  try {
    return run(mode, argv[2], std::vector<std::string>(argv + 3, argv + argc));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scantune_builtin_gen: %s\n", e.what());
    return 1;
  }
}

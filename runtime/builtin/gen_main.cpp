// scantune_builtin_gen --out FILE.cpp EXPORT.json...: writes the built-in tuning
// table's source (rewritten only when it changes, so builds stay incremental).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "scantune/scantune.hpp"
#include "table_gen.hpp"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (argc < 3 || std::string(argv[1]) != "--out") {
    std::fprintf(stderr, "usage: scantune_builtin_gen --out FILE.cpp EXPORT.json...\n");
    return 2;
  }
  const fs::path out = argv[2];
  std::vector<scantune::builtin::Source> sources;
  try {
    for (int i = 3; i < argc; ++i) {
      std::ifstream in(argv[i]);
      if (!in) throw scantune::Error(std::string("cannot read ") + argv[i]);
      sources.push_back({fs::path(argv[i]).filename().string(), nlohmann::json::parse(in)});
    }
    const std::string text = scantune::builtin::generate_table_source(sources);
    std::ifstream old(out);
    std::stringstream current;
    current << old.rdbuf();
    if (old && current.str() == text) return 0;
    std::ofstream(out) << text;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scantune_builtin_gen: %s\n", e.what());
    return 1;
  }
  return 0;
}

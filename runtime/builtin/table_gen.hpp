// Generation of the library's built-in tuning table (runtime/src/builtin_table.hpp)
// from JSON exports of tuning databases (`scantune export --no-measurements`).
// Runs at build time (scantune_builtin_gen); the tests call it directly.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace scantune::builtin {

/// One export document and the name it is cited by (its file name).
struct Source {
  std::string name;
  nlohmann::json doc;
};

/// The C++ source defining detail::builtin_table(): every best entry of a built-in
/// operator in `sources`, sorted by (arch, model, type, op, kind, size). Entries of
/// custom operators are left out (their source is not known to the library).
/// Throws scantune::Error naming the document and entry for anything malformed:
/// a missing field, an unknown type/op/kind, a policy key that does not parse, is
/// not canonical or cannot run on its type, or two entries for one bucket.
std::string generate_table_source(const std::vector<Source>& sources);

} // namespace scantune::builtin

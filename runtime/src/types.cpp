// The names of error kinds.
#include <array>

#include "scantune/types.hpp"

namespace scantune {

std::string_view to_string(ErrorKind k) {
  static constexpr std::array<std::string_view, 7> kNames{
      "invalid_argument", "unsupported", "compile", "cuda", "no_device", "database", "internal"};
  return kNames.at(static_cast<std::size_t>(k));
}

} // namespace scantune

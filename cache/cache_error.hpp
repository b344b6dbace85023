// The caches' failures (tuning database, kernel cache). cache/ sits below the
// runtime, so it has an error type of its own: the runtime reports one as a
// scantune::CacheError of kind Database, and the CLI prints its message.
#pragma once

#include <stdexcept>

namespace scantune {

class CacheError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace scantune

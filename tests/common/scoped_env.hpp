// tests/common/scoped_env.hpp: ScopedEnv, an environment variable set (or unset)
// for one scope and restored afterwards.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace scantune::test {

/// Sets (or, with nullopt, unsets) an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(std::string name, const std::optional<std::string>& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value)
      ::setenv(name_.c_str(), value->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_.c_str(), old_->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  std::string name_;
  std::optional<std::string> old_;
};

} // namespace scantune::test

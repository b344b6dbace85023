// Internal error kinds: all derive from scantune::Error; the C API maps them to
// status codes.
#pragma once

#include <fmt/format.h>

#include "scantune/scantune.hpp"

namespace scantune::detail {

struct InvalidArgument : Error {
  using Error::Error;
};
struct Unsupported : Error {
  using Error::Error;
};
struct CompileError : Error {
  explicit CompileError(const std::string& what, std::string log_ = {}, std::string options_ = {})
      : Error(what), log(std::move(log_)), options(std::move(options_)) {}
  std::string log, options;
};
struct CudaError : Error {
  using Error::Error;
};
struct NoDevice : Error {
  using Error::Error;
};

template <class E = InvalidArgument, class... Args>
[[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) {
  throw E(fmt::format(f, std::forward<Args>(args)...));
}

} // namespace scantune::detail

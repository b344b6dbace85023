// Internal error classes: each is a scantune::Error of one kind, so `fail<Kind>`
// throws what a caller catches as Error and classifies by kind().
#pragma once

#include <fmt/format.h>

#include "scantune/types.hpp"

namespace scantune::detail {

template <ErrorKind K>
struct KindError : Error {
  explicit KindError(const std::string& what, std::string log = {})
      : Error(what, K, std::move(log)) {}
};
using InvalidArgument = KindError<ErrorKind::InvalidArgument>;
using Unsupported = KindError<ErrorKind::Unsupported>;
using CompileError = KindError<ErrorKind::Compile>;
using CudaError = KindError<ErrorKind::Cuda>;
using NoDevice = KindError<ErrorKind::NoDevice>;

template <class E = InvalidArgument, class... Args>
[[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) {
  throw E(fmt::format(f, std::forward<Args>(args)...));
}

} // namespace scantune::detail

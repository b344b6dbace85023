// tests/common/expect_error.hpp: EXPECT_ERROR_NAMING, for errors whose message must
// name the problem.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "scantune/scantune.hpp"

/// Expects `stmt` to throw scantune::Error (or, from cache/, scantune::CacheError: both are
/// runtime errors) whose message contains every string given.
#define EXPECT_ERROR_NAMING(stmt, ...)                                                             \
  do {                                                                                             \
    try {                                                                                          \
      stmt;                                                                                        \
      ADD_FAILURE() << "expected an error from " #stmt;                                            \
    } catch (const std::runtime_error& e_) {                                                       \
      for (const std::string& part_ : std::vector<std::string>{__VA_ARGS__})                       \
        EXPECT_NE(std::string(e_.what()).find(part_), std::string::npos)                           \
            << "message \"" << e_.what() << "\" lacks \"" << part_ << "\"";                        \
    }                                                                                              \
  } while (0)

namespace scantune::test {

/// The message of the scantune::Error `f` throws, or "no error".
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

/// The kind of the scantune::Error `f` throws, or nothing.
template <class F>
std::optional<ErrorKind> kind_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  return std::nullopt;
}

} // namespace scantune::test

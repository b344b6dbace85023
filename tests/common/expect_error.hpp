// tests/common/expect_error.hpp: EXPECT_ERROR_NAMING, for errors whose message must
// name the problem.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "scantune/scantune.hpp"

/// Expects `stmt` to throw scantune::Error whose message contains every string given.
#define EXPECT_ERROR_NAMING(stmt, ...)                                                             \
  do {                                                                                             \
    try {                                                                                          \
      stmt;                                                                                        \
      ADD_FAILURE() << "expected scantune::Error from " #stmt;                                     \
    } catch (const scantune::Error& e_) {                                                          \
      for (const std::string& part_ : std::vector<std::string>{__VA_ARGS__})                       \
        EXPECT_NE(std::string(e_.what()).find(part_), std::string::npos)                           \
            << "message \"" << e_.what() << "\" lacks \"" << part_ << "\"";                        \
    }                                                                                              \
  } while (0)

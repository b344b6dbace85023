// Comparisons of device results with the host reference, and a type switch.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "scantune/types.hpp"

namespace scantune::test {

/// Element-wise equality (NaN equals NaN), naming the first mismatch.
template <class T>
::testing::AssertionResult equal_exact(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " != " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == want[i]) && !(got[i] != got[i] && want[i] != want[i]))
      return ::testing::AssertionFailure() << "first mismatch at " << i << " of " << got.size()
                                           << ": got " << +got[i] << ", want " << +want[i];
  return ::testing::AssertionSuccess();
}

/// Bytes (a type-erased buffer) reinterpreted as values of T.
template <class T>
std::vector<T> as_values(const std::vector<unsigned char>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

/// Calls f with a value of the C++ type of `t` (scantune::visit_type).
template <class F>
void for_type(DataType t, F&& f) {
  visit_type(t, std::forward<F>(f));
}

} // namespace scantune::test

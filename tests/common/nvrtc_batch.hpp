// NVRTC compiles of generated kernel specs, shared by the compile suites (no GPU needed).
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "codegen.hpp"
#include "errors.hpp"
#include "nvrtc_compiler.hpp"

namespace scantune::test {

/// Options the compile suites add to the library's: they check that every template path
/// compiles and lowers for an architecture, not the code's speed, and NVRTC spends most
/// of a batch in its optimizer (docs/decisions.md, "The compile suites compile fast").
/// The library's own options are compiled by the GPU suites and the resource tests.
inline const std::vector<std::string> kCompileCheckOptions = {"--Ofast-compile=mid"};

/// Compiles `specs` as one program for `arch`; every kernel must get a lowered name.
/// `out`, when given, receives the program.
inline void compile_batch(const std::vector<detail::KernelSpec>& specs, int arch,
                          detail::CompiledProgram* out = nullptr) {
  const detail::GeneratedSource g = detail::generate(specs);
  std::vector<std::string> names;
  for (const auto& n : g.name_expressions)
    names.insert(names.end(), n.begin(), n.end());
  detail::CompiledProgram prog;
  ASSERT_NO_THROW(prog = detail::nvrtc_compile(g.name, g.source, names, arch, kCompileCheckOptions))
      << g.source;
  ASSERT_EQ(prog.lowered_names.size(), names.size());
  if (out) *out = std::move(prog);
}

/// The CompileError of a spec whose source does not compile for sm_90.
inline detail::CompileError compile_failure(const detail::KernelSpec& s) {
  const detail::GeneratedSource g = detail::generate({s});
  try {
    detail::nvrtc_compile(g.name, g.source, g.name_expressions[0], 90);
  } catch (const detail::CompileError& e) {
    return e;
  }
  ADD_FAILURE() << "compile should fail";
  return detail::CompileError("no error", "");
}

} // namespace scantune::test

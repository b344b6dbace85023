// A compiling thread's NVRTC: a helper process of its own where the CLI names one (one
// process's compiles stop scaling after a few threads: compile_worker.hpp), else this
// process's NVRTC, to which it also falls back once its helper fails other than by
// NVRTC's verdict. The GPU evaluator's background compiles and the primitive tune's
// compiles ahead of timing run through it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernel_registry.hpp"
#include "tuner/gpu/compile_worker.hpp"

namespace scantune::tuner {

/// One registry load (KernelRegistry::get): compiles or finds a kernel set with
/// `compiler` (nullptr: in this process).
using RegistryLoad = std::function<void(const detail::KernelRegistry::Compiler*)>;

class HelperCompiler {
public:
  /// `exe`: the CLI, whose `compile-worker` command is the helper; empty, or a helper
  /// that does not start: this process's NVRTC.
  explicit HelperCompiler(const std::string& exe);
  HelperCompiler(const HelperCompiler&) = delete;
  HelperCompiler& operator=(const HelperCompiler&) = delete;

  /// Runs `load`, dropping its failure: a candidate's compile error is reported when
  /// it is measured (and compiled again then).
  void run(const RegistryLoad& load);

private:
  std::unique_ptr<CompileWorker> helper_;
  detail::KernelRegistry::Compiler by_helper_;
};

/// Runs every load on `threads` threads (0: every core but two), each with a
/// HelperCompiler of its own, on the calling thread's device; a thread takes no new
/// load once `stop()` is true.
void compile_all(const std::vector<RegistryLoad>& loads, const std::string& exe, unsigned threads,
                 const std::function<bool()>& stop);

} // namespace scantune::tuner

// Compiling in helper processes. One process's NVRTC compiles do not scale past a
// few threads (H100 host, 16 cores: 23 kernels/s from 8 threads on, 39/s from 14
// processes; docs/decisions.md, "Compiles in helper processes"), so the tuner hands
// each background compile to a helper: `scantune compile-worker`, which compiles the
// generated source it is sent and returns the CUBIN.
#pragma once

#include <string>

#include <sys/types.h>

#include "codegen.hpp"
#include "nvrtc_compiler.hpp"

namespace scantune::tuner {

/// One helper process (`exe compile-worker`), talked to over a socket pair.
class CompileWorker {
public:
  /// Starts the helper and waits for its greeting; throws scantune::Error when it
  /// cannot start or does not answer as a compile worker.
  explicit CompileWorker(const std::string& exe);
  ~CompileWorker();
  CompileWorker(const CompileWorker&) = delete;
  CompileWorker& operator=(const CompileWorker&) = delete;

  /// NVRTC's compile of `gen` (its first kernel set) for `arch`, done by the helper.
  /// Throws CompileError with NVRTC's log, or scantune::Error when the helper is gone.
  detail::CompiledProgram compile(const detail::GeneratedSource& gen, int arch);
  pid_t pid() const { return pid_; }

private:
  void stop(); // closes the socket, so the helper exits, and reaps it
  pid_t pid_ = -1;
  int fd_ = -1;
};

/// The helper's side: greets, then answers requests on `fd` until the other end
/// closes. Returns the exit code.
int run_compile_worker(int fd);

} // namespace scantune::tuner

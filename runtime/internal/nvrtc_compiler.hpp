// NVRTC wrapper: compiles a generated translation unit to a CUBIN for one
// architecture and returns the lowered (mangled) names of its kernels.
#pragma once

#include <string>
#include <vector>

namespace scantune::detail {

struct CompiledProgram {
  std::vector<char> cubin;
  std::vector<std::string> lowered_names; // one per name expression, same order
  std::string log;                        // NVRTC's log (warnings), may be empty
  double compile_ms = 0;
};

/// NVRTC's version as "13.0".
std::string nvrtc_version();
/// Architectures (e.g. 90 for sm_90) this NVRTC can emit CUBIN for.
std::vector<int> nvrtc_supported_archs();
/// The options a compile for `arch` uses (part of every cache key).
std::vector<std::string> nvrtc_options(int arch);
/// Compiles `source`; throws CompileError carrying the log and the options. `extra`
/// options go after nvrtc_options(arch): ones that change no code only (a cache key
/// does not hold them), e.g. "--ptxas-options=-v" for ptxas's resource lines in the log.
CompiledProgram nvrtc_compile(const std::string& program_name, const std::string& source,
                              const std::vector<std::string>& name_expressions, int arch,
                              const std::vector<std::string>& extra = {});
/// Number of NVRTC compiles this process has run (tests count cold vs warm loads).
long nvrtc_compile_count();

} // namespace scantune::detail

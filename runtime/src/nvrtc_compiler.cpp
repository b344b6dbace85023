#include "nvrtc_compiler.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>
#include <nvrtc.h>

#include "embedded_templates.hpp"
#include "errors.hpp"

namespace scantune::detail {
namespace {

std::atomic<long> g_compiles{0};

void check(nvrtcResult r, const char* what) {
  if (r != NVRTC_SUCCESS) fail<CompileError>("NVRTC {} failed: {}", what, nvrtcGetErrorString(r));
}

// Destroys the program on every path.
struct Program {
  nvrtcProgram p = nullptr;
  ~Program() {
    if (p) nvrtcDestroyProgram(&p);
  }
};

std::string program_log(nvrtcProgram p) {
  std::size_t size = 0;
  if (nvrtcGetProgramLogSize(p, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(p, log.data()) != NVRTC_SUCCESS) return {};
  log.resize(size - 1);
  return log;
}

} // namespace

std::string nvrtc_version() {
  int major = 0, minor = 0;
  check(nvrtcVersion(&major, &minor), "version query");
  return fmt::format("{}.{}", major, minor);
}

std::vector<int> nvrtc_supported_archs() {
  int count = 0;
  check(nvrtcGetNumSupportedArchs(&count), "arch query");
  std::vector<int> archs(static_cast<std::size_t>(count));
  if (count > 0) check(nvrtcGetSupportedArchs(archs.data()), "arch query");
  return archs;
}

std::vector<std::string> nvrtc_options(int arch) {
  // No fast-math: results must match the float64-checked reference semantics.
  return {"--std=c++17", fmt::format("--gpu-architecture=sm_{}", arch), "-DSCANTUNE_NVRTC=1",
          "-lineinfo"};
}

CompiledProgram nvrtc_compile(const std::string& program_name, const std::string& source,
                              const std::vector<std::string>& name_expressions, int arch,
                              const std::vector<std::string>& extra) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<const char*> header_text, header_names;
  for (std::size_t i = 0; i < kTemplateFileCount; ++i) {
    header_text.push_back(kTemplateFiles[i].text);
    header_names.push_back(kTemplateFiles[i].name);
  }
  Program prog;
  check(nvrtcCreateProgram(&prog.p, source.c_str(), program_name.c_str(),
                           static_cast<int>(header_text.size()), header_text.data(),
                           header_names.data()),
        "program creation");
  for (const auto& e : name_expressions)
    check(nvrtcAddNameExpression(prog.p, e.c_str()), "name expression");

  auto options = nvrtc_options(arch);
  options.insert(options.end(), extra.begin(), extra.end());
  std::vector<const char*> opts;
  for (const auto& o : options)
    opts.push_back(o.c_str());
  ++g_compiles;
  const nvrtcResult r = nvrtcCompileProgram(prog.p, static_cast<int>(opts.size()), opts.data());
  CompiledProgram out;
  out.log = program_log(prog.p);
  if (r != NVRTC_SUCCESS) {
    std::string joined;
    for (const auto& o : options)
      joined += (joined.empty() ? "" : " ") + o;
    if (const char* dump = std::getenv("SCANTUNE_DUMP_SOURCE_ON_ERROR");
        dump && *dump && std::string(dump) != "0") {
      std::ofstream(fmt::format("scantune_failed_{}.cu", std::hash<std::string>{}(program_name)))
          << source;
    }
    throw CompileError(fmt::format("NVRTC could not compile {} ({}) with options [{}]:\n{}",
                                   program_name, nvrtcGetErrorString(r), joined, out.log),
                       fmt::format("options: {}\n{}", joined, out.log));
  }
  std::size_t size = 0;
  check(nvrtcGetCUBINSize(prog.p, &size), "CUBIN size query");
  out.cubin.resize(size);
  check(nvrtcGetCUBIN(prog.p, out.cubin.data()), "CUBIN retrieval");
  for (const auto& e : name_expressions) {
    const char* lowered = nullptr;
    check(nvrtcGetLoweredName(prog.p, e.c_str(), &lowered), "lowered-name query");
    out.lowered_names.emplace_back(lowered);
  }
  out.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

long nvrtc_compile_count() {
  return g_compiles.load();
}

} // namespace scantune::detail

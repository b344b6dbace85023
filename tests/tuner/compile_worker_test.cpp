// The tuner's compile helpers (tuner/gpu/compile_worker.hpp): real helper processes of
// the built scantune executable compiling with NVRTC. No GPU needed.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include <signal.h>

#include "cli_run.hpp"
#include "codegen.hpp"
#include "errors.hpp"
#include "nvrtc_compiler.hpp"
#include "policy.hpp"
#include "tuner/gpu/compile_worker.hpp"
#include "tuner/gpu/helper_compiler.hpp"

namespace scantune::tuner {
namespace {

detail::GeneratedSource source_of(const char* key) {
  return detail::generate({detail::KernelSpec{Policy::parse(key), DataType::Int32,
                                              detail::OpSpec::from(Op::Sum), ScanKind::Inclusive}});
}

TEST(CompileWorker, CompilesWhatThisProcessWould) {
  CompileWorker worker(test::cli_path());
  for (const char* key : {"lookback_warp.tpb256.ipt12.vec4.warp_scans",
                          "single_block.tpb128.ipt4.vec2.blelloch.direct"}) {
    const detail::GeneratedSource gen = source_of(key);
    const detail::CompiledProgram there = worker.compile(gen, 90);
    const detail::CompiledProgram here =
        detail::nvrtc_compile(gen.name, gen.source, gen.name_expressions.front(), 90);
    EXPECT_EQ(there.lowered_names, here.lowered_names) << key;
    EXPECT_EQ(there.cubin.size(), here.cubin.size()) << key;
    EXPECT_GT(there.compile_ms, 0) << key;
  }
}

TEST(CompileWorker, BrokenSourceComesBackAsACompileErrorWithTheLog) {
  CompileWorker worker(test::cli_path());
  detail::GeneratedSource gen = source_of("lookback_warp.tpb256.ipt12.vec4.warp_scans");
  gen.source += "\nthis is not C++;\n";
  try {
    worker.compile(gen, 90);
    FAIL() << "compiled broken source";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Compile);
    EXPECT_NE(std::string(e.what()).find("NVRTC could not compile"), std::string::npos);
    EXPECT_NE(e.log().find("error"), std::string::npos) << e.log();
  }
  // The helper keeps serving after a failed compile.
  EXPECT_FALSE(
      worker.compile(source_of("lookback_warp.tpb128.ipt8.vec4.warp_scans"), 80).cubin.empty());
}

// Ctrl-C signals the terminal's process group, helpers included: they keep compiling
// until the tuner closes their socket.
TEST(CompileWorker, AnInterruptLeavesTheHelperServing) {
  CompileWorker worker(test::cli_path());
  ASSERT_EQ(::kill(worker.pid(), SIGINT), 0);
  for (const char* key :
       {"lookback_warp.tpb256.ipt12.vec4.warp_scans", "lookback_warp.tpb128.ipt8.vec4.warp_scans"})
    EXPECT_FALSE(worker.compile(source_of(key), 90).cubin.empty()) << key;
}

TEST(CompileWorker, AnExecutableThatIsNoWorkerIsRefused) {
  EXPECT_THROW(CompileWorker("/bin/true"), Error);
  EXPECT_THROW(CompileWorker("/nonexistent/scantune"), Error);
}

// compile_all (tuner/gpu/helper_compiler.hpp): every load runs once, each thread with
// its own helper's compiler (none without a helper), failures dropped, none after stop.
TEST(HelperCompiler, CompileAllRunsEveryLoadOnceThroughHelpers) {
  const std::vector<const char*> keys{
      "lookback_warp.tpb256.ipt12.vec4.warp_scans", "lookback_warp.tpb128.ipt8.vec4.warp_scans",
      "single_block.tpb128.ipt4.vec2.blelloch.direct", "lookback_warp.tpb64.ipt8.vec2.warp_scans"};
  std::mutex m;
  std::vector<std::size_t> cubin_bytes(keys.size(), 0);
  std::atomic<int> runs{0}, in_process{0};
  std::vector<RegistryLoad> loads;
  for (std::size_t i = 0; i < keys.size(); ++i)
    loads.push_back([&, i](const detail::KernelRegistry::Compiler* c) {
      ++runs;
      const detail::GeneratedSource gen = source_of(keys[i]);
      const detail::CompiledProgram prog =
          c ? (*c)(gen, 90)
            : (++in_process,
               detail::nvrtc_compile(gen.name, gen.source, gen.name_expressions.front(), 90));
      std::lock_guard<std::mutex> lock(m);
      cubin_bytes[i] = prog.cubin.size();
    });
  loads.push_back([&](const detail::KernelRegistry::Compiler*) {
    ++runs;
    throw detail::CompileError("a candidate that does not compile");
  });
  compile_all(loads, test::cli_path(), 3, [] { return false; });
  EXPECT_EQ(runs, static_cast<int>(loads.size()));
  EXPECT_EQ(in_process, 0);
  for (std::size_t i = 0; i < keys.size(); ++i)
    EXPECT_GT(cubin_bytes[i], 0u) << keys[i];

  runs = 0;
  compile_all(loads, "", 2, [] { return false; }); // no helper: this process's NVRTC
  EXPECT_EQ(runs, static_cast<int>(loads.size()));
  EXPECT_EQ(in_process, static_cast<int>(keys.size()));

  runs = 0;
  compile_all(loads, "", 2, [] { return true; });
  EXPECT_EQ(runs, 0);
}

} // namespace
} // namespace scantune::tuner

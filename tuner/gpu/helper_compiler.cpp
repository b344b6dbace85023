#include "tuner/gpu/helper_compiler.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

#include <cuda_runtime.h>

#include "errors.hpp"

namespace scantune::tuner {

HelperCompiler::HelperCompiler(const std::string& exe) {
  if (!exe.empty()) try {
      helper_ = std::make_unique<CompileWorker>(exe);
    } catch (const std::exception&) { // compiles in this process instead
    }
  by_helper_ = [this](const detail::GeneratedSource& g, int arch) {
    return helper_->compile(g, arch);
  };
}

void HelperCompiler::run(const RegistryLoad& load) {
  try {
    load(helper_ ? &by_helper_ : nullptr);
  } catch (const detail::CompileError&) {
  } catch (...) {
    helper_.reset();
  }
}

void compile_all(const std::vector<RegistryLoad>& loads, const std::string& exe, unsigned threads,
                 const std::function<bool()>& stop) {
  // Two cores stay free, as for the evaluator's background compiles.
  if (threads == 0)
    threads = static_cast<unsigned>(
        std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 2));
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, loads.size()));
  int device = 0;
  cudaGetDevice(&device);
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      cudaSetDevice(device);
      HelperCompiler compiler(exe);
      for (std::size_t i; !stop() && (i = next++) < loads.size();)
        compiler.run(loads[i]);
    });
  for (std::thread& t : pool)
    t.join();
}

} // namespace scantune::tuner

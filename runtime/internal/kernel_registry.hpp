// Compiled kernels: an in-process cache keyed by (specialization, arch, NVRTC
// version), filled from the on-disk kernel cache or, failing that, by NVRTC
// (with a write-back). One compile per cold key, whatever the number of threads.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "codegen.hpp"
#include "nvrtc_compiler.hpp"

namespace scantune {
class KernelCache;
}

namespace scantune::detail {

struct KernelSet {
  cudaLibrary_t library = nullptr;
  std::vector<cudaKernel_t> kernels; // launch order (see codegen kernel_names)
  std::vector<cudaFuncAttributes> attributes;
  enum class Origin { Nvrtc, DiskCache } origin = Origin::Nvrtc;
  double prepare_ms = 0; // compile (or disk load) plus module load
  // Blocks of kernel 0 resident per SM (persistent grids); 0 until first asked.
  mutable std::atomic<int> resident_per_sm{0};
  // Devices (bit per ordinal) on which kernel 0 opted into > 48 KiB of shared memory.
  mutable std::atomic<unsigned long long> shared_opt_in{0};
};

class KernelRegistry {
public:
  static KernelRegistry& instance();

  /// What compiles a cold key: in-process NVRTC (nvrtc_compile) unless a caller
  /// passes another (the tuner's helper processes).
  using Compiler = std::function<CompiledProgram(const GeneratedSource&, int arch)>;

  /// The loaded kernels of `spec` for `arch`; compiles on first use (with `compiler`
  /// when given). `disk` may be null.
  std::shared_ptr<const KernelSet> get(const KernelSpec& spec, int arch, KernelCache* disk,
                                       const Compiler* compiler = nullptr);

  /// The same for kernels outside KernelSpec (the radix sort's): `id` names the
  /// specialization, `generator` writes its source on a cold key.
  std::shared_ptr<const KernelSet> get_generated(const std::string& id,
                                                 const std::function<GeneratedSource()>& generator,
                                                 int arch, KernelCache* disk,
                                                 const Compiler* compiler = nullptr);

  /// Compiles every spec not yet loaded in one NVRTC program (batched: NVRTC's
  /// start-up is paid once) and loads them; later get() calls find them.
  /// Programs of `batch` specs at most, compiled on up to `threads` host threads.
  void prepare(const std::vector<KernelSpec>& specs, int arch, std::size_t batch = 64,
               unsigned threads = 0);

  /// The loaded set of `spec`, or null if it was never prepared.
  std::shared_ptr<const KernelSet> find(const KernelSpec& spec, int arch) const;

  /// Kernel sets currently loaded.
  std::size_t size() const;

private:
  struct Entry {
    std::once_flag once;
    std::shared_ptr<const KernelSet> set;
    std::exception_ptr error;
  };
  static std::string key_of(const KernelSpec& spec, int arch);
  static std::string key_of(const std::string& id, int arch);
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Entry>> entries_;
};

/// Serialises lowered names and CUBIN into one disk-cache blob, and back.
std::vector<char> pack_kernel_blob(const std::vector<std::string>& lowered_names,
                                   const std::vector<char>& cubin);
bool unpack_kernel_blob(const std::vector<char>& blob, std::vector<std::string>& lowered_names,
                        std::vector<char>& cubin);

} // namespace scantune::detail

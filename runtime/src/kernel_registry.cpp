#include "kernel_registry.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "cache/kernel_cache.hpp"
#include "cuda_check.hpp"
#include "nvrtc_compiler.hpp"

namespace scantune::detail {
namespace {

void put_u32(std::vector<char>& out, std::uint32_t v) {
  const std::size_t at = out.size();
  out.resize(at + 4);
  std::memcpy(out.data() + at, &v, 4);
}

std::shared_ptr<KernelSet> load_library(const std::vector<char>& cubin,
                                        const std::vector<std::string>& names,
                                        const std::string& what) {
  auto set = std::make_shared<KernelSet>();
  SCANTUNE_CUDA_TRY(
      cudaLibraryLoadData(&set->library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  for (const auto& name : names) {
    cudaKernel_t k = nullptr;
    const cudaError_t e = cudaLibraryGetKernel(&k, set->library, name.c_str());
    if (e != cudaSuccess)
      fail<CudaError>("kernel {} of {} not found in its module: {}", name, what,
                      cudaGetErrorString(e));
    cudaFuncAttributes attr{};
    SCANTUNE_CUDA_TRY(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(k)));
    set->kernels.push_back(k);
    set->attributes.push_back(attr);
  }
  return set;
}

// Refused before anything is compiled, so the error names the policy and the GPU.
void check_arch(const KernelSpec& spec, int arch) {
  if (arch < spec.policy.min_arch())
    fail<Unsupported>("policy {} needs sm_{} or newer ({} uses bulk copies); this GPU is sm_{}",
                      spec.policy.key(), spec.policy.min_arch(), to_string(spec.policy.algorithm),
                      arch);
}
} // namespace

std::vector<char> pack_kernel_blob(const std::vector<std::string>& lowered_names,
                                   const std::vector<char>& cubin) {
  std::vector<char> out;
  put_u32(out, static_cast<std::uint32_t>(lowered_names.size()));
  for (const auto& n : lowered_names) {
    put_u32(out, static_cast<std::uint32_t>(n.size()));
    out.insert(out.end(), n.begin(), n.end());
  }
  out.insert(out.end(), cubin.begin(), cubin.end());
  return out;
}

bool unpack_kernel_blob(const std::vector<char>& blob, std::vector<std::string>& lowered_names,
                        std::vector<char>& cubin) {
  std::size_t pos = 0;
  auto get_u32 = [&](std::uint32_t& v) {
    if (blob.size() - pos < 4) return false;
    std::memcpy(&v, blob.data() + pos, 4);
    pos += 4;
    return true;
  };
  std::uint32_t count = 0;
  if (!get_u32(count) || count > 16) return false;
  lowered_names.clear();
  for (std::uint32_t i = 0; i < count; ++i) {
    std::uint32_t len = 0;
    if (!get_u32(len) || blob.size() - pos < len) return false;
    lowered_names.emplace_back(blob.data() + pos, len);
    pos += len;
  }
  if (pos >= blob.size()) return false;
  cubin.assign(blob.begin() + static_cast<std::ptrdiff_t>(pos), blob.end());
  return true;
}

KernelRegistry& KernelRegistry::instance() {
  static KernelRegistry* registry =
      new KernelRegistry(); // never destroyed: modules outlive static teardown
  return *registry;
}

std::shared_ptr<const KernelSet> KernelRegistry::find(const KernelSpec& spec, int arch) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key_of(spec, arch));
  return it == entries_.end() ? nullptr : it->second->set;
}

std::size_t KernelRegistry::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

std::string KernelRegistry::key_of(const KernelSpec& spec, int arch) {
  return key_of(spec.id(), arch);
}
std::string KernelRegistry::key_of(const std::string& id, int arch) {
  static const std::string version = nvrtc_version();
  return fmt::format("{}|sm_{}|nvrtc{}", id, arch, version);
}

void KernelRegistry::prepare(const std::vector<KernelSpec>& specs, int arch, std::size_t batch,
                             unsigned threads) {
  std::vector<KernelSpec> todo;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& s : specs) {
      check_arch(s, arch);
      if (!entries_.count(key_of(s, arch))) todo.push_back(s);
    }
  }
  std::vector<std::vector<KernelSpec>> groups;
  for (std::size_t i = 0; i < todo.size(); i += batch)
    groups.emplace_back(todo.begin() + static_cast<std::ptrdiff_t>(i),
                        todo.begin() +
                            static_cast<std::ptrdiff_t>(std::min(todo.size(), i + batch)));
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  int device = 0;
  cudaGetDevice(&device);
  auto worker = [&] {
    cudaSetDevice(device);
    for (std::size_t g; (g = next++) < groups.size();) {
      try {
        const GeneratedSource gen = generate(groups[g]);
        std::vector<std::string> all;
        for (const auto& names : gen.name_expressions)
          all.insert(all.end(), names.begin(), names.end());
        const auto start = std::chrono::steady_clock::now();
        CompiledProgram prog = nvrtc_compile(gen.name, gen.source, all, arch);
        auto library = load_library(prog.cubin, prog.lowered_names, gen.name);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        std::size_t k = 0;
        for (std::size_t i = 0; i < groups[g].size(); ++i) {
          auto set = std::make_shared<KernelSet>();
          set->library = library->library;
          for (std::size_t j = 0; j < gen.name_expressions[i].size(); ++j, ++k) {
            set->kernels.push_back(library->kernels[k]);
            set->attributes.push_back(library->attributes[k]);
          }
          set->prepare_ms = ms;
          auto entry = std::make_shared<Entry>();
          std::call_once(entry->once, [&] { entry->set = std::move(set); });
          std::lock_guard<std::mutex> lock(mutex_);
          entries_.emplace(key_of(groups[g][i], arch), std::move(entry));
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::min<std::size_t>(threads, groups.size()); ++t)
    pool.emplace_back(worker);
  for (auto& t : pool)
    t.join();
  if (error) std::rethrow_exception(error);
}

std::shared_ptr<const KernelSet> KernelRegistry::get(const KernelSpec& spec, int arch,
                                                     KernelCache* disk, const Compiler* compiler) {
  check_arch(spec, arch);
  return get_generated(
      spec.id(), [&] { return generate({spec}); }, arch, disk, compiler);
}

std::shared_ptr<const KernelSet>
KernelRegistry::get_generated(const std::string& id,
                              const std::function<GeneratedSource()>& generator, int arch,
                              KernelCache* disk, const Compiler* compiler) {
  const std::string key = key_of(id, arch);
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = entries_[key];
    if (!slot) slot = std::make_shared<Entry>();
    entry = slot;
  }
  std::call_once(entry->once, [&] {
    try {
      const auto start = std::chrono::steady_clock::now();
      const GeneratedSource gen = generator();
      const auto& names = gen.name_expressions.front();
      std::string disk_key;
      std::shared_ptr<KernelSet> set;
      if (disk) {
        disk_key = KernelCache::key_of(
            {gen.source, nvrtc_options(arch), nvrtc_version(), fmt::format("sm_{}", arch)});
        if (auto blob = disk->load(disk_key)) {
          std::vector<std::string> lowered;
          std::vector<char> cubin;
          if (unpack_kernel_blob(*blob, lowered, cubin) && lowered.size() == names.size()) {
            set = load_library(cubin, lowered, id);
            set->origin = KernelSet::Origin::DiskCache;
          }
        }
      }
      if (!set) {
        CompiledProgram prog =
            compiler ? (*compiler)(gen, arch) : nvrtc_compile(gen.name, gen.source, names, arch);
        set = load_library(prog.cubin, prog.lowered_names, id);
        if (disk) disk->store(disk_key, pack_kernel_blob(prog.lowered_names, prog.cubin));
      }
      set->prepare_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      entry->set = std::move(set);
    } catch (...) {
      entry->error = std::current_exception();
    }
  });
  if (entry->error) {
    {
      // Forget the failure so a later call may retry (e.g. after a transient CUDA error).
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = entries_.find(key);
      if (it != entries_.end() && it->second == entry) entries_.erase(it);
    }
    std::rethrow_exception(entry->error);
  }
  return entry->set;
}

} // namespace scantune::detail

// Scanner: argument checks, device binding, kernel lookup, launch.
#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "cache/kernel_cache.hpp"
#include "codegen.hpp"
#include "cuda_check.hpp"
#include "default_policies.hpp"
#include "kernel_registry.hpp"
#include "launch.hpp"
#include "scantune/scantune.hpp"
#include "workspace.hpp"

namespace scantune {
namespace {

constexpr std::array<std::string_view, 7> kOpNames{"sum",     "product", "min",    "max",
                                                   "bit_and", "bit_or",  "bit_xor"};

// Makes `device` current for the scope, restoring the caller's device after.
class DeviceScope {
public:
  explicit DeviceScope(int device) {
    if (cudaGetDevice(&previous_) == cudaSuccess && previous_ != device) {
      SCANTUNE_CUDA_TRY(cudaSetDevice(device));
      restore_ = true;
    }
  }
  ~DeviceScope() {
    if (restore_) cudaSetDevice(previous_);
  }

private:
  int previous_ = -1;
  bool restore_ = false;
};

} // namespace

std::string_view to_string(Op op) {
  return kOpNames.at(static_cast<std::size_t>(op));
}
Op parse_op(std::string_view s) {
  for (std::size_t i = 0; i < kOpNames.size(); ++i)
    if (kOpNames[i] == s) return static_cast<Op>(i);
  detail::fail(
      "unknown operator '{}' (expected sum, product, min, max, bit_and, bit_or or bit_xor)", s);
}

struct Scanner::Impl {
  ScannerOptions options;
  int device = -1;
  int arch = 0;
  std::string device_error; // why there is no usable device (checked at the first scan)
  std::optional<KernelCache> disk_cache;
  std::unique_ptr<detail::WorkspacePool> workspaces;

  explicit Impl(ScannerOptions o) : options(std::move(o)) {
    // No device (or no driver) is not an error until a scan needs one, so
    // argument checks and compiles work on machines without a GPU.
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      device_error = e != cudaSuccess
                         ? fmt::format("no CUDA device available: {}", cudaGetErrorString(e))
                         : "no CUDA device available";
      cudaGetLastError();
    } else {
      device = options.device;
      if (device < 0 && cudaGetDevice(&device) != cudaSuccess) device = 0;
      if (device >= count) {
        device_error = fmt::format("CUDA device {} requested but only {} present", device, count);
      } else {
        cudaDeviceProp prop{};
        SCANTUNE_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
        arch = prop.major * 10 + prop.minor;
        workspaces = std::make_unique<detail::WorkspacePool>(device);
      }
    }
    disk_cache = KernelCache::open_default(options.kernel_cache);
  }
};

Scanner::Scanner(ScannerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Scanner::~Scanner() = default;
Scanner::Scanner(Scanner&&) noexcept = default;
Scanner& Scanner::operator=(Scanner&&) noexcept = default;

int Scanner::device() const {
  return impl_->device;
}

Policy Scanner::choose_policy(DataType type, OpRef /*op*/, ScanKind /*kind*/, std::size_t n) const {
  return detail::default_policy(type, n);
}

void Scanner::scan(const ScanRequest& r) {
  using detail::fail;
  const detail::OpSpec op = detail::OpSpec::from(r.op);
  detail::check_op(r.type, op);
  if (r.n == 0) return;
  const std::size_t size = size_of(r.type);
  if (!r.in) fail("null input pointer with n = {}", r.n);
  if (!r.out) fail("null output pointer with n = {}", r.n);
  if (reinterpret_cast<std::uintptr_t>(r.in) % size)
    fail("input pointer {} is not aligned to its {}-byte {} elements", r.in, size,
         to_string(r.type));
  if (reinterpret_cast<std::uintptr_t>(r.out) % size)
    fail("output pointer {} is not aligned to its {}-byte {} elements", r.out, size,
         to_string(r.type));
  if (r.kind == ScanKind::Exclusive && !r.init) fail("exclusive scan without an init value");
  if (r.in != r.out) {
    const auto a = reinterpret_cast<std::uintptr_t>(r.in),
               b = reinterpret_cast<std::uintptr_t>(r.out);
    const std::uintptr_t bytes = r.n * size;
    if (a < b + bytes && b < a + bytes)
      fail("input and output ranges overlap without being identical");
  }
  const Policy policy = r.policy ? *r.policy : choose_policy(r.type, r.op, r.kind, r.n);
  if (auto why = policy.invalid_reason(r.type))
    fail("policy {} cannot run on {}: {}", policy.key(), to_string(r.type), *why);
  if (impl_->device < 0 || !impl_->workspaces) fail<detail::NoDevice>("{}", impl_->device_error);

  DeviceScope scope(impl_->device);
  const detail::KernelSpec spec{policy, r.type, op, r.kind};
  auto kernels = detail::KernelRegistry::instance().get(
      spec, impl_->arch, impl_->disk_cache ? &*impl_->disk_cache : nullptr);
  detail::launch_scan(*kernels, policy, r, *impl_->workspaces);
}

Scanner& default_scanner() {
  // One per device, created on first use and kept for the process's lifetime.
  static std::mutex mutex;
  static std::map<int, Scanner*> scanners;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    device = -1;
  }
  std::lock_guard<std::mutex> lock(mutex);
  auto& s = scanners[device];
  if (!s) s = new Scanner(ScannerOptions{device, {}, {}});
  return *s;
}

} // namespace scantune

// The tuning DB's DeviceInfo from the CUDA runtime (device_query.hpp).
#include "device_query.hpp"

#include "errors.hpp"

#include <fmt/format.h>

#include <cuda_runtime_api.h>

namespace scantune::db {

namespace {

void check(cudaError_t e, int ordinal, const char* what) {
  if (e != cudaSuccess)
    throw detail::CudaError(fmt::format("cannot describe CUDA device {} for the tuning database: "
                                        "{}: {}",
                                        ordinal, what, cudaGetErrorString(e)));
}

} // namespace

DeviceInfo query_device(int ordinal) {
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, ordinal), ordinal, "cudaGetDeviceProperties");
  DeviceInfo d;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.memory_bus_bits = p.memoryBusWidth;
  d.l2_bytes = p.l2CacheSize;
  int clock_khz = 0; // no longer in cudaDeviceProp as of CUDA 13
  check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, ordinal), ordinal,
        "cudaDeviceGetAttribute(MemoryClockRate)");
  d.memory_clock_khz = clock_khz;
  // Double data rate: two transfers per clock, bus width in bits.
  d.bandwidth_gbs = 2.0 * clock_khz * 1e3 * (p.memoryBusWidth / 8.0) / 1e9;
  check(cudaDriverGetVersion(&d.driver_version), ordinal, "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&d.runtime_version), ordinal, "cudaRuntimeGetVersion");
  const auto* u = reinterpret_cast<const unsigned char*>(p.uuid.bytes);
  d.uuid = fmt::format("GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-"
                       "{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                       u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
                       u[12], u[13], u[14], u[15]);
  return d;
}

} // namespace scantune::db

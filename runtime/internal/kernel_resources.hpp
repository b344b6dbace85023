// What ptxas reports of each kernel it compiles (NVRTC with --ptxas-options=-v) and
// how many blocks of it an SM holds by those numbers: occupancy evidence without a GPU
// (`scantune compile`), e.g. that a shape is bound by registers, not shared memory.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace scantune::detail {

struct KernelResources {
  std::string name; ///< the mangled entry name
  int registers = 0;
  int stack_bytes = 0, spill_store_bytes = 0, spill_load_bytes = 0;
  int static_shared_bytes = 0;
};

/// The kernels of a ptxas `-v` log, in its order; lines it does not know are skipped.
std::vector<KernelResources> parse_ptxas_log(const std::string& log);

/// An SM's limits of one architecture (the CUDA programming guide's table).
struct SmLimits {
  int registers = 65536;
  int threads = 2048;
  int blocks = 32;
  std::size_t shared_bytes = 0;          ///< shared memory an SM divides among its blocks
  std::size_t reserved_per_block = 1024; ///< the system's share of each block's
};
/// nullopt for an architecture the table does not hold.
std::optional<SmLimits> sm_limits(int arch);

struct Residency {
  int by_registers = 0, by_shared = 0, by_threads = 0;
  int blocks = 0; ///< the least of the three and the SM's block limit
};
/// Blocks of `threads` threads that one SM holds at once: registers are allocated per
/// warp in units of 256, shared memory per block with the system's reserve.
Residency resident_blocks(const SmLimits& sm, int registers, std::size_t shared_bytes, int threads);

} // namespace scantune::detail

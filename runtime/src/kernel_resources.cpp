#include "kernel_resources.hpp"

#include <algorithm>
#include <regex>
#include <sstream>

namespace scantune::detail {

std::vector<KernelResources> parse_ptxas_log(const std::string& log) {
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  std::vector<KernelResources> out;
  std::istringstream lines(log);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, m, entry)) {
      out.push_back({m[1].str()});
      continue;
    }
    if (out.empty()) continue; // module-level lines (gmem) come first
    KernelResources& k = out.back();
    if (std::regex_search(line, m, frame)) {
      k.stack_bytes = std::stoi(m[1].str());
      k.spill_store_bytes = std::stoi(m[2].str());
      k.spill_load_bytes = std::stoi(m[3].str());
    } else if (std::regex_search(line, m, used)) {
      k.registers = std::stoi(m[1].str());
      if (std::regex_search(line, m, smem)) k.static_shared_bytes = std::stoi(m[1].str());
    }
  }
  return out;
}

std::optional<SmLimits> sm_limits(int arch) {
  switch (arch) {
  case 80:
    return SmLimits{65536, 2048, 32, 167936};
  case 87:
    return SmLimits{65536, 1536, 16, 167936};
  case 86:
    return SmLimits{65536, 1536, 16, 102400};
  case 89:
    return SmLimits{65536, 1536, 24, 102400};
  case 90:
  case 100:
    return SmLimits{65536, 2048, 32, 233472};
  default:
    return std::nullopt;
  }
}

Residency resident_blocks(const SmLimits& sm, int registers, std::size_t shared_bytes,
                          int threads) {
  const int warps = std::max(1, (threads + 31) / 32);
  const int per_warp = (std::max(registers, 1) * 32 + 255) / 256 * 256;
  Residency r;
  r.by_registers = sm.registers / (warps * per_warp);
  r.by_shared = static_cast<int>(sm.shared_bytes / (shared_bytes + sm.reserved_per_block));
  r.by_threads = sm.threads / (warps * 32);
  r.blocks = std::min({r.by_registers, r.by_shared, r.by_threads, sm.blocks});
  return r;
}

} // namespace scantune::detail

// SCANTUNE_CHECK=1: CSR offsets checked before a segmented scan uses them. They are
// copied to the host (the call then synchronizes its stream): a debugging aid, off by
// default, skipped under stream capture.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "cuda_check.hpp"
#include "errors.hpp"
#include "launch.hpp"
#include "scan_request.hpp"
#include "segments.hpp"

namespace scantune::detail {
namespace {

std::vector<std::uint64_t> offsets_on_host(const ScanRequest& r) {
  const std::size_t count = r.segments.num_segments + 1;
  const std::size_t width = static_cast<std::size_t>(r.segments.word_bytes);
  std::vector<unsigned char> raw(count * width);
  SCANTUNE_CUDA_TRY(cudaMemcpyAsync(raw.data(), r.segments.offsets, raw.size(),
                                    cudaMemcpyDeviceToHost, r.stream));
  SCANTUNE_CUDA_TRY(cudaStreamSynchronize(r.stream));
  std::vector<std::uint64_t> v(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (width == 4) {
      std::uint32_t w;
      std::memcpy(&w, raw.data() + 4 * i, 4);
      v[i] = w;
    } else {
      std::memcpy(&v[i], raw.data() + 8 * i, 8);
    }
  }
  return v;
}

} // namespace

bool segment_check_requested() {
  const char* v = std::getenv("SCANTUNE_CHECK");
  return v && std::string_view(v) == "1";
}

void check_offsets_contract(const std::vector<std::uint64_t>& off, std::size_t n) {
  if (off.front() != 0) fail("SCANTUNE_CHECK: offsets[0] = {}, expected 0", off.front());
  for (std::size_t i = 1; i < off.size(); ++i) {
    if (off[i] < off[i - 1])
      fail("SCANTUNE_CHECK: offsets[{}] = {} is less than offsets[{}] = {} (offsets must not "
           "decrease)",
           i, off[i], i - 1, off[i - 1]);
    if (off[i] > n) fail("SCANTUNE_CHECK: offsets[{}] = {} exceeds n = {}", i, off[i], n);
  }
  if (off.back() != n)
    fail("SCANTUNE_CHECK: offsets[{}] = {}, expected n = {}", off.size() - 1, off.back(), n);
}

void check_segments_on_device_data(const ScanRequest& r) {
  const Heads h = heads_of(r.segments);
  if ((h != Heads::Offsets32 && h != Heads::Offsets64) || !segment_check_requested() ||
      capturing(r.stream))
    return;
  check_offsets_contract(offsets_on_host(r), r.n);
}

} // namespace scantune::detail

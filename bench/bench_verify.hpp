// bench/bench_verify.hpp: checks device scan results against a host reference.
//
// The reference is computed on the fly from the same counter-based generator that
// filled the device input (bench::input_value), so no copy of the input and no
// n-element reference array is needed on the host: outputs are copied back in
// chunks through pinned staging buffers and compared chunk by chunk, with the
// chunk split across host threads (each thread first sums its slice of the input,
// then checks it starting from the prefix of the slices before it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bench {

/// Pinned (or, if pinning fails, pageable) host buffers used to copy results back.
class HostStaging {
public:
  HostStaging(std::size_t slot_bytes, int slots);
  ~HostStaging();
  HostStaging(const HostStaging&) = delete;
  HostStaging& operator=(const HostStaging&) = delete;

  void* slot(int i) const { return slots_[static_cast<std::size_t>(i)]; }
  int slots() const { return static_cast<int>(slots_.size()); }
  std::size_t slot_bytes() const { return slot_bytes_; }
  bool pinned() const { return pinned_; }

private:
  std::vector<void*> slots_;
  std::size_t slot_bytes_ = 0;
  bool pinned_ = true;
};

struct CheckResult {
  bool ok = true;
  std::size_t mismatches = 0;
  std::size_t first = 0; ///< index of the first mismatch
  std::string expected;  ///< at `first`
  std::string got;       ///< at `first`
};

/// Compares each of `d_outs` (device pointers to n results, all of the same scan of
/// input_value<T>(seed, i), i < n; at most staging.slots() of them) with the host
/// reference of an inclusive or exclusive (init 0) sum. Synchronous; the caller must
/// have synchronised the stream that wrote the outputs.
/// Integers: exact, modulo 2^bits. Floating point: exact while the reference magnitude
/// is below 2^mantissa bits (always the case for the bench's input), a small relative
/// tolerance beyond.
template <class T>
std::vector<CheckResult> check_scan(const std::vector<const T*>& d_outs, std::size_t n,
                                    bool exclusive, std::uint64_t seed, HostStaging& staging);

} // namespace bench

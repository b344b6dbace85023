// bench/bench_verify.cpp: streaming host-reference check of device scan results.
#include "bench_verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <thread>
#include <type_traits>

#include "bench_common.hpp"

namespace bench {

HostStaging::HostStaging(std::size_t slot_bytes, int slots) : slot_bytes_(slot_bytes) {
  for (int i = 0; i < slots; ++i) {
    void* p = nullptr;
    if (pinned_ && cudaMallocHost(&p, slot_bytes) != cudaSuccess) {
      (void)cudaGetLastError(); // not sticky; fall back to pageable memory
      pinned_ = false;
      for (void* q : slots_)
        BENCH_CUDA_CHECK(cudaFreeHost(q));
      slots_.clear();
      i = -1; // start over with pageable buffers
      continue;
    }
    if (!pinned_) {
      p = std::malloc(slot_bytes);
      if (!p) {
        std::fprintf(stderr, "scantune_bench: out of host memory for %zu-byte staging buffers\n",
                     slot_bytes);
        std::exit(1);
      }
    }
    slots_.push_back(p);
  }
}

HostStaging::~HostStaging() {
  for (void* p : slots_) {
    if (pinned_)
      (void)cudaFreeHost(p);
    else
      std::free(p);
  }
}

namespace {

/// The reference accumulator: double for floating point (exact for the bench's
/// integer-valued input), the unsigned type of the same width for integers (wraps).
template <class T, bool = std::is_floating_point_v<T>>
struct AccOf {
  using type = double;
};
template <class T>
struct AccOf<T, false> {
  using type = std::make_unsigned_t<T>;
};
template <class T>
using Acc = typename AccOf<T>::type;

template <class T>
std::string show(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(v));
    return buf;
  } else {
    return std::to_string(v);
  }
}

/// Does `got` match the reference `ref` (accumulated in Acc<T>)?
template <class T>
bool matches(T got, Acc<T> ref) {
  if constexpr (std::is_floating_point_v<T>) {
    // Every integer below 2^24 (float) or 2^53 (double) is exact.
    constexpr double exact_limit = std::is_same_v<T, float> ? 16777216.0 : 9007199254740992.0;
    constexpr double rel = std::is_same_v<T, float> ? 1e-4 : 1e-10;
    const double g = static_cast<double>(got);
    return g == ref ||
           (std::fabs(ref) >= exact_limit && std::fabs(g - ref) <= rel * std::fabs(ref));
  } else {
    return got == static_cast<T>(ref); // modular, as the device computes it
  }
}

template <class T>
Acc<T> value_of(T v) {
  return static_cast<Acc<T>>(v); // unsigned Acc: two's-complement wrap, as intended
}

template <class T>
T expected_of(Acc<T> ref) {
  return static_cast<T>(ref);
}

/// Runs f(part) for part in [0, parts) on `parts` threads (inline when parts == 1).
template <class F>
void parallel_parts(int parts, F&& f) {
  if (parts <= 1) {
    f(0);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(parts));
  for (int p = 0; p < parts; ++p)
    threads.emplace_back([&f, p] { f(p); });
  for (std::thread& t : threads)
    t.join();
}

} // namespace

template <class T>
std::vector<CheckResult> check_scan(const std::vector<const T*>& d_outs, std::size_t n,
                                    bool exclusive, std::uint64_t seed, HostStaging& staging) {
  const std::size_t outs = d_outs.size();
  std::vector<CheckResult> result(outs);
  if (outs == 0 || n == 0) return result;
  if (outs > static_cast<std::size_t>(staging.slots())) {
    std::fprintf(stderr, "scantune_bench: internal error: %zu outputs, %d staging slots\n", outs,
                 staging.slots());
    std::exit(1);
  }
  const std::size_t chunk = std::max<std::size_t>(1, staging.slot_bytes() / sizeof(T));
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const int max_parts = static_cast<int>(std::min(16u, hw));

  const std::uint64_t mixed_seed = mix64(seed);
  Acc<T> carry = 0;
  for (std::size_t off = 0; off < n; off += chunk) {
    const std::size_t len = std::min(chunk, n - off);
    for (std::size_t j = 0; j < outs; ++j)
      BENCH_CUDA_CHECK(cudaMemcpy(staging.slot(static_cast<int>(j)), d_outs[j] + off,
                                  len * sizeof(T), cudaMemcpyDeviceToHost));

    const int parts = len >= (std::size_t{1} << 16) ? max_parts : 1;
    const std::size_t per =
        (len + static_cast<std::size_t>(parts) - 1) / static_cast<std::size_t>(parts);
    const auto begin_of = [&](int p) { return std::min(len, per * static_cast<std::size_t>(p)); };

    // Pass 1: the sum of each part's slice of the input.
    std::vector<Acc<T>> part_sum(static_cast<std::size_t>(parts), Acc<T>{0});
    parallel_parts(parts, [&](int p) {
      Acc<T> s = 0;
      for (std::size_t i = begin_of(p), e = begin_of(p + 1); i < e; ++i)
        s += value_of(input_value_mixed<T>(mixed_seed, off + i));
      part_sum[static_cast<std::size_t>(p)] = s;
    });
    std::vector<Acc<T>> part_start(static_cast<std::size_t>(parts));
    Acc<T> running = carry;
    for (int p = 0; p < parts; ++p) {
      part_start[static_cast<std::size_t>(p)] = running;
      running += part_sum[static_cast<std::size_t>(p)];
    }

    // Pass 2: each part checks its slice of every output, a block at a time: the
    // reference of a block first, then a tight comparison loop per output.
    std::vector<CheckResult> part_result(static_cast<std::size_t>(parts) * outs);
    parallel_parts(parts, [&](int p) {
      constexpr std::size_t kBlock = 2048;
      Acc<T> ref[kBlock];
      CheckResult* mine = &part_result[static_cast<std::size_t>(p) * outs];
      Acc<T> acc = part_start[static_cast<std::size_t>(p)];
      const std::size_t e = begin_of(p + 1);
      for (std::size_t i0 = begin_of(p); i0 < e; i0 += kBlock) {
        const std::size_t len = std::min(kBlock, e - i0);
        if (exclusive) {
          for (std::size_t k = 0; k < len; ++k) {
            ref[k] = acc;
            acc += value_of(input_value_mixed<T>(mixed_seed, off + i0 + k));
          }
        } else {
          for (std::size_t k = 0; k < len; ++k) {
            acc += value_of(input_value_mixed<T>(mixed_seed, off + i0 + k));
            ref[k] = acc;
          }
        }
        for (std::size_t j = 0; j < outs; ++j) {
          const T* got = static_cast<const T*>(staging.slot(static_cast<int>(j))) + i0;
          std::size_t bad = 0;
          for (std::size_t k = 0; k < len; ++k)
            bad += matches<T>(got[k], ref[k]) ? 0 : 1;
          if (bad == 0) continue;
          CheckResult& r = mine[j];
          r.mismatches += bad;
          if (!r.ok) continue;
          for (std::size_t k = 0; k < len; ++k) {
            if (matches<T>(got[k], ref[k])) continue;
            r.ok = false;
            r.first = off + i0 + k;
            if constexpr (std::is_floating_point_v<T>)
              r.expected = show(static_cast<double>(ref[k]));
            else
              r.expected = show(expected_of<T>(ref[k]));
            r.got = show(got[k]);
            break;
          }
        }
      }
    });
    // Merge in index order, so `first` is the lowest mismatching index.
    for (int p = 0; p < parts; ++p) {
      for (std::size_t j = 0; j < outs; ++j) {
        const CheckResult& r = part_result[static_cast<std::size_t>(p) * outs + j];
        if (r.ok) continue;
        if (result[j].ok) {
          result[j].ok = false;
          result[j].first = r.first;
          result[j].expected = r.expected;
          result[j].got = r.got;
        }
        result[j].mismatches += r.mismatches;
      }
    }
    carry = running;
  }
  return result;
}

#define BENCH_INSTANTIATE_CHECK(T)                                                                 \
  template std::vector<CheckResult> check_scan<T>(const std::vector<const T*>&, std::size_t, bool, \
                                                  std::uint64_t, HostStaging&);
BENCH_INSTANTIATE_CHECK(std::int32_t)
BENCH_INSTANTIATE_CHECK(std::uint32_t)
BENCH_INSTANTIATE_CHECK(std::int64_t)
BENCH_INSTANTIATE_CHECK(std::uint64_t)
BENCH_INSTANTIATE_CHECK(float)
BENCH_INSTANTIATE_CHECK(double)
#undef BENCH_INSTANTIATE_CHECK

} // namespace bench

// The type triples (input, accumulator, output) of CUB's converting-sum baselines:
// which ones cub_baseline_convert.cu compiles, also where the baselines are not built.
#pragma once

#include <cstdint>
#include <tuple>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "scantune/scantune.hpp" // its data_type_of names __half only after cuda_fp16.h

namespace scantune::tuner::gpu::convert_baseline {

template <class In, class Acc, class Out>
struct Triple {
  using in = In;
  using acc = Acc;
  using out = Out;
};

// Bytes and booleans into counts, 16-bit types through their accumulator and back,
// half and bfloat16 into float, uint16 into uint32 counts, and what torch.cumsum returns for
// small integers (int64).
using Triples =
    std::tuple<Triple<std::int8_t, std::int32_t, std::int8_t>,
               Triple<std::uint8_t, std::uint32_t, std::uint8_t>,
               Triple<std::int16_t, std::int32_t, std::int16_t>,
               Triple<std::uint16_t, std::uint32_t, std::uint16_t>, Triple<__half, float, __half>,
               Triple<__nv_bfloat16, float, __nv_bfloat16>,
               Triple<std::uint8_t, std::int32_t, std::int32_t>, Triple<__half, float, float>,
               Triple<__nv_bfloat16, float, float>,
               Triple<std::int32_t, std::int64_t, std::int64_t>,
               Triple<std::int8_t, std::int64_t, std::int64_t>,
               Triple<std::uint8_t, std::int64_t, std::int64_t>,
               Triple<std::int16_t, std::int64_t, std::int64_t>,
               Triple<std::uint16_t, std::uint32_t, std::uint32_t>>;

template <class Tr>
bool matches(const ScanTypes& t) {
  return t.in == data_type_of<typename Tr::in>() && t.acc == data_type_of<typename Tr::acc>() &&
         t.out == data_type_of<typename Tr::out>();
}

// Calls f(Triple{}) for the triple of t; false where none is compiled.
template <class F>
bool with_triple(const ScanTypes& t, F&& f) {
  bool found = false;
  std::apply(
      [&](auto... tr) {
        ((!found && matches<decltype(tr)>(t) ? (f(tr), found = true) : false), ...);
      },
      Triples{});
  return found;
}

} // namespace scantune::tuner::gpu::convert_baseline

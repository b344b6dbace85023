// CUB scan-by-key baselines of segmented sums with 64-bit keys (cub_baseline_by_key.cuh).
#define SCANTUNE_CUB_BASELINE_DEFINE
#include "tuner/gpu/cub_baseline.cuh"
#include "tuner/gpu/cub_baseline_by_key.cuh"

SCANTUNE_CUB_BY_KEY_INSTANTIATE(std::uint64_t);

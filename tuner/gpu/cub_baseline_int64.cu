// CUB DeviceScan baselines for int64: sum, product, min, max, bit_and, bit_or, bit_xor x
// inclusive/exclusive.
#define SCANTUNE_CUB_BASELINE_DEFINE
#include "tuner/gpu/cub_baseline.cuh"

SCANTUNE_CUB_BASELINE_INSTANTIATE(std::int64_t);

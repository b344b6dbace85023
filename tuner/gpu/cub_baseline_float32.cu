// CUB DeviceScan baselines for float32: sum, product, min, max x inclusive/exclusive.
#define SCANTUNE_CUB_BASELINE_DEFINE
#include "tuner/gpu/cub_baseline.cuh"

SCANTUNE_CUB_BASELINE_INSTANTIATE(float);

// Lets the experiments include the library's templates, which name each other as
// "scantune/X.cuh" (the paths of the library's NVRTC build): compile with
// -Ibench/experiments.
#pragma once
#include "../../../templates/warp_scan.cuh"

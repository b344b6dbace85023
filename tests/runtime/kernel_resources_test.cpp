// ptxas's resource lines (kernel_resources.hpp) and the blocks an SM holds by them.
#include <gtest/gtest.h>

#include "kernel_resources.hpp"

namespace scantune::detail {
namespace {

// Two kernels as NVRTC's log gives them with --ptxas-options=-v (sm_80; the second
// spills and has no static shared memory), after a module-level line.
const char* kLog = R"(ptxas info    : 209 bytes gmem, 544 bytes cmem[4]
ptxas info    : Compiling entry function '_Z6reducev' for 'sm_80'
ptxas info    : Function properties for _Z6reducev
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 29 registers, used 1 barriers, 12320 bytes smem, 408 bytes cmem[0]
ptxas info    : Compile time = 10.319 ms
ptxas info    : Compiling entry function '_Z4scanv' for 'sm_80'
ptxas info    : Function properties for _Z4scanv
ptxas         .     72 bytes stack frame, 136 bytes spill stores, 148 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 72 bytes cumulative stack size
)";

TEST(KernelResources, ParsesEachKernelOfAPtxasLog) {
  const auto k = parse_ptxas_log(kLog);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].name, "_Z6reducev");
  EXPECT_EQ(k[0].registers, 29);
  EXPECT_EQ(k[0].static_shared_bytes, 12320);
  EXPECT_EQ(k[0].spill_store_bytes, 0);
  EXPECT_EQ(k[1].name, "_Z4scanv");
  EXPECT_EQ(k[1].registers, 40);
  EXPECT_EQ(k[1].static_shared_bytes, 0);
  EXPECT_EQ(k[1].stack_bytes, 72);
  EXPECT_EQ(k[1].spill_store_bytes, 136);
  EXPECT_EQ(k[1].spill_load_bytes, 148);
  EXPECT_TRUE(parse_ptxas_log("").empty());
  EXPECT_TRUE(parse_ptxas_log("warning: something else\n").empty());
}

TEST(KernelResources, BlocksAnSmHoldsByEachLimit) {
  const auto h100 = sm_limits(90);
  ASSERT_TRUE(h100);
  // lookback_bulk of bytes, 256 + 96 threads: 78 registers round to 2560 a warp, 11
  // warps take 28160 of 65536 (2 blocks); 48 KB of stages + 512 B static + the 1 KB
  // reserve fit 4 times into 228 KB; 2048 threads hold 5 such blocks.
  Residency r = resident_blocks(*h100, 78, 49152 + 512, 352);
  EXPECT_EQ(r.by_registers, 2);
  EXPECT_EQ(r.by_shared, 4);
  EXPECT_EQ(r.by_threads, 5);
  EXPECT_EQ(r.blocks, 2);
  // 56 registers (its min_blocks 3 launch bound): 1792 a warp, 3 blocks.
  EXPECT_EQ(resident_blocks(*h100, 56, 49152 + 512, 352).blocks, 3);
  // Small blocks stop at the SM's block limit, not its threads.
  r = resident_blocks(*h100, 16, 0, 32);
  EXPECT_EQ(r.by_threads, 64);
  EXPECT_EQ(r.blocks, 32);
  EXPECT_EQ(resident_blocks(*sm_limits(80), 96, 229376, 352).by_shared, 0); // over 164 KB
  EXPECT_FALSE(sm_limits(75));
}

} // namespace
} // namespace scantune::detail

// db::query_device: a DeviceInfo from the CUDA runtime, or a clean error without
// a GPU or driver.
#include <string>

#include <gtest/gtest.h>

#include "device_query.hpp"
#include "scantune/types.hpp"

namespace scantune::db::testing {
namespace {

TEST(TuningDbDevice, QueryDeviceWorksOrFailsCleanly) {
  try {
    DeviceInfo d = query_device(0);
    EXPECT_FALSE(d.name.empty());
    EXPECT_GT(d.sm_count, 0);
    EXPECT_EQ(d.uuid.rfind("GPU-", 0), 0u);
  } catch (const scantune::Error& e) { // no GPU or no driver on this machine
    EXPECT_EQ(e.kind(), scantune::ErrorKind::Cuda);
    EXPECT_NE(std::string(e.what()).find("CUDA device 0"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace scantune::db::testing

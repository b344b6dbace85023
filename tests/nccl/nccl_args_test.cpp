// Argument errors that need no GPU (they are raised before any CUDA or NCCL call), the
// C API's status codes and messages, and the classification of NCCL errors.
#include <gtest/gtest.h>

#include <cstdint>

#include "common/expect_error.hpp"
#include "nccl_errors.hpp"
#include "scantune/nccl.hpp"
#include "scantune/scantune_nccl.h"

namespace scantune::nccl {
namespace {

// Never dereferenced: the checks under test fail before the communicator is used.
ncclComm_t fake_comm() {
  return reinterpret_cast<ncclComm_t>(std::uintptr_t{0x10});
}

TEST(NcclArgs, NullCommunicatorIsInvalidArgument) {
  try {
    scan({{nullptr, nullptr, nullptr, nullptr, 0, nullptr}}, DataType::Int32, ScanKind::Inclusive,
         Op::Sum, nullptr);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("null communicator"), std::string::npos) << e.what();
  }
}

TEST(NcclArgs, NullScannerExclusiveWithoutInitAndBadTypeAreInvalidArguments) {
  EXPECT_ERROR_NAMING(scan({{nullptr, fake_comm(), nullptr, nullptr, 0, nullptr}}, DataType::Int32,
                           ScanKind::Inclusive, Op::Sum, nullptr),
                      "null scanner");
  EXPECT_ERROR_NAMING(scan({{nullptr, fake_comm(), nullptr, nullptr, 0, nullptr}}, DataType::Int32,
                           ScanKind::Exclusive, Op::Sum, nullptr),
                      "init");
  EXPECT_ERROR_NAMING(scan({{nullptr, fake_comm(), nullptr, nullptr, 0, nullptr}},
                           static_cast<DataType>(17), ScanKind::Inclusive, Op::Sum, nullptr),
                      "type code 17");
}

TEST(NcclArgs, NoRanksIsANoOp) {
  EXPECT_NO_THROW(scan({}, DataType::Int32, ScanKind::Inclusive, Op::Sum, nullptr));
  EXPECT_EQ(scantune_nccl_scan_ranks(nullptr, 0, SCANTUNE_INT32, SCANTUNE_OP_SUM, nullptr, nullptr,
                                     nullptr, 0, nullptr, 0),
            SCANTUNE_SUCCESS);
}

TEST(NcclCApi, ArgumentErrorsReturnInvalidArgumentWithAMessage) {
  int x = 0;
  EXPECT_EQ(scantune_nccl_scan(nullptr, nullptr, SCANTUNE_INT32, SCANTUNE_OP_SUM, 0, &x, &x, 1,
                               nullptr, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scantune_nccl_last_error()).find("null communicator"), std::string::npos);
  EXPECT_EQ(scantune_nccl_scan(nullptr, fake_comm(), static_cast<scantune_dtype_t>(9),
                               SCANTUNE_OP_SUM, 0, &x, &x, 1, nullptr, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scantune_nccl_last_error()).find("type code 9"), std::string::npos);
  EXPECT_EQ(scantune_nccl_scan(nullptr, fake_comm(), SCANTUNE_INT32, static_cast<scantune_op_t>(42),
                               0, &x, &x, 1, nullptr, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scantune_nccl_last_error()).find("operator code 42"), std::string::npos);
  EXPECT_EQ(scantune_nccl_custom_scan(nullptr, fake_comm(), SCANTUNE_FLOAT32, 0, "f", nullptr, "0",
                                      &x, &x, 1, nullptr, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(scantune_nccl_last_error()).find("body"), std::string::npos);
  EXPECT_EQ(scantune_nccl_scan_ranks(nullptr, 2, SCANTUNE_INT32, SCANTUNE_OP_SUM, nullptr, nullptr,
                                     nullptr, 0, nullptr, 0),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
}

TEST(NcclCApi, StatusCodesAreLibscantunes) {
  auto status_of = [](ErrorKind k) { return scantune::status_code(k); };
  EXPECT_EQ(status_of(ErrorKind::InvalidArgument), SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(status_of(ErrorKind::Unsupported), SCANTUNE_ERROR_UNSUPPORTED);
  EXPECT_EQ(status_of(ErrorKind::Compile), SCANTUNE_ERROR_COMPILE);
  EXPECT_EQ(status_of(ErrorKind::Cuda), SCANTUNE_ERROR_CUDA);
  EXPECT_EQ(status_of(ErrorKind::NoDevice), SCANTUNE_ERROR_NO_DEVICE);
  EXPECT_EQ(status_of(ErrorKind::Database), SCANTUNE_ERROR_DATABASE);
  EXPECT_EQ(status_of(ErrorKind::Internal), SCANTUNE_ERROR_INTERNAL);
}

TEST(NcclErrors, CarryNcclsMessageAndKind) {
  EXPECT_NO_THROW(detail::check_nccl(ncclSuccess, nullptr, "x"));
  try {
    detail::check_nccl(ncclUnhandledCudaError, nullptr, "ncclAllGather");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Cuda);
    const std::string what = e.what();
    EXPECT_NE(what.find("ncclAllGather failed: "), std::string::npos) << what;
    EXPECT_NE(what.find(ncclGetErrorString(ncclUnhandledCudaError)), std::string::npos) << what;
  }
  EXPECT_EQ(detail::kind_of(ncclInvalidArgument), ErrorKind::InvalidArgument);
  EXPECT_EQ(detail::kind_of(ncclInvalidUsage), ErrorKind::InvalidArgument);
  EXPECT_EQ(detail::kind_of(ncclSystemError), ErrorKind::Cuda);
}

} // namespace
} // namespace scantune::nccl

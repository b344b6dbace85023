// Describing a CUDA device as the tuning DB records it. It lives with the runtime,
// not in cache/: the DB only stores a DeviceInfo, and only the code that runs on a
// GPU (the scanner, the tuner) asks the CUDA runtime for one.
#pragma once

#include "cache/tuning_db.hpp"

namespace scantune::db {

/// Fills a DeviceInfo from the CUDA runtime for device `ordinal` (id stays 0).
/// Throws scantune::Error (ErrorKind::Cuda) when there is no such device or no driver.
DeviceInfo query_device(int ordinal);

} // namespace scantune::db

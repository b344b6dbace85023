// bench/bench_options.hpp: command-line options of scantune_bench.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "policy.hpp"

namespace bench {

/// Exit statuses of scantune_bench.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1; ///< a verification failed or a call threw
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNoGpu = 77; ///< no CUDA device (the CTest/automake "skipped" code)

/// The default hand-picked policies of the `scantune` column, by element size.
inline constexpr const char* kDefaultPolicy4Byte = "lookback_warp.tpb128.ipt24.vec4.warp_scans";
inline constexpr const char* kDefaultPolicy8Byte = "lookback_warp.tpb256.ipt12.vec2.warp_scans";

struct Options {
  std::vector<scantune::DataType> types; ///< in the order given
  std::vector<std::size_t> sizes;        ///< element counts, in the order given
  scantune::ScanKind kind = scantune::ScanKind::Inclusive;
  std::string policy_all; ///< --policy KEY (every type), empty = per-type table
  std::map<scantune::DataType, std::string> policy_for; ///< --policy TYPE=KEY
  bool hot = false;      ///< one buffer pair (L2-resident small sizes)
  int pairs = 0;         ///< rotation pairs; 0 = automatic
  double rotate_mib = 0; ///< footprint the rotation aims for; 0 = 4 x L2
  int batches = 15;
  double min_batch_ms = 1.0;
  int max_calls_per_batch = 20000;
  int device = 0;
  bool verify = true;
  bool quiet = false;
  std::uint64_t seed = 0x5CA17E5Dull;
  std::string csv_path;
  std::string json_path;
  std::string command_line; ///< argv joined, shell-quoted where needed
};

/// Parses argv into `out`. Returns -1 to go on, or the status to exit with
/// (0 after --help, kExitUsage after a usage error, whose message it printed).
int parse_options(int argc, char** argv, Options& out);

/// The hand-picked policy key of the `scantune` column for `t`.
std::string policy_key_for(const Options& o, scantune::DataType t);

/// "int32", "uint32", "int64", "uint64", "float32", "float64" (bench-local, so that
/// option parsing and reporting do not depend on the library).
const char* type_name(scantune::DataType t);
std::size_t type_size(scantune::DataType t);

/// "inclusive" / "exclusive".
const char* kind_name(scantune::ScanKind k);

} // namespace bench

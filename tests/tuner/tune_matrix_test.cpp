// `scantune tune --all`: the standard matrix, and the skipping of what a database
// already holds (against a real SQLite file).
#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "cache/tuning_db.hpp"
#include "scantune/scantune.hpp"
#include "tests/cache/tuning_db_test_util.hpp"
#include "tuner/run/tune_matrix.hpp"
#include "tuner_test_util.hpp"

namespace scantune::tuner {
namespace {

using db::testing::TempDir;

std::uint64_t pow2(int k) {
  return std::uint64_t{1} << k;
}

TEST(TuneMatrix, IsSixTypesTimesSumMinMaxTimesBothKinds) {
  const StandardMatrix m = standard_matrix();
  std::set<std::tuple<DataType, Op, ScanKind>> problems;
  for (DataType t : m.types)
    for (Op op : m.ops)
      for (ScanKind k : m.kinds)
        problems.insert({t, op, k});
  EXPECT_EQ(problems.size(), 36u);
  EXPECT_EQ(std::set<DataType>(m.types.begin(), m.types.end()),
            (std::set<DataType>{DataType::Int32, DataType::UInt32, DataType::Int64,
                                DataType::UInt64, DataType::Float32, DataType::Float64}));
  EXPECT_EQ(std::set<Op>(m.ops.begin(), m.ops.end()), (std::set<Op>{Op::Sum, Op::Min, Op::Max}));
  EXPECT_EQ(m.kinds.size(), 2u);
}

class TuneMatrixDb : public ::testing::Test {
protected:
  // A device of `name`; its model is the key winners are stored under.
  db::DeviceInfo device(const std::string& name) {
    db::DeviceInfo d;
    d.name = name;
    d.cc_major = 9;
    d.sm_count = 132;
    d.id = store.add_device(d);
    return d;
  }
  void winner(const db::DeviceInfo& d, const Problem& p, std::uint64_t n) {
    db::BestEntry e;
    e.device_id = d.id;
    e.type = std::string(to_string(p.type));
    e.op = p.op_name();
    e.op_hash = p.op_hash();
    e.kind = std::string(to_string(p.kind));
    e.problem = p.problem();
    e.size = n;
    e.policy = "lookback_warp.tpb256.ipt12.vec4.warp_scans";
    e.ns = 1000;
    store.set_best(e);
  }

  TempDir dir;
  db::TuningDb store = db::TuningDb::open((dir / "tuning.db").string());
};

TEST_F(TuneMatrixDb, SkipsTheBucketsThisModelHasWinnersFor) {
  const db::DeviceInfo h100 = device("NVIDIA H100 80GB HBM3");
  const db::DeviceInfo h200 = device("NVIDIA H200");
  const Problem p = int32_sum_inclusive();
  const std::vector<std::uint64_t> sizes{pow2(10), pow2(11), pow2(20), pow2(30)};
  EXPECT_EQ(untuned_sizes(store, h100.model(), p, sizes), sizes); // nothing stored yet

  winner(h100, p, pow2(11));
  winner(h100, p, pow2(20) - 1); // another size of the same bucket
  winner(h200, p, pow2(10));     // another GPU model
  Problem exclusive = p;
  exclusive.kind = ScanKind::Exclusive;
  winner(h100, exclusive, pow2(30)); // another problem
  EXPECT_EQ(untuned_sizes(store, h100.model(), p, sizes),
            (std::vector<std::uint64_t>{pow2(10), pow2(30)}));
  EXPECT_EQ(untuned_sizes(store, h200.model(), p, sizes),
            (std::vector<std::uint64_t>{pow2(11), pow2(20), pow2(30)}));
  EXPECT_EQ(untuned_sizes(store, h100.model(), exclusive, sizes),
            (std::vector<std::uint64_t>{pow2(10), pow2(11), pow2(20)}));
}

TEST_F(TuneMatrixDb, TellsACustomOperatorFromTheBuiltInOne) {
  const db::DeviceInfo h100 = device("NVIDIA H100 80GB HBM3");
  const Problem sum = int32_sum_inclusive();
  const CustomOp plus{"sum", "a + b", "0"}; // a custom operator named like the built-in one
  Problem custom = sum;
  custom.op = detail::OpSpec::from(plus);
  winner(h100, custom, pow2(12));
  EXPECT_EQ(untuned_sizes(store, h100.model(), sum, {pow2(12)}).size(), 1u);
  EXPECT_TRUE(untuned_sizes(store, h100.model(), custom, {pow2(12)}).empty());
}

TEST_F(TuneMatrixDb, StoredWinnersSurviveReopening) {
  const db::DeviceInfo h100 = device("NVIDIA H100 80GB HBM3");
  const Problem p = int32_sum_inclusive();
  winner(h100, p, pow2(16));
  const db::TuningDb again = db::TuningDb::open((dir / "tuning.db").string());
  EXPECT_TRUE(untuned_sizes(again, h100.model(), p, {pow2(16)}).empty());
}

} // namespace
} // namespace scantune::tuner

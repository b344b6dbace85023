// Compaction and radix sort tuning: their search spaces and constraints, the option
// lists, the host references, the dry run; and on a GPU (Gpu*) a small tune whose
// winners dispatch then runs, with correct results.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "algorithms.hpp"
#include "cache/tuning_db.hpp"
#include "cache/tuning_db_test_util.hpp"
#include "common/expect_error.hpp"
#include "common/gpu.hpp"
#include "default_policies.hpp"
#include "scantune/scantune.h"
#include "tuner/gpu/primitive_reference.hpp"
#include "tuner/run/tune.hpp"
#include "tuner/run/tune_primitives.hpp"
#include "tuner_test_util.hpp"

namespace scantune::tuner {
namespace {

using detail::Heads;
using detail::SortPolicy;

TEST(PrimitiveSpace, SortCandidatesAreTheFieldsProductWithinSharedMemory) {
  const SortSpace space = default_sort_space();
  ASSERT_EQ(space.size(), detail::sort_fields().size());
  const auto keys = sort_candidates(DataType::UInt32, 0, space);
  // 4-byte keys: every tile fits; grouped look-backs only in single launches.
  EXPECT_EQ(keys.size(), 3u * 4u * 2u * 3u * 2u * (1u + 2u));
  const auto wide = sort_candidates(DataType::UInt64, 8, space);
  EXPECT_LT(wide.size(), keys.size()); // 512 x 20 items of 8 bytes do not
  std::set<std::string> unique;
  for (const SortPolicy& p : wide) {
    EXPECT_FALSE(p.invalid_reason(8, 8)) << p.key();
    unique.insert(p.key());
  }
  EXPECT_EQ(unique.size(), wide.size());
  SortSpace narrow = space;
  EXPECT_TRUE(apply_sort_option(narrow, "--radix-bits", "6:8"));
  EXPECT_TRUE(apply_sort_option(narrow, "--block-threads", "1024"));
  EXPECT_TRUE(apply_sort_option(narrow, "--items-per-thread", "32"));
  EXPECT_FALSE(apply_sort_option(narrow, "--tile-io", "xpose"));
  EXPECT_TRUE(sort_candidates(DataType::UInt64, 8, narrow).empty()); // 256 KiB tiles
  EXPECT_ERROR_NAMING(apply_sort_option(narrow, "--radix-bits", "eight"), "--radix-bits");
}

TEST(PrimitiveSpace, SelectCandidatesAreCompactionKernelShapes) {
  for (DataType t : {DataType::Int32, DataType::Float64, DataType::Int8, DataType::Float16})
    for (Heads h : {Heads::SelectFlags, Heads::Unique, Heads::PartitionFlags}) {
      const auto c = select_candidates(t, h, select_space());
      ASSERT_FALSE(c.empty());
      for (const Policy& p : c) {
        EXPECT_FALSE(detail::problem_invalid_reason(p, h, t)) << p.key();
        // bulk shapes whose staged flags would not fit are not timed
        EXPECT_FALSE(detail::stored_problem_invalid_reason(p, t, detail::to_string(h))) << p.key();
        EXPECT_FALSE(p.invalid_reason(t)) << p.key();
      }
    }
  std::size_t bounded = 0;
  for (const Policy& p : select_candidates(DataType::Int32, Heads::SelectFlags, select_space())) {
    EXPECT_TRUE(p.min_blocks == 0 || p.min_blocks == 5) << p.key();
    bounded += p.min_blocks == 5;
    EXPECT_LE(p.min_blocks * p.block_threads, 2048) << p.key();
  }
  EXPECT_GT(bounded, 0u); // the 5-block bound beside the compiler's choice
  auto bulk_shapes = [](Heads h) {
    std::size_t k = 0;
    for (const Policy& p : select_candidates(DataType::Int32, h, select_space()))
      k += p.algorithm == Algorithm::LookbackBulk;
    return k;
  };
  // select_bulk_kernel selects and partitions by flags only
  EXPECT_GT(bulk_shapes(Heads::SelectFlags), 0u);
  EXPECT_EQ(bulk_shapes(Heads::PartitionFlags), bulk_shapes(Heads::SelectFlags));
  EXPECT_EQ(bulk_shapes(Heads::Unique), 0u);
  // Narrow items: 16-byte vectors of 16 or 8 of them (or single items), 32 a thread
  // too, no bulk roles.
  for (DataType t : {DataType::UInt8, DataType::BFloat16}) {
    const auto c = select_candidates(t, Heads::SelectFlags, select_space());
    const int vec = 16 / static_cast<int>(size_of(t));
    EXPECT_TRUE(std::any_of(c.begin(), c.end(), [&](const Policy& p) {
      return p.items_per_thread == 32 && p.vector_width == vec;
    }));
    for (const Policy& p : c) {
      EXPECT_TRUE(p.vector_width == vec || p.vector_width == 1) << p.key();
      EXPECT_NE(p.algorithm, Algorithm::LookbackBulk) << p.key();
    }
  }
  SpaceOptions direct = select_space();
  direct.ios = {TileIO::Direct};
  EXPECT_TRUE(select_candidates(DataType::Int32, Heads::SelectFlags, direct).empty());
}

TEST(PrimitiveOptions, ListsAndProblems) {
  EXPECT_EQ(parse_compactions("all").size(), 3u);
  EXPECT_EQ(parse_compactions("unique,select_flags"),
            (std::vector<Heads>{Heads::Unique, Heads::SelectFlags}));
  EXPECT_ERROR_NAMING(parse_compactions("select_if"), "--select", "select_if");
  EXPECT_EQ(parse_sort_values("keys,pairs,pairs8"), (std::vector<std::size_t>{0, 4, 8}));
  EXPECT_EQ(parse_sort_values("all").size(), 3u);
  EXPECT_ERROR_NAMING(parse_sort_values("pairs16"), "--sort", "pairs16");
  const auto problems =
      primitive_problems({DataType::Int32, DataType::Float64}, {Heads::Unique}, {0, 4});
  ASSERT_EQ(problems.size(), 6u);
  EXPECT_EQ(problems[0].label(), "int32 unique");
  EXPECT_EQ(problems[5].label(), "float64 sort_pairs4");
  EXPECT_EQ(problems[5].problem(), "sort_pairs4");
  EXPECT_ERROR_NAMING(primitive_problems({DataType::Float16}, {}, {0}), "float16");
  // Compactions move narrow items as they are: problems of their own element type.
  const auto narrow = primitive_problems({DataType::Float16, DataType::Int8}, {Heads::Unique}, {});
  ASSERT_EQ(narrow.size(), 2u);
  EXPECT_EQ(narrow[0].label(), "float16 unique");
  EXPECT_EQ(narrow[1].problem(), "unique");
  // The default policy is a candidate, last, once.
  PrimitiveTuneOptions o;
  for (const PrimitiveProblem& p : problems) {
    const auto keys = primitive_candidates(p, o);
    const std::string untuned = p.sort_values
                                    ? detail::default_sort_policy(p.type, *p.sort_values).key()
                                    : detail::default_select_policy(p.type).key();
    EXPECT_EQ(keys.back(), untuned);
    EXPECT_EQ(std::count(keys.begin(), keys.end(), untuned), 1);
  }
}

template <class T>
std::vector<T> as(const std::vector<std::uint8_t>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

TEST(PrimitiveReference, CompactionsSelectUniqueAndPartition) {
  const std::uint64_t n = 1000;
  const SelectCase s = select_case(DataType::Int32, Heads::SelectFlags, n, 1);
  const auto items = as<std::int32_t>(s.items);
  std::vector<std::int32_t> want;
  for (std::uint64_t i = 0; i < n; ++i)
    if (s.flags[i]) want.push_back(items[i]);
  EXPECT_EQ(as<std::int32_t>(s.expected), want);
  EXPECT_EQ(s.selected, want.size());
  EXPECT_GT(want.size(), n / 3); // about half flagged
  const SelectCase u = select_case(DataType::Int32, Heads::Unique, n, 1);
  const auto runs = as<std::int32_t>(u.expected);
  EXPECT_LE(u.selected, n / 2 + 1); // runs of two at least
  for (std::size_t j = 1; j < runs.size(); ++j)
    EXPECT_NE(runs[j], runs[j - 1]);
  const SelectCase p = select_case(DataType::Float64, Heads::PartitionFlags, n, 1);
  EXPECT_EQ(p.expected.size(), n * sizeof(double));
}

TEST(PrimitiveReference, SortsAreStableAndOrderFloatsBySign) {
  const std::uint64_t n = 5000;
  const SortCase c = sort_case(DataType::Float32, 4, n, 3);
  const auto keys = as<float>(c.keys), sorted = as<float>(c.expected_keys);
  const auto order = as<std::uint32_t>(c.expected_values);
  for (std::uint64_t i = 0; i < n; ++i) {
    EXPECT_EQ(sorted[i], keys[order[i]]);
    if (i) {
      ASSERT_LE(sorted[i - 1], sorted[i]) << i;
      if (sorted[i - 1] == sorted[i]) { // stable
        EXPECT_LT(order[i - 1], order[i]) << i;
      }
    }
  }
  EXPECT_LT(sorted.front(), 0.0f);
  const SortCase k = sort_case(DataType::Int64, 0, 100, 3);
  EXPECT_TRUE(k.values.empty());
  const auto ik = as<std::int64_t>(k.expected_keys);
  EXPECT_TRUE(std::is_sorted(ik.begin(), ik.end()));
}

std::string dry_run(const PrimitiveTuneOptions& o) {
  return printed_by([&](std::FILE* f) { return run_primitive_tune(o, f); });
}

TEST(PrimitiveTune, DryRunListsProblemsAndCandidates) {
  PrimitiveTuneOptions o;
  o.problems = primitive_problems({DataType::UInt32}, {Heads::SelectFlags}, {0});
  o.sizes = {1u << 16, 1u << 20};
  o.dry_run = true;
  const std::string text = dry_run(o);
  EXPECT_NE(text.find("uint32 select_flags (problem 'select_flags'): "), std::string::npos) << text;
  EXPECT_NE(text.find("uint32 sort_keys (problem 'sort_keys'): 432 candidates x 2 sizes "
                      "(2^16..2^20)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  radix.tpb384.ipt12.rb8\n"), std::string::npos) << text;
}

// A small tune stores one winner per bucket, each timed against what dispatch ran there
// (the built-in table's row, a candidate outside the narrowed space); a scanner reading
// that database then runs them (Exact), with results equal to the host reference's.
class GpuPrimitiveTune : public test::GpuTest {};

TEST_F(GpuPrimitiveTune, WinnersAreStoredAndDispatched) {
  db::testing::TempDir dir;
  PrimitiveTuneOptions o;
  o.problems = primitive_problems({DataType::Int32}, {Heads::SelectFlags, Heads::Unique}, {0, 4});
  o.sizes = {1u << 12, 1u << 18};
  apply_sort_option(o.sort_space, "--block-threads", "256");
  apply_sort_option(o.sort_space, "--items-per-thread", "8,16");
  apply_sort_option(o.sort_space, "--radix-bits", "8");
  o.select_space.block_threads = {128};
  o.select_space.items_per_thread = {8, 16};
  o.select_space.ios = {TileIO::WarpTranspose};
  o.db_path = (dir / "t.db").string();
  const std::string report = printed_by([&](std::FILE* f) { return run_primitive_tune(o, f); });
  for (const PrimitiveProblem& p : o.problems) // every candidate compiled before any is timed
    EXPECT_NE(report.find(fmt::format("{}: {} candidates compiled or loaded in ", p.label(),
                                      primitive_candidates(p, o).size())),
              std::string::npos)
        << report;
  const Scanner builtin(ScannerOptions{-1, "off", {}});
  for (std::uint64_t n : o.sizes) {
    const std::string ran = builtin.select_plan(DataType::Int32, Compaction::Unique, n).policy;
    EXPECT_NE(report.find(fmt::format("int32 unique n = {}: ", db::size_label(n))),
              std::string::npos)
        << report;
    EXPECT_NE(report.find("x what dispatch ran, " + ran + ")"), std::string::npos) << report;
  }
  const auto db = db::TuningDb::open(o.db_path);
  std::map<std::pair<std::string, std::uint64_t>, std::string> stored;
  for (const db::BestEntry& e : db.list_best())
    stored[{e.problem, e.size}] = e.policy;
  ASSERT_EQ(stored.size(), o.problems.size() * o.sizes.size());

  Scanner s(ScannerOptions{-1, o.db_path, {}});
  for (std::uint64_t n : o.sizes) {
    const Plan sel = s.select_plan(DataType::Int32, Compaction::SelectFlagged, n);
    EXPECT_EQ(sel.match, Match::Exact) << sel.source;
    EXPECT_EQ(sel.policy, (stored[{"select_flags", n}]));
    const Plan srt = s.sort_plan(DataType::Int32, 4, n);
    EXPECT_EQ(srt.match, Match::Exact) << srt.source;
    EXPECT_EQ(srt.policy, (stored[{"sort_pairs4", n}]));

    const SelectCase c = select_case(DataType::Int32, Heads::Unique, n, 9);
    test::DeviceBuffer<std::int32_t> in(n), out(n);
    test::DeviceBuffer<std::uint64_t> count(1);
    SCANTUNE_CUDA_TRY(cudaMemcpy(in.ptr, c.items.data(), c.items.size(), cudaMemcpyHostToDevice));
    s.unique(in.ptr, out.ptr, n, count.ptr);
    ASSERT_EQ(selected_count(count.ptr), c.selected);
    std::vector<std::int32_t> got(c.selected);
    SCANTUNE_CUDA_TRY(cudaMemcpy(got.data(), out.ptr, c.expected.size(), cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, as<std::int32_t>(c.expected));

    const SortCase k = sort_case(DataType::Int32, 4, n, 9);
    test::DeviceBuffer<std::int32_t> keys(n), keys_out(n);
    test::DeviceBuffer<std::uint32_t> vals(n), vals_out(n);
    SCANTUNE_CUDA_TRY(cudaMemcpy(keys.ptr, k.keys.data(), k.keys.size(), cudaMemcpyHostToDevice));
    SCANTUNE_CUDA_TRY(
        cudaMemcpy(vals.ptr, k.values.data(), k.values.size(), cudaMemcpyHostToDevice));
    s.sort_pairs(keys.ptr, keys_out.ptr, vals.ptr, vals_out.ptr, n);
    std::vector<std::int32_t> sorted(n);
    std::vector<std::uint32_t> order(n);
    SCANTUNE_CUDA_TRY(cudaMemcpy(sorted.data(), keys_out.ptr, n * 4, cudaMemcpyDeviceToHost));
    SCANTUNE_CUDA_TRY(cudaMemcpy(order.data(), vals_out.ptr, n * 4, cudaMemcpyDeviceToHost));
    EXPECT_EQ(sorted, as<std::int32_t>(k.expected_keys));
    EXPECT_EQ(order, as<std::uint32_t>(k.expected_values));

    // The C API's scanner of the same database runs the same routes.
    keys_out.poison();
    scantune_scanner_t cs = nullptr;
    ASSERT_EQ(scantune_scanner_create(&cs, -1, o.db_path.c_str(), nullptr), SCANTUNE_SUCCESS);
    ASSERT_EQ(scantune_sort(cs, SCANTUNE_INT32, keys.ptr, keys_out.ptr, nullptr, nullptr, 0, n, 0,
                            0, 32, nullptr),
              SCANTUNE_SUCCESS)
        << scantune_last_error();
    SCANTUNE_CUDA_TRY(cudaMemcpy(sorted.data(), keys_out.ptr, n * 4, cudaMemcpyDeviceToHost));
    EXPECT_EQ(sorted, as<std::int32_t>(k.expected_keys));
    scantune_scanner_destroy(cs);
  }
}

// Narrow compactions are problems of their own element type: tuned (every candidate's
// result checked), stored under that type, dispatched (Exact) and run right.
TEST_F(GpuPrimitiveTune, NarrowCompactionsAreTunedAsThemselves) {
  db::testing::TempDir dir;
  PrimitiveTuneOptions o;
  o.problems = primitive_problems({DataType::Int8, DataType::Float16},
                                  {Heads::Unique, Heads::PartitionFlags}, {});
  o.sizes = {(1u << 18) + 3};
  o.select_space.block_threads = {256};
  o.select_space.items_per_thread = {16};
  o.db_path = (dir / "t.db").string();
  const std::string report = printed_by([&](std::FILE* f) { return run_primitive_tune(o, f); });
  const auto db = db::TuningDb::open(o.db_path);
  std::map<std::pair<std::string, std::string>, std::string> stored;
  for (const db::BestEntry& e : db.list_best())
    stored[{e.type, e.problem}] = e.policy;
  ASSERT_EQ(stored.size(), 4u) << report;
  Scanner s(ScannerOptions{-1, o.db_path, {}});
  const std::uint64_t n = o.sizes.front();
  for (DataType t : {DataType::Int8, DataType::Float16}) {
    for (Compaction how : {Compaction::Unique, Compaction::PartitionFlagged}) {
      const Plan plan = s.select_plan(t, how, n);
      EXPECT_EQ(plan.match, Match::Exact) << plan.source;
      const std::string problem(detail::to_string(detail::compaction_heads(how)));
      EXPECT_EQ(plan.policy, (stored[{std::string(to_string(t)), problem}]));
      const SelectCase c = select_case(t, detail::compaction_heads(how), n, 3);
      const std::size_t w = size_of(t);
      test::DeviceBuffer<std::uint8_t> in(n * w), out(n * w), flags(n);
      test::DeviceBuffer<std::uint64_t> count(1);
      in.upload(c.items);
      flags.upload(c.flags);
      s.run_select(t, how, in.ptr, how == Compaction::Unique ? nullptr : flags.ptr, nullptr,
                   out.ptr, n, count.ptr, nullptr);
      ASSERT_EQ(selected_count(count.ptr), c.selected) << to_string(t) << " " << problem;
      EXPECT_EQ(out.download(c.expected.size()), c.expected) << to_string(t) << " " << problem;
    }
  }
}

} // namespace
} // namespace scantune::tuner

// The radix sort without a GPU: every kernel specialization compiles under NVRTC,
// policy keys round-trip, the workspace layout and pass arithmetic, argument errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "common/expect_error.hpp"
#include "common/nvrtc_batch.hpp"
#include "nvrtc_compiler.hpp"
#include "scan_request.hpp"
#include "scantune/scantune.h"
#include "scantune/scantune.hpp"
#include "sort.hpp"

namespace scantune::detail {
namespace {

constexpr DataType kTypes[] = {DataType::Int32,  DataType::UInt32,  DataType::Int64,
                               DataType::UInt64, DataType::Float32, DataType::Float64};

// Every key type x value size on the default policies, plus narrower digits and a
// small tile, in one NVRTC program per architecture.
void compile_every_sort(int arch) {
  std::vector<SortSpec> specs;
  for (DataType t : kTypes)
    for (std::size_t v : {0, 4, 8})
      specs.push_back({default_sort_policy(t, v), t, v});
  specs.push_back({{128, 4, 4}, DataType::UInt32, 0});
  specs.push_back({{64, 1, 5}, DataType::Float64, 8});
  specs.push_back({{1024, 2, 6}, DataType::Int64, 4});
  specs.push_back({{384, 16, 8, 3, 1}, DataType::Int32, 4}); // early counts, 4-byte keys
  // Single launches: keys, pairs, 8-byte keys with early counts, 13 passes of 5 bits.
  specs.push_back({{256, 8, 8, 3, 0, 1}, DataType::UInt32, 0});
  specs.push_back({{512, 16, 8, 1, 0, 1}, DataType::Float32, 4});
  specs.push_back({{256, 8, 8, 1, 1, 1}, DataType::UInt64, 8});
  specs.push_back({{64, 1, 5, 1, 0, 1}, DataType::Float64, 0});
  // Grouped look-backs: keys, 8-byte pairs with early counts, indices.
  specs.push_back({{256, 8, 8, 3, 0, 1, 1}, DataType::UInt32, 0});
  specs.push_back({{256, 8, 8, 1, 1, 1, 1}, DataType::UInt64, 8});
  specs.push_back({{256, 8, 8, 1, 0, 1, 1}, DataType::Int64, 4, true});
  // Indices (their own kernels): 8-byte ones a launch a pass, 4-byte ones in one launch.
  specs.push_back({{384, 12, 8, 2, 1}, DataType::Float32, 8, true});
  specs.push_back({{256, 8, 8, 1, 0, 1}, DataType::Int64, 4, true});
  // Widened 8-byte indices: a launch a pass, one launch, grouped.
  specs.push_back({{384, 12, 8, 2, 1}, DataType::UInt32, 8, true, true});
  specs.push_back({{256, 8, 8, 1, 0, 1}, DataType::Float64, 8, true, true});
  specs.push_back({{256, 8, 8, 1, 0, 1, 1}, DataType::Int32, 8, true, true});
  std::string source;
  std::vector<std::string> names;
  for (const SortSpec& s : specs) {
    ASSERT_FALSE(s.policy.invalid_reason(size_of(s.key), s.carried_bytes())) << s.id();
    const GeneratedSource g = generate_sort(s);
    ASSERT_EQ(g.name_expressions.size(), 1u);
    ASSERT_EQ(g.name_expressions[0].size(),
              s.policy.single_launch ? std::size_t{1} : std::size_t{kSortKernelCount});
    if (source.empty()) source = g.source;
    names.insert(names.end(), g.name_expressions[0].begin(), g.name_expressions[0].end());
  }
  CompiledProgram prog;
  ASSERT_NO_THROW(
      prog = nvrtc_compile("radix_sort_all", source, names, arch, test::kCompileCheckOptions))
      << source;
  EXPECT_GT(prog.cubin.size(), 1000u);
  ASSERT_EQ(prog.lowered_names.size(), names.size());
  for (const auto& l : prog.lowered_names)
    EXPECT_EQ(l.rfind("_Z", 0), 0u) << l;
}

TEST(SortCompile, EverySpecializationSm80) {
  compile_every_sort(80);
}
TEST(SortCompile, EverySpecializationSm90) {
  compile_every_sort(90);
}

TEST(SortPolicy, KeyRoundTrip) {
  for (DataType t : kTypes)
    for (std::size_t v : {0, 4, 8}) {
      const SortPolicy p = default_sort_policy(t, v);
      EXPECT_EQ(SortPolicy::parse(p.key()), p);
      EXPECT_FALSE(p.invalid_reason(size_of(t), v)) << p.key();
    }
  EXPECT_EQ(SortPolicy::parse("radix.tpb128.ipt7.rb5").key(), "radix.tpb128.ipt7.rb5");
  EXPECT_EQ(default_sort_policy(DataType::Float32, 0).key(), "radix.tpb384.ipt12.rb8.mb3");
  EXPECT_EQ(default_sort_policy(DataType::Float64, 8).key(), "radix.tpb256.ipt12.rb8.ec1");
  EXPECT_EQ(default_sort_policy(DataType::Int32, 8).key(), "radix.tpb256.ipt12.rb8");
  // Early counts are optional in the key too, after the register budget.
  const SortPolicy early = SortPolicy::parse("radix.tpb256.ipt12.rb8.mb3.ec1");
  EXPECT_EQ(early.early_counts, 1);
  EXPECT_EQ(early.min_blocks, 3);
  EXPECT_EQ(early.key(), "radix.tpb256.ipt12.rb8.mb3.ec1");
  EXPECT_EQ(SortPolicy::parse("radix.tpb256.ipt12.rb8.ec0").key(), "radix.tpb256.ipt12.rb8");
  // A single launch is the last optional field.
  const SortPolicy single = SortPolicy::parse("radix.tpb256.ipt8.rb8.mb3.ec1.sl1");
  EXPECT_EQ(single.single_launch, 1);
  EXPECT_EQ(single.early_counts, 1);
  EXPECT_EQ(single.key(), "radix.tpb256.ipt8.rb8.mb3.ec1.sl1");
  EXPECT_EQ(SortPolicy::parse("radix.tpb256.ipt8.rb8.sl1").key(), "radix.tpb256.ipt8.rb8.sl1");
  EXPECT_EQ(SortPolicy::parse("radix.tpb256.ipt8.rb8.sl0").key(), "radix.tpb256.ipt8.rb8");
  EXPECT_TRUE(SortPolicy::parse("radix.tpb256.ipt8.rb8.sl2").invalid_reason(4, 0));
  EXPECT_ERROR_NAMING(SortPolicy::parse("radix.tpb256.ipt8.rb8.sl1.ec1"),
                      "radix.tpb256.ipt8.rb8.sl1.ec1",
                      "expected radix.tpb<n>.ipt<n>.rb<n>[.mb<n>][.ec<n>][.sl<n>][.lg<n>]");
  // Grouped look-backs after it, only with it.
  const SortPolicy grouped = SortPolicy::parse("radix.tpb256.ipt8.rb8.sl1.lg1");
  EXPECT_EQ(grouped.look_back_groups, 1);
  EXPECT_EQ(grouped.key(), "radix.tpb256.ipt8.rb8.sl1.lg1");
  EXPECT_FALSE(grouped.invalid_reason(4, 0));
  const auto alone = SortPolicy::parse("radix.tpb256.ipt8.rb8.lg1").invalid_reason(4, 0);
  ASSERT_TRUE(alone);
  EXPECT_NE(alone->find("look_back_groups 1 needs single_launch 1"), std::string::npos) << *alone;
  EXPECT_TRUE(SortPolicy::parse("radix.tpb256.ipt12.rb8.ec2").invalid_reason(8, 0));
  // The register budget is optional in the key: left out at its default of one block.
  SortPolicy three = SortPolicy::parse("radix.tpb384.ipt12.rb8.mb3");
  EXPECT_EQ(three.min_blocks, 3);
  EXPECT_EQ(three.key(), "radix.tpb384.ipt12.rb8.mb3");
  three.min_blocks = 1;
  EXPECT_EQ(three.key(), "radix.tpb384.ipt12.rb8");
  EXPECT_TRUE(SortPolicy::parse("radix.tpb384.ipt12.rb8.mb5").invalid_reason(4, 0));
  for (const char* bad :
       {"", "radix", "radix.tpb128.ipt7", "radix.tpb128.ipt7.rb5.x", "radix.tpb128.ipt7.rb5.mb",
        "radix.tpb128.ipt7.rb5.mb1.mb2", "radix.tpb128.ipt7.rb5.ec1.mb2",
        "lookback_warp.tpb128.ipt7.rb5", "radix.tpb.ipt7.rb5", "radix.tpbx.ipt7.rb5"})
    EXPECT_THROW(SortPolicy::parse(bad), Error) << bad;
}

TEST(SortPolicy, InvalidReasons) {
  EXPECT_TRUE(SortPolicy({100, 4, 8}).invalid_reason(4, 0));
  EXPECT_TRUE(SortPolicy({128, 0, 8}).invalid_reason(4, 0));
  EXPECT_TRUE(SortPolicy({128, 4, 9}).invalid_reason(4, 0));
  EXPECT_TRUE(SortPolicy({128, 4, 3}).invalid_reason(4, 0));
  // 512 x 21 items of 4 bytes fit in 48 KiB with the tile's digit arrays, not with the
  // single launch's digit starts as well.
  EXPECT_FALSE(SortPolicy({512, 21, 8}).invalid_reason(4, 0));
  EXPECT_TRUE(SortPolicy({512, 21, 8, 1, 0, 1}).invalid_reason(4, 0));
  // 1024 x 16 items of 8 bytes: 128 KiB of shared memory.
  const auto why = SortPolicy({1024, 16, 8}).invalid_reason(8, 8);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("shared memory"), std::string::npos) << *why;
}

// SortPolicy::shared_bytes restates the kernels' shared-memory layout (onesweep_smem and
// its SEPARATE choice, the single launch's union): ptxas's count of each kernel's
// static shared memory must equal it, on both sides of the counters-apart bound.
TEST(SortPolicy, SharedBytesMatchPtxas) {
  const std::vector<SortSpec> specs = {
      {SortPolicy::parse("radix.tpb384.ipt16.rb8.mb3.ec1"), DataType::UInt32, 0}, // apart
      {SortPolicy::parse("radix.tpb384.ipt20.rb8.mb3.ec1"), DataType::UInt32, 0}, // apart
      // In it: the single launch's digit starts leave no room, nor does a larger tile.
      {SortPolicy::parse("radix.tpb384.ipt20.rb8.mb3.ec1.sl1"), DataType::UInt32, 0},
      {SortPolicy::parse("radix.tpb512.ipt20.rb8.ec1"), DataType::UInt32, 0},
      {SortPolicy::parse("radix.tpb512.ipt20.rb8"), DataType::UInt32, 4},
      {SortPolicy::parse("radix.tpb256.ipt16.rb8.ec1"), DataType::UInt64, 8},
      {SortPolicy::parse("radix.tpb128.ipt4.rb4"), DataType::Float32, 0},
      {SortPolicy::parse("radix.tpb256.ipt8.rb8.sl1"), DataType::UInt64, 4},
      {SortPolicy::parse("radix.tpb512.ipt20.rb8"), DataType::UInt32, 8, true, true}};
  for (const SortSpec& spec : specs) {
    const GeneratedSource g = generate_sort(spec);
    const std::string& kernel = g.name_expressions[0].back(); // onesweep or single launch
    const CompiledProgram prog =
        nvrtc_compile("sort_smem", g.source, {kernel}, 90, {"--ptxas-options=--verbose"});
    // "ptxas info    : Compiling entry function '<lowered>' for 'sm_90'" ... then
    // "ptxas info    : Used N registers, ..., M bytes smem" for that function.
    const std::size_t entry = prog.log.find(prog.lowered_names[0]);
    ASSERT_NE(entry, std::string::npos) << prog.log;
    const std::size_t smem = prog.log.find(" bytes smem", entry);
    ASSERT_NE(smem, std::string::npos) << prog.log;
    const std::size_t digits = prog.log.find_last_not_of("0123456789", smem - 1) + 1;
    EXPECT_EQ(std::stoul(prog.log.substr(digits, smem - digits)),
              spec.policy.shared_bytes(size_of(spec.key), spec.carried_bytes()))
        << spec.id();
  }
}

TEST(SortPolicy, SpecIdsNameEverything) {
  EXPECT_EQ((SortSpec{{384, 12, 8}, DataType::Int64, 4}.id()),
            "radix.tpb384.ipt12.rb8|int64|v4|sort_pairs");
  EXPECT_EQ((SortSpec{{384, 12, 8}, DataType::Float32, 0}.id()),
            "radix.tpb384.ipt12.rb8|float32|v0|sort_keys");
  EXPECT_EQ((SortSpec{{384, 12, 8}, DataType::Int32, 8, true}.id()),
            "radix.tpb384.ipt12.rb8|int32|v8|sort_indices");
  EXPECT_EQ((SortSpec{{384, 12, 8}, DataType::Int32, 8, true, true}.id()),
            "radix.tpb384.ipt12.rb8|int32|v8|sort_indices_widened");
}

// Widened indices travel as 4-byte positions: the 4-byte pairs' tile (its shared
// memory), named as such, and a last pass that writes 8 bytes; only where the positions
// fit in 32 bits.
TEST(SortPolicy, WidenedIndicesCarryFourBytes) {
  EXPECT_TRUE(sort_widens(true, 8, std::size_t{1} << 32));
  EXPECT_FALSE(sort_widens(true, 8, (std::size_t{1} << 32) + 1));
  EXPECT_FALSE(sort_widens(true, 4, 1000));
  EXPECT_FALSE(sort_widens(false, 8, 1000));
  const SortSpec spec{SortPolicy::parse("radix.tpb384.ipt12.rb8"), DataType::UInt32, 8, true, true};
  EXPECT_EQ(spec.carried_bytes(), 4u);
  const GeneratedSource g = generate_sort(spec);
  EXPECT_EQ(g.name_expressions[0].back(),
            "&scantune::radix_onesweep_kernel<unsigned int, 4, 384, 12, 8, 1, false, true, true>");
  SortSpec single = spec;
  single.policy.single_launch = 1;
  EXPECT_EQ(generate_sort(single).name_expressions[0].back(),
            "&scantune::radix_single_launch_kernel<unsigned int, 4, 384, 12, 8, 1, false, true, "
            "false, true>");
  const SortLayout wide = sort_layout(spec.policy, 4, 8, 1u << 20);
  const SortLayout narrow = sort_layout(spec.policy, 4, spec.carried_bytes(), 1u << 20);
  EXPECT_EQ(wide.bytes - narrow.bytes, 4u << 20);
}

TEST(SortLayout, PassesAndRegions) {
  EXPECT_EQ(sort_passes(0, 32, 8), 4u);
  EXPECT_EQ(sort_passes(0, 64, 8), 8u);
  EXPECT_EQ(sort_passes(3, 17, 8), 2u);
  EXPECT_EQ(sort_passes(0, 1, 8), 1u);
  EXPECT_EQ(sort_passes(0, 32, 5), 7u);
  const SortPolicy p{256, 4, 8};
  const SortLayout l = sort_layout(p, 4, 8, 1025);
  EXPECT_EQ(l.tiles, 2u);
  EXPECT_EQ(l.starts, 256u); // after the partials header the reduction keeps zero
  EXPECT_GE(l.tickets, l.starts + 4 * 256 * 8);
  EXPECT_EQ(l.zeroed, l.tickets + 4 * 8 - l.starts); // the starts and tickets only
  EXPECT_EQ(l.status_bytes, 2u * 256 * 8);           // apart, in the sort status buffer
  EXPECT_GE(l.keys, l.tickets + 4 * 8);
  EXPECT_EQ(l.keys % 16, 0u);
  EXPECT_GE(l.values, l.keys + 1025 * 4);
  EXPECT_EQ(l.values % 16, 0u);
  EXPECT_EQ(l.bytes, l.values + 1025 * 8);
  EXPECT_EQ(sort_layout(p, 8, 0, 1024).tiles, 1u);
  // Grouped look-backs: a group total's words after every 8 tiles' (17 tiles: 3 groups).
  const SortPolicy grouped{256, 4, 8, 1, 0, 1, 1};
  EXPECT_EQ(sort_layout(grouped, 4, 0, 17 * 1024).status_bytes, (17u + 3) * 256 * 8);
  EXPECT_EQ(sort_layout(grouped, 4, 0, 16 * 1024).status_bytes, (16u + 2) * 256 * 8);
}

TEST(SortLayout, TagsNoWordCarriesYet) {
  unsigned next = 1; // a zeroed buffer
  SortTags t = take_sort_tags(next, 4);
  EXPECT_EQ(t.base, 1u);
  EXPECT_FALSE(t.zero_first);
  EXPECT_EQ(next, 5u);
  t = take_sort_tags(next, 8);
  EXPECT_EQ(t.base, 5u); // tags 5..12: after the first sort's 1..4
  EXPECT_EQ(next, 13u);
  // The last tag fits 22 bits; one more pass than the tags left zeroes the buffer.
  next = kSortTagLimit - 4;
  t = take_sort_tags(next, 4);
  EXPECT_EQ(t.base, kSortTagLimit - 4);
  EXPECT_FALSE(t.zero_first);
  EXPECT_EQ(next, kSortTagLimit);
  t = take_sort_tags(next, 1);
  EXPECT_EQ(t.base, 1u);
  EXPECT_TRUE(t.zero_first);
  EXPECT_EQ(next, 2u);
  next = 0; // never a tag: start over
  EXPECT_TRUE(take_sort_tags(next, 2).zero_first);
  EXPECT_EQ(next, 3u);
}

// The single launch's histograms hold every pass of any key at every digit width.
TEST(SortLayout, ControlBlockHoldsEveryHistogram) {
  for (int bits = 4; bits <= 8; ++bits)
    for (unsigned key_bits : {32u, 64u})
      EXPECT_LE(std::size_t{sort_passes(0, key_bits, bits)} << bits, kSortHistWords)
          << key_bits << "-bit keys, " << bits << "-bit digits";
  EXPECT_EQ(kSortControlBytes % 256, 0u); // the status words after it stay aligned
}

TEST(SortLayout, HistogramGrid) {
  const SortPolicy p{256, 4, 8};
  EXPECT_EQ(sort_histogram_grid(p, 2, 132), 1u);
  EXPECT_EQ(sort_histogram_grid(p, std::size_t{1} << 30, 132), 528u);
  // Fewer than 2^32 keys per block (32-bit shared counters).
  EXPECT_GE(sort_histogram_grid(p, std::size_t{1} << 40, 1), 512u);
}

// Arguments are checked before anything touches the device (fake pointers).
template <class T>
T* fake(std::uintptr_t a = 0x10000) {
  return reinterpret_cast<T*>(a);
}

using test::error_of;

TEST(SortArguments, ClearErrors) {
  Scanner s(ScannerOptions{-1, "off", {}});
  EXPECT_EQ(error_of([&] { s.sort_keys(fake<int>(), static_cast<int*>(nullptr), 4); }),
            "null key output pointer with n = 4");
  EXPECT_EQ(error_of([&] { s.sort_keys(static_cast<const int*>(nullptr), fake<int>(), 4); }),
            "null key input pointer with n = 4");
  EXPECT_EQ(error_of([&] {
              s.sort_pairs(fake<int>(), fake<int>(0x40000), fake<float>(0x80000),
                           static_cast<float*>(nullptr), 4);
            }),
            "null value output pointer with n = 4");
  EXPECT_EQ(error_of([&] {
              s.sort_with_indices(fake<int>(), fake<int>(0x40000),
                                  static_cast<std::int64_t*>(nullptr), 4);
            }),
            "null index output pointer with n = 4");
  EXPECT_EQ(error_of([&] {
              s.sort_with_indices(fake<int>(), fake<int>(0x40000), fake<std::uint32_t>(0x80000),
                                  (std::size_t{1} << 32) + 1);
            }),
            "n = 4294967297: the positions of more than 2^32 keys need 8-byte indices");
  EXPECT_EQ(error_of([&] {
              s.sort_with_indices(fake<int>(), fake<int>(0x40000), fake<std::int64_t>(0x40008), 4);
            }),
            "the keys and the values of a sort overlap");
  EXPECT_EQ(error_of([&] { s.sort_keys(fake<int>(), fake<int>(), 4); }),
            "a sort cannot run in place: the key output overlaps the key input");
  EXPECT_EQ(error_of([&] { s.sort_keys(fake<int>(), fake<int>(0x10008), 4); }),
            "a sort cannot run in place: the key output overlaps the key input");
  EXPECT_EQ(error_of([&] {
              s.sort_pairs(fake<int>(), fake<int>(0x40000), fake<int>(0x80000), fake<int>(0x80000),
                           4);
            }),
            "a sort cannot run in place: the value output overlaps the value input");
  EXPECT_EQ(error_of([&] {
              s.sort_pairs(fake<int>(), fake<int>(0x40000), fake<int>(0x80000), fake<int>(0x40008),
                           4);
            }),
            "the keys and the values of a sort overlap");
  EXPECT_EQ(error_of([&] { s.sort_keys(fake<int>(), fake<int>(0x40000), 4, 8, 8); }),
            "bit range [8, 8) of a sort of int32 keys: expected begin_bit < end_bit <= 32");
  EXPECT_EQ(error_of([&] { s.sort_keys(fake<double>(), fake<double>(0x40000), 4, 0, 65); }),
            "bit range [0, 65) of a sort of float64 keys: expected begin_bit < end_bit <= 64");
  EXPECT_EQ(error_of([&] { s.sort_keys(fake<int>(0x10002), fake<int>(0x40000), 4); }),
            "key pointers 0x10002 and 0x40000 must be aligned to their 4-byte int32 keys");
  struct Wide {
    std::uint64_t a, b;
  };
  try {
    s.sort_pairs(fake<int>(), fake<int>(0x40000), fake<Wide>(0x80000), fake<Wide>(0xc0000), 4);
    ADD_FAILURE() << "16-byte values accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_STREQ(e.what(), "values of 16 bytes: a sort moves values of 4 or 8 bytes");
  }
  // Narrow keys have no ordered word (radix_key): refused by name, at any n.
  try {
    s.sort_keys(fake<std::uint8_t>(), fake<std::uint8_t>(0x40000), 4);
    ADD_FAILURE() << "uint8 keys accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_STREQ(e.what(), "sorts take keys of 4 and 8 bytes (int32, uint32, float32, int64, "
                           "uint64, float64), not uint8");
  }
  // n = 0 is a no-op, even with null pointers; n = 1 needs a device.
  EXPECT_NO_THROW(s.sort_keys(static_cast<const int*>(nullptr), static_cast<int*>(nullptr), 0));
}

TEST(SortArguments, CApi) {
  scantune_scanner_t s = nullptr;
  ASSERT_EQ(scantune_scanner_create(&s, -1, "off", nullptr), SCANTUNE_SUCCESS)
      << scantune_last_error();
  EXPECT_EQ(scantune_sort(s, SCANTUNE_INT32, fake<int>(), fake<int>(), nullptr, nullptr, 0, 4, 0, 0,
                          32, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scantune_last_error(),
               "a sort cannot run in place: the key output overlaps the key input");
  EXPECT_EQ(scantune_sort(s, SCANTUNE_INT32, fake<int>(), fake<int>(0x40000), fake<int>(0x80000),
                          fake<int>(0xc0000), 2, 4, 0, 0, 32, nullptr),
            SCANTUNE_ERROR_UNSUPPORTED);
  EXPECT_STREQ(scantune_last_error(), "values of 2 bytes: a sort moves values of 4 or 8 bytes");
  EXPECT_EQ(scantune_sort(s, SCANTUNE_FLOAT16, fake<short>(), fake<short>(0x40000), nullptr,
                          nullptr, 0, 4, 0, 0, 16, nullptr),
            SCANTUNE_ERROR_UNSUPPORTED);
  EXPECT_EQ(scantune_sort(s, static_cast<scantune_dtype_t>(17), fake<int>(), fake<int>(0x40000),
                          nullptr, nullptr, 0, 4, 0, 0, 32, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scantune_sort(nullptr, SCANTUNE_INT32, fake<int>(), fake<int>(0x40000), nullptr,
                          nullptr, 0, 4, 0, 0, 32, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scantune_sort(s, SCANTUNE_UINT64, nullptr, nullptr, nullptr, nullptr, 0, 0, 1, 0, 64,
                          nullptr),
            SCANTUNE_SUCCESS);
  // Indices (a null values input): 4 or 8 bytes, 4 only up to 2^32 keys; valid ones get
  // as far as the device.
  EXPECT_EQ(scantune_sort(s, SCANTUNE_INT32, fake<int>(), fake<int>(0x40000), nullptr,
                          fake<int>(0x80000), 2, 4, 0, 0, 32, nullptr),
            SCANTUNE_ERROR_UNSUPPORTED);
  EXPECT_EQ(scantune_sort(s, SCANTUNE_INT32, fake<int>(), fake<int>(0x40000), nullptr,
                          fake<int>(0x80000), 4, (std::size_t{1} << 32) + 1, 0, 0, 32, nullptr),
            SCANTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scantune_sort(s, SCANTUNE_FLOAT32, fake<float>(), fake<float>(0x40000), nullptr,
                          fake<std::int64_t>(0x80000), 8, 4, 0, 0, 32, nullptr),
            SCANTUNE_ERROR_NO_DEVICE);
  EXPECT_EQ(scantune_scanner_destroy(s), SCANTUNE_SUCCESS);
}

} // namespace
} // namespace scantune::detail

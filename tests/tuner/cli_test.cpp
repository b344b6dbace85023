// The scantune CLI, run as a process: version, compile (NVRTC, no GPU needed),
// cache info|clear, usage errors (exit 2), and tune's option checks.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <utility>

#include "cache/kernel_cache.hpp"
#include "common/gpu.hpp"
#include "tuner/cli_run.hpp"

namespace {

namespace fs = std::filesystem;

using Result = scantune::test::CliResult;

Result run(const std::string& args) {
  return scantune::test::run_cli(args);
}

class Cli : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("scantune-cli-" + std::to_string(::getpid()));
    fs::remove_all(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir;
};

TEST_F(Cli, Version) {
  auto r = run("version");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("NVRTC 13."), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("templates sha256 "), std::string::npos) << r.output;
}

TEST_F(Cli, CompilesAPolicyWithoutAGpu) {
  auto r =
      run("compile --policy reduce_then_scan.tpb128.ipt4.vec2.blelloch --type float64 --op max "
          "--kind exclusive --arch 80");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(
      r.output.find("reduce_then_scan.tpb128.ipt4.vec2.blelloch|float64|max|exclusive: sm_80"),
      std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("rts_downsweep_kernel"), std::string::npos) << r.output;
}

// ptxas's registers and the blocks an SM holds, per kernel: a minimum of 3 blocks in
// the launch bounds (.mb3) makes registers let 3 blocks in.
TEST_F(Cli, CompilePrintsEachKernelsResources) {
  const std::regex line(R"((\d+) registers, (\d+) B spilled .* (\d+) blocks an SM \(registers )"
                        R"((\d+), shared memory (\d+), threads (\d+)\))");
  for (const char* mb : {"", ".mb3"}) {
    auto r = run(std::string("compile --type int8 --policy "
                             "lookback_bulk.tpb256.ipt32.vec16.warp_scans.st6") +
                 mb);
    ASSERT_EQ(r.code, 0) << r.output;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.output, m, line)) << r.output;
    EXPECT_GT(std::stoi(m[1].str()), 0) << r.output;
    EXPECT_EQ(std::stoi(m[5].str()), 4) << r.output; // 4 x (48 KB stages + reserve) in 228 KB
    EXPECT_EQ(std::stoi(m[6].str()), 5) << r.output; // 2048 / 352 threads
    if (*mb) {
      EXPECT_GE(std::stoi(m[4].str()), 3) << r.output;
    }
  }
  // Every kernel of a three-kernel algorithm has its line.
  auto r = run("compile --policy reduce_then_scan.tpb256.ipt12.vec4.warp_scans --arch 80");
  ASSERT_EQ(r.code, 0) << r.output;
  std::size_t lines = 0;
  for (std::size_t at = 0; (at = r.output.find("blocks an SM", at)) != std::string::npos; ++at)
    ++lines;
  EXPECT_EQ(lines, 3u) << r.output;
  // A segmented problem's kernel, as tune and bench name it.
  r = run("compile --segments keys:32 --policy lookback_warp.tpb512.ipt12.vec1.warp_scans");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("|keys32: sm_90"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("segmented_kernel"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("blocks an SM"), std::string::npos) << r.output;
  EXPECT_EQ(run("compile --segments bogus:1").code, 2);
  // A compaction's kernels: select by flags on the bulk roles, a partition's two.
  r = run("compile --select select_flags --policy lookback_bulk.tpb128.ipt8.vec4.warp_scans.st4");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("|select_flags: sm_90"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("select_bulk_kernel"), std::string::npos) << r.output;
  r = run("compile --select partition_flags --policy lookback_warp.tpb256.ipt8.vec4.warp_scans");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("select_count_kernel"), std::string::npos) << r.output;
  r = run("compile --select partition_flags --type int64 --policy "
          "lookback_bulk.tpb256.ipt12.vec2.warp_scans.st6.early");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("select_bulk_kernel"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" B dynamic shared, 352 threads"), std::string::npos) << r.output;
  // Its count kernel launches blocks of the policy's threads, without stages.
  const std::size_t count = r.output.find("select_count_kernel");
  ASSERT_NE(count, std::string::npos) << r.output;
  EXPECT_NE(r.output.find("+ 0 B dynamic shared, 256 threads", count), std::string::npos)
      << r.output;
  EXPECT_EQ(run("compile --select select_flags,unique").code, 2);
  r = run("compile --segments axis:8x64 --type float16");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("float16:float32:float16: segmented, batched and axis scans take"),
            std::string::npos)
      << r.output;
  // Compactions move narrow elements as they are (no accumulator), not converting ones.
  r = run("compile --select unique --type uint8");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("select_kernel"), std::string::npos) << r.output;
  r = run("compile --select unique --type uint8:int32");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("compactions move one element type, without conversions"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(run("compile --select bogus").code, 2);
  EXPECT_EQ(
      run("compile --select unique --policy lookback_bulk.tpb128.ipt8.vec4.warp_scans.st4").code,
      2); // the bulk roles select and partition by flags only
  EXPECT_EQ(run("compile --select unique --segments keys:32").code, 2);
}

TEST_F(Cli, CompileWritesTheCubinForADisassembler) {
  fs::create_directories(dir);
  const fs::path cubin = dir / "bulk.cubin";
  auto r = run("compile --policy lookback_bulk.tpb256.ipt32.vec4.warp_scans.st7 --op max --out " +
               cubin.string());
  ASSERT_EQ(r.code, 0) << r.output;
  ASSERT_TRUE(fs::exists(cubin));
  std::ifstream in(cubin, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  EXPECT_EQ(std::string(magic, 4), std::string("\x7f") + "ELF"); // a CUBIN is an ELF image
  EXPECT_GT(fs::file_size(cubin), 10000u);
  EXPECT_NE(run("compile --out " + (dir / "no-such-dir" / "x.cubin").string()).code, 0);
}

TEST_F(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(run("").code, 2);
  EXPECT_EQ(run("no-such-command").code, 2);
  EXPECT_EQ(run("compile --arch").code, 2);
  auto r = run("compile --policy lookback_warp.tpb256.ipt12.vec4.warp_scans --type int64");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("vector width 4 x 8 bytes exceeds 16 bytes"), std::string::npos)
      << r.output;
  auto bad = run("compile --policy bogus");
  EXPECT_EQ(bad.code, 1) << bad.output;
  EXPECT_NE(bad.output.find("unknown algorithm 'bogus'"), std::string::npos) << bad.output;
}

TEST_F(Cli, HelpForEverySubcommand) {
  for (const char* sub : {"version", "compile", "cache", "cache info", "cache clear", "devices",
                          "show", "compare", "export", "import", "bench", "plot"}) {
    auto r = run(std::string(sub) + " --help");
    EXPECT_EQ(r.code, 0) << sub << ": " << r.output;
    EXPECT_NE(r.output.find("Usage"), std::string::npos) << sub;
  }
}

TEST_F(Cli, CacheInfoAndClear) {
  scantune::KernelCache cache(dir.string());
  const std::string key = scantune::KernelCache::key_of({"src", {"-opt"}, "13.0", "sm_90"});
  ASSERT_TRUE(cache.store(key, std::vector<char>(1000, 'x')));
  auto info = run("cache info --json --dir " + dir.string());
  EXPECT_EQ(info.code, 0) << info.output;
  EXPECT_NE(info.output.find("\"entries\": 1"), std::string::npos) << info.output;
  auto clear = run("cache clear --dir " + dir.string());
  EXPECT_EQ(clear.code, 0) << clear.output;
  EXPECT_NE(clear.output.find("removed 1 entr"), std::string::npos) << clear.output;
  EXPECT_FALSE(cache.load(key));
  auto after = run("cache info --dir " + dir.string());
  EXPECT_EQ(after.code, 0) << after.output;
}

// `scantune tune` option handling. The runs themselves (dry run, no GPU, simulation)
// are tested with the orchestrator.
TEST(CliTune, HelpListsEveryOption) {
  auto r = run("tune --help");
  EXPECT_EQ(r.code, 0) << r.output;
  std::istringstream options(
      "--type --op --kind --custom-op --sizes --strategy --algorithms --block-threads "
      "--items-per-thread --vector-bytes --backoff --budget --db --resume --dry-run --hot "
      "--simulate --time-limit --device --seed --progress --all --force --select --sort "
      "--radix-bits");
  for (std::string option; options >> option;)
    EXPECT_NE(r.output.find(option), std::string::npos) << option << " missing in\n" << r.output;
  EXPECT_NE(r.output.find("scantune tune --type int32 --op sum --kind inclusive"),
            std::string::npos)
      << r.output;
}

TEST(CliTune, BadValuesAreUsageErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"--type int33", "int33"},
      {"--type int32,bogus", "bogus"},
      {"--op summ", "summ"},
      {"--kind both", "both"},
      {"--type float32 --op bit_and", "bit_and"},
      {"--sizes 2^10:nope", "2^10:nope"},
      {"--strategy annealing", "annealing"},
      {"--budget 10x", "10x"},
      {"--budget -5m", "-5m"},
      {"--custom-op absmin", "absmin"}, // neither NAME:BODY:IDENTITY nor a sample's name
      {"--custom-op 'f:a+b'", "f:a+b"},
      {"--custom-op 'sum:a+b:0'", "sum"},
      {"--time-limit 0.5", "0.5"},
      {"--time-limit 1", "--time-limit"},
      {"--progress fancy", "fancy"},
      {"--simulate /no/such/recorded.db", "/no/such/recorded.db"},
      {"--block-threads 64,x", "64,x"},
      {"--no-such-option", "--no-such-option"},
      {"--device", "--device"},
      {"--all --type int32", "--type"},
      {"--all --op max", "--op"},
      {"--all --kind exclusive", "--kind"},
      {"--all --custom-op absmax", "--custom-op"},
      {"--all --segments rows:1024", "--segments"},
      {"--force", "--force"},                // only with --all
      {"--type int64:int32", "int64:int32"}, // an input wider than the accumulator
      {"--type float32:int32", "float32:int32"},
      {"--type uint8:float16", "float16"}, // not an accumulator
      {"--type uint8:int32 --segments rows:1024", "--segments"},
      {"--type int8 --custom-op absmax", "--custom-op"},
  };
  for (const auto& [args, named] : cases) {
    auto r = run(std::string("tune ") + args + " --dry-run");
    EXPECT_EQ(r.code, 2) << args << ": " << r.output;
    EXPECT_NE(r.output.find("scantune tune: "), std::string::npos) << args << ": " << r.output;
    EXPECT_NE(r.output.find(named), std::string::npos) << args << ": " << r.output;
  }
}

} // namespace

namespace {

TEST_F(Cli, TuneDryRunPrintsTheSizeOfTheSearch) {
  auto r = run("tune --dry-run");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("21 sizes (2^10 .. 2^30), strategy halving"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("int32 sum inclusive: 34128 candidates"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("414576 candidate-sizes"), std::string::npos) << r.output;
  r = run("tune --dry-run --type int64,float32 --op sum,bit_and --kind all --strategy exhaustive");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("skipping bit_and on float32"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("total: 6 problems"), std::string::npos) << r.output;
  // A sample's name stands for its body and identity.
  r = run("tune --dry-run --type float32,uint64 --custom-op absmax --custom-op shifted_product");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("float32 absmax inclusive"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("uint64 shifted_product inclusive"), std::string::npos) << r.output;
  // A struct-valued operator of the library: one problem per kind, on its struct.
  r = run("tune --dry-run --custom-op linear_recurrence --kind all --sizes 2^20,2^24");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("struct8 linear_recurrence inclusive: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("struct8 linear_recurrence exclusive: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("total: 2 problems"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("lookback_bulk"), std::string::npos) << r.output;
}

// Segmented problems search only the policies with a segmented kernel, and take
// built-in operators on a GPU.
TEST_F(Cli, TuneDryRunOfSegmentedProblems) {
  auto r = run("tune --dry-run --segments rows:1024 --sizes 2^20,2^24");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("int32 sum inclusive rows:1024 (problem rows.len_le4096): 1392 "
                          "candidates (1392 lookback_warp)"),
            std::string::npos)
      << r.output;
  r = run("tune --dry-run --segments flags:random --type float64 --kind exclusive");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("float64 sum exclusive flags:random (problem flags)"), std::string::npos)
      << r.output;
  // Several row lengths: a problem per length class.
  r = run("tune --dry-run --segments rows:8,rows:2^20,flags:32 --sizes 2^20");
  EXPECT_EQ(r.code, 0) << r.output;
  for (const char* p : {"rows:8 (problem rows.len_le8)", "rows:1048576 (problem rows.len_gt4096)",
                        "flags:32 (problem flags)", "total: 3 problems"})
    EXPECT_NE(r.output.find(p), std::string::npos) << p << "\n" << r.output;
  r = run("tune --dry-run --segments rows:8,");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("empty SPEC"), std::string::npos) << r.output;
  r = run("tune --dry-run --segments rows:8 --custom-op absmax --type float32");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("takes built-in operators"), std::string::npos) << r.output;
  r = run("tune --dry-run --segments cols:8");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown kind 'cols'"), std::string::npos) << r.output;
}

// Keys, offsets and axis scans: a problem each under dispatch's problem text, each with
// candidates; axis scans search their kernel's shapes, the default axis policy among them.
TEST_F(Cli, TuneDryRunOfKeysOffsetsAndAxisScans) {
  auto r = run("tune --dry-run --segments keys:256,keys64:random,offsets:256,offsets64:random,"
               "axis:4x128 --sizes 2^12,2^30");
  EXPECT_EQ(r.code, 0) << r.output;
  for (const char* p :
       {"keys:256 (problem keys32): ", "keys64:random (problem keys64): ",
        "offsets:256 (problem offsets32.len_le256): ",
        "offsets64:random (problem offsets64.len_gt4096): ",
        "axis:4x128 (problem axis.len_le4.inner_gt64; n rounded down to whole 4x128 slices): ",
        "total: 5 problems"})
    EXPECT_NE(r.output.find(p), std::string::npos) << p << "\n" << r.output;
  // Random offsets over 2^12 elements are a few segments: dispatch classes them apart.
  EXPECT_NE(r.output.find("offsets64:random: size 4096 left out"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(": 0 candidates"), std::string::npos) << r.output;
  r = run("tune --dry-run --segments axis:4x128 --type float32");
  EXPECT_EQ(r.code, 0) << r.output;
  const std::size_t at = r.output.find("(problem axis.len_le4.inner_gt64");
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::size_t count = std::stoul(r.output.substr(r.output.find("): ", at) + 3));
  EXPECT_GT(count, 1u);
  EXPECT_LT(count, 200u) << r.output; // block, rows per thread and vector shapes only
  for (const char* bad : {"axis:0x4", "axis:4", "keys:0", "offsets128:4"}) {
    r = run(std::string("tune --dry-run --segments ") + bad);
    EXPECT_EQ(r.code, 2) << bad << "\n" << r.output;
    EXPECT_NE(r.output.find(std::string("'") + bad + "'"), std::string::npos) << r.output;
  }
}

// Compactions and sorts: their own problems per type, their own candidates; the scan
// options that do not apply are usage errors.
TEST_F(Cli, TuneDryRunOfCompactionsAndSorts) {
  auto r = run("tune --dry-run --select select_flags,unique --sort keys --type int32,float64 "
               "--sizes 2^16:2^28:4");
  EXPECT_EQ(r.code, 0) << r.output;
  for (const char* label :
       {"int32 select_flags (problem 'select_flags'): ", "float64 unique (problem 'unique'): ",
        "float64 sort_keys (problem 'sort_keys'): "})
    EXPECT_NE(r.output.find(label), std::string::npos) << label << r.output;
  EXPECT_NE(r.output.find("x 4 sizes (2^16..2^28)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("6 problem(s)"), std::string::npos) << r.output;
  // The sort grid's lists, and the default policy beside them.
  r = run("tune --dry-run --sort pairs --type uint32 --block-threads 256 --items-per-thread 8,16 "
          "--radix-bits 8 --sizes 2^20");
  EXPECT_EQ(r.code, 0) << r.output;
  // 1 x 2 x 1 x 3 (min_blocks 1 to 3) x 2 (early counts or not) x 3 (a launch a pass, or
  // one launch looking back by chains or by groups) and the default.
  EXPECT_NE(r.output.find("uint32 sort_pairs4 (problem 'sort_pairs4'): 37 candidates"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("radix.tpb256.ipt16.rb8\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("radix.tpb256.ipt16.rb8.mb3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("radix.tpb256.ipt16.rb8.mb3.ec1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("radix.tpb256.ipt16.rb8.mb3.ec1.sl1"), std::string::npos) << r.output;
  const std::pair<const char*, const char*> bad[] = {
      {"--sort keys --op max", "--select and --sort take"},
      {"--select select_if", "select_if"},
      {"--sort pairs16", "pairs16"},
      {"--sort keys --type uint8", "uint8"},
      {"--sort keys --type uint8:int32", "element types"},
      {"--select unique --type float16:float32", "without conversions"},
      {"--radix-bits 8", "--radix-bits applies to --sort"},
      {"--sort keys --radix-bits 3:x", "--radix-bits"},
  };
  for (const auto& [args, named] : bad) {
    r = run(std::string("tune --dry-run ") + args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.output;
    EXPECT_NE(r.output.find(named), std::string::npos) << args << ": " << r.output;
  }
}

// Converting types are problems of their own: IN:ACC, IN:ACC:OUT or a narrow type
// (its default accumulator), with vector widths of their memory types.
TEST_F(Cli, TuneDryRunOfConvertingTypes) {
  auto r = run("tune --dry-run --type uint8:int32,int8,float16:float32:float16 --sizes 2^20");
  EXPECT_EQ(r.code, 0) << r.output;
  for (const char* label : {"uint8:int32 sum inclusive: ", "int8:int32:int8 sum inclusive: ",
                            "float16:float32:float16 sum inclusive: "})
    EXPECT_NE(r.output.find(label), std::string::npos) << label << r.output;
  EXPECT_NE(r.output.find("total: 3 problems"), std::string::npos) << r.output;
  // lookback_bulk stages converting tiles at the input's width: searched too.
  EXPECT_NE(r.output.find("lookback_bulk"), std::string::npos) << r.output;
}

TEST_F(Cli, TuneWithoutAGpuExits77) {
  if (scantune::test::has_gpu()) GTEST_SKIP() << "a GPU is present";
  auto r = run("tune --db " + (dir / "t.db").string());
  EXPECT_EQ(r.code, 77) << r.output;
  EXPECT_NE(r.output.find("no CUDA device found"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "t.db")); // nothing created
}

TEST(CliTune, AllTunesTheStandardMatrix) {
  auto r = run("tune --all --dry-run");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("total: 36 problems"), std::string::npos) << r.output;
  for (const char* p : {"int32 sum inclusive:", "uint32 min exclusive:", "uint64 max inclusive:",
                        "float64 max exclusive:", "int64 min inclusive:", "float32 sum exclusive:"})
    EXPECT_NE(r.output.find(p), std::string::npos) << p << " missing in\n" << r.output;
  EXPECT_EQ(r.output.find(" product "), std::string::npos) << r.output;
  // The grid options still apply to every problem of the matrix.
  r = run("tune --all --force --dry-run --algorithms lookback_warp --block-threads 256");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("total: 36 problems"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("lookback_pipelined"), std::string::npos) << r.output;
}

TEST_F(Cli, TuneSimulatesARecordedRun) {
  fs::create_directories(dir);
  auto r = run(std::string("tune --simulate ") + SCANTUNE_RECORDED_DB +
               " --sizes 2^12,2^24 --progress lines --db " + (dir / "sim.db").string());
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("| 2^24 | lookback_warp."), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("n=2^12"), std::string::npos) << r.output; // progress lines
  EXPECT_TRUE(fs::exists(dir / "sim.db"));
}

} // namespace

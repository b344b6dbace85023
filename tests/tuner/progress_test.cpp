// Progress reporting: durations, and what each mode writes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "policy.hpp"
#include "scantune/scantune.hpp"
#include "tuner/report/progress.hpp"

namespace {

using scantune::tuner::format_duration;
using scantune::tuner::parse_duration;
using scantune::tuner::Progress;
using scantune::tuner::Result;
using scantune::tuner::run_seconds_left;
using scantune::tuner::seconds_left;

/// Everything written to `f` so far.
std::string contents(std::FILE* f) {
  std::fflush(f);
  std::string s;
  std::rewind(f);
  for (int c = std::fgetc(f); c != EOF; c = std::fgetc(f))
    s += static_cast<char>(c);
  return s;
}

Result ok_result(std::uint64_t n, double median_ns) {
  Result r;
  r.policy = scantune::Policy::parse("lookback_warp.tpb128.ipt24.vec4.warp_scans");
  r.size = n;
  r.median_ns = median_ns;
  return r;
}

TEST(Progress, ParsesDurations) {
  EXPECT_DOUBLE_EQ(parse_duration("90"), 90);
  EXPECT_DOUBLE_EQ(parse_duration("90s"), 90);
  EXPECT_DOUBLE_EQ(parse_duration("10m"), 600);
  EXPECT_DOUBLE_EQ(parse_duration("1.5h"), 5400);
  EXPECT_DOUBLE_EQ(parse_duration("1h30m"), 5400);
  EXPECT_DOUBLE_EQ(parse_duration("1h2m3s"), 3723);
  EXPECT_DOUBLE_EQ(parse_duration("2.5"), 2.5);
  EXPECT_DOUBLE_EQ(parse_duration("0"), 0);
}

TEST(Progress, RejectsBadDurations) {
  for (const char* bad : {"", "-5", "-5m", "abc", "5x", "1h30", "30m1h", "1m1m", "h", ".s", "1e3",
                          " 5", "5 m", "1.5.2h"}) {
    try {
      parse_duration(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const scantune::Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos)
          << e.what();
    }
  }
}

TEST(Progress, FormatsDurations) {
  EXPECT_EQ(format_duration(0), "0.0 s");
  EXPECT_EQ(format_duration(42), "42.0 s");
  EXPECT_EQ(format_duration(65), "1 min 05 s");
  EXPECT_EQ(format_duration(59.99), "1 min 00 s");
  EXPECT_EQ(format_duration(3599.7), "1 h 00 min");
  EXPECT_EQ(format_duration(2 * 3600 + 3 * 60 + 10), "2 h 03 min");
  EXPECT_EQ(format_duration(-3), "0.0 s"); // an estimate never goes negative
}

TEST(Progress, LinesModeWritesOneLinePerMeasurement) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    Progress p(f, Progress::Mode::Lines);
    p.begin("int32 sum inclusive", 300);
    p.step(ok_result(std::uint64_t{1} << 20, 5120));
    Result failed = ok_result(1000, 0);
    failed.status = scantune::db::MeasurementStatus::CompileError;
    failed.message = "too many registers\nsecond line";
    p.step(failed);
    p.note("winner at 2^20: lookback_warp");
    p.end();
    EXPECT_EQ(p.done(), 2u);
  }
  const std::string out = contents(f);
  std::fclose(f);
  EXPECT_EQ(out.find('\r'), std::string::npos) << out;
  for (const char* field :
       {" s] int32 sum inclusive  n=2^20  lookback_warp.tpb128.ipt24.vec4.warp_scans  ok  5.12 us"
        "  (1/300)\n",
        "n=1000  lookback_warp.tpb128.ipt24.vec4.warp_scans  compile_error  too many registers  "
        "(2/300)\n",
        "winner at 2^20: lookback_warp\n"})
    EXPECT_NE(out.find(field), std::string::npos) << "missing '" << field << "' in\n" << out;
  EXPECT_EQ(out.find("second line"), std::string::npos) << out;
  EXPECT_EQ(out.rfind("[", 0), 0u) << out; // starts with the elapsed time
}

TEST(Progress, BarModeRedrawsInPlaceWithAnEta) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    Progress p(f, Progress::Mode::Bar);
    p.begin("int32 sum inclusive", 4);
    EXPECT_EQ(p.eta(), "?");
    p.step(ok_result(std::uint64_t{1} << 20, 5000));
    p.step(ok_result(std::uint64_t{1} << 20, 5000));
    p.note("baseline memcpy: 3.00 us");
    p.end();
  }
  const std::string out = contents(f);
  std::fclose(f);
  EXPECT_NE(out.find('\r'), std::string::npos) << out;
  EXPECT_NE(out.find("int32 sum inclusive  2^20  ETA "), std::string::npos) << out;
  EXPECT_NE(out.find("2/4"), std::string::npos) << out;
  EXPECT_NE(out.find("baseline memcpy: 3.00 us\n"), std::string::npos) << out;
  EXPECT_EQ(out.back(), '\n') << out; // end() leaves the cursor on a fresh line
}

TEST(Progress, EtaNeverGoesNegativePastThePlan) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  Progress p(f, Progress::Mode::Quiet);
  p.begin("int32 sum inclusive", 1);
  for (int i = 0; i < 3; ++i)
    p.step(ok_result(1024, 100));
  EXPECT_EQ(p.eta(), "0.0 s");
  std::fclose(f);
}

TEST(Progress, SecondsLeftIsThePaceTimesWhatRemains) {
  EXPECT_DOUBLE_EQ(seconds_left(10.0, 5, 20), 30.0); // 2 s a measurement, 15 left
  EXPECT_DOUBLE_EQ(seconds_left(3.0, 3, 3), 0.0);
  EXPECT_DOUBLE_EQ(seconds_left(8.0, 4, 2), 0.0); // past an adaptive strategy's plan
  EXPECT_TRUE(std::isinf(seconds_left(1.0, 0, 10)));
  EXPECT_EQ(format_duration(seconds_left(1.0, 0, 10)), "?");
  // 36 problems of 900 measurements at 50 ms each: 27 min for the whole run.
  EXPECT_EQ(format_duration(seconds_left(0.05 * 900, 900, 36 * 900)), "26 min 15 s");
}

TEST(Progress, ARunsEtaFollowsTheFinishedProblemsPace) {
  // 100 s for the first 1000 planned measurements (however many were taken): 0.1 s a
  // planned one. 1500 planned after the current problem, whose 500 take 50 s, 10 gone.
  EXPECT_DOUBLE_EQ(run_seconds_left(100.0, 1000, 10.0, 500, 3000), 190.0);
  EXPECT_DOUBLE_EQ(run_seconds_left(100.0, 1000, 80.0, 500, 3000), 150.0); // past its share
  EXPECT_DOUBLE_EQ(run_seconds_left(100.0, 1000, 80.0, 500, 1500), 0.0);   // the last one
  EXPECT_TRUE(std::isinf(run_seconds_left(0.0, 0, 1.0, 500, 3000)));
  // A strategy that takes twice its plan: after one of 36 problems (2460 planned, 45 s),
  // the measurements' pace would say about 12 min; the problems' says 26 min 15 s.
  EXPECT_EQ(format_duration(run_seconds_left(45.0, 2460, 0.0, 2460, 36 * 2460)), "26 min 15 s");
  EXPECT_EQ(format_duration(seconds_left(45.0, 2 * 2460, 36 * 2460)), "12 min 45 s");
}

TEST(Progress, APlannedRunShowsTheProblemNumberAndTheRunEta) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    Progress p(f, Progress::Mode::Lines);
    EXPECT_EQ(p.run_eta(), "?"); // no plan
    p.plan_run(2, 4);
    p.begin("int32 sum inclusive", 2);
    p.step(ok_result(1024, 100));
    p.step(ok_result(2048, 100));
    p.end();
    p.begin("int32 sum exclusive", 2);
    p.end();
  }
  const std::string out = contents(f);
  EXPECT_NE(out.find("problem 1/2: int32 sum inclusive (2 measurements planned); run ETA ?\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("problem 2/2: int32 sum exclusive (2 measurements planned); run ETA "),
            std::string::npos)
      << out;
  std::fclose(f);

  f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    Progress p(f, Progress::Mode::Bar);
    p.plan_run(3, 30);
    p.begin("int64 max exclusive", 10);
    p.step(ok_result(1024, 100));
    p.end();
  }
  const std::string bar = contents(f);
  EXPECT_NE(bar.find("] 1/30  run ETA "), std::string::npos) << bar;
  EXPECT_NE(bar.find("  problem 1/3 int64 max exclusive"), std::string::npos) << bar;
  std::fclose(f);
}

TEST(Progress, QuietWritesNothing) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    Progress p(f, Progress::Mode::Quiet);
    p.begin("int32 sum inclusive", 2);
    p.step(ok_result(1024, 100));
    p.note("a note");
    p.end();
  }
  EXPECT_EQ(contents(f), "");
  std::fclose(f);
}

TEST(Progress, AutoModeIsLinesWhenNotATerminal) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(Progress::auto_mode(f), Progress::Mode::Lines);
  std::fclose(f);
}

} // namespace

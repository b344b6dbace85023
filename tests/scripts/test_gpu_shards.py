"""scripts/gpu_shards.py: the test list parsed, shards balanced by recorded times,
every test in exactly one shard, and times recorded from gtest logs."""

import io
import os
import subprocess
import sys

import pytest

SCRIPTS = os.path.join(os.path.dirname(__file__), "..", "..", "scripts")
sys.path.insert(0, SCRIPTS)
import gpu_shards  # noqa: E402

LISTING = """Running main() from ./googletest/src/gtest_main.cc
GpuTest.
  Slow
  Fast
Algorithms/GpuScanMatrix.
  AllTypes/lookback_warp  # GetParam() = 4-byte object <01-00 00-00>
  AllTypes/lookback_bulk  # GetParam() = 4-byte object <02-00 00-00>
Types/GpuLarge.  # TypeParam = int
  EveryAlgorithm/0
"""


def test_listing_gives_full_names_without_comments_or_the_banner():
    assert gpu_shards.listed_tests(io.StringIO(LISTING)) == [
        "GpuTest.Slow",
        "GpuTest.Fast",
        "Algorithms/GpuScanMatrix.AllTypes/lookback_warp",
        "Algorithms/GpuScanMatrix.AllTypes/lookback_bulk",
        "Types/GpuLarge.EveryAlgorithm/0",
    ]


def test_longest_first_onto_the_least_loaded_shard():
    times = {"a": 300, "b": 200, "c": 100, "d": 100, "e": 90}
    shards, loads = gpu_shards.plan(list(times), 2, times)
    assert sorted(n for s in shards for n in s) == sorted(times)  # each test once
    assert max(loads) == 400 and sum(loads) == 790
    # gtest's dealing by index would give a, c, e (490) and b, d (300)


def test_unknown_tests_cost_the_median_and_empty_shards_are_dropped():
    shards, loads = gpu_shards.plan(["x", "known"], 5, {"known": 50, "other": 10, "more": 90})
    assert len(shards) == 2 and sorted(loads) == [50, 50]
    shards, loads = gpu_shards.plan(["x", "y"], 3, {})
    assert len(shards) == 2 and loads == [1, 1]


def test_record_reads_ok_lines_only(tmp_path):
    log = tmp_path / "a.log"
    log.write_text(
        "[ RUN      ] GpuTest.Slow\n[       OK ] GpuTest.Slow (1234 ms)\n"
        "[  FAILED  ] GpuTest.Bad (5 ms)\n[----------] 1 test from GpuTest (1234 ms total)\n"
        "[       OK ] Types/GpuLarge.EveryAlgorithm/0 (7 ms)\n"
    )
    assert gpu_shards.recorded([str(log)]) == {
        "GpuTest.Slow": 1234,
        "Types/GpuLarge.EveryAlgorithm/0": 7,
    }


def run(*args, stdin=""):
    return subprocess.run(
        [sys.executable, os.path.join(SCRIPTS, "gpu_shards.py"), *args],
        input=stdin, capture_output=True, text=True)


def test_command_line_plans_filters_and_rejects_no_shards(tmp_path):
    times = tmp_path / "times.txt"
    times.write_text("GpuTest.Slow 900\nGpuTest.Fast 10\nnot a line\n")
    r = run("plan", "--shards", "2", "--times", str(times), stdin=LISTING)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 2 and lines[0].split(":")[0] == "GpuTest.Slow"  # longest first
    assert sorted(":".join(lines).split(":")) == sorted(gpu_shards.listed_tests(io.StringIO(LISTING)))
    r = run("plan", "--shards", "0", stdin=LISTING)
    assert r.returncode == 2 and "--shards 0" in r.stderr


@pytest.mark.parametrize("shards", [1, 3, 13])
def test_shipped_times_cover_the_slowest_tests(shards):
    times = gpu_shards.read_times(os.path.join(SCRIPTS, "gpu_test_times.txt"))
    assert len(times) > 100
    names = sorted(times)
    planned, loads = gpu_shards.plan(names, shards, times)
    assert sorted(n for s in planned for n in s) == names
    # no shard waits longer than the longest test or an even share, whichever is more,
    # by more than the longest test (LPT's bound)
    assert max(loads) <= max(max(times.values()), sum(loads) / shards) + max(times.values())

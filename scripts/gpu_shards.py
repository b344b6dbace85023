#!/usr/bin/env python3
"""Splits a gtest binary's tests into shards of about equal time, for GPU machines lent
minutes at a time: gtest's own sharding deals tests out by index, which left one of 13
runtime shards with 445 s of tests and another with 127 s.

  BINARY --gtest_list_tests --gtest_filter=F | gpu_shards.py plan --shards N [--times FILE]
      N lines, each a --gtest_filter value (tests joined by ':'); longest first onto the
      least loaded shard, with the times (ms) FILE records, unknown tests at the median
  gpu_shards.py record LOG... > FILE
      the "[       OK ] Name (N ms)" lines of gtest logs as "Name N" lines, sorted
"""

import argparse
import re
import statistics
import sys

OK_LINE = re.compile(r"^\[       OK \] (\S+) \((\d+) ms\)$")


def listed_tests(lines):
    """Full test names from --gtest_list_tests output ("Suite." then indented tests,
    parameterised ones followed by a "# GetParam() = ..." comment)."""
    suite, names = None, []
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            continue
        if not line.startswith(" "):
            head = line.split("#")[0].strip()
            suite = head if head.endswith(".") else None  # not "Running main() from ..."
        elif suite:
            names.append(suite + line.split("#")[0].strip())
    return names


def read_times(path):
    times = {}
    if path:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2 and parts[1].isdigit():
                    times[parts[0]] = int(parts[1])
    return times


def plan(names, shards, times):
    """Longest processing time first: each test onto the shard with the least time so
    far. Returns the shards' test lists (empty shards dropped) and their times."""
    default = statistics.median(times.values()) if times else 1
    cost = {n: times.get(n, default) for n in names}
    loads = [[0, i, []] for i in range(max(1, shards))]
    for name in sorted(names, key=lambda n: (-cost[n], n)):
        least = min(loads)
        least[0] += cost[name]
        least[2].append(name)
    used = [s for s in sorted(loads, key=lambda s: s[1]) if s[2]]
    return [s[2] for s in used], [s[0] for s in used]


def recorded(paths):
    times = {}
    for path in paths:
        with open(path, errors="replace") as f:
            for line in f:
                m = OK_LINE.match(line.rstrip("\n"))
                if m:
                    times[m.group(1)] = int(m.group(2))
    return times


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("plan", help="filters of balanced shards from a test list on stdin")
    p.add_argument("--shards", type=int, required=True)
    p.add_argument("--times", help="recorded test times (Name ms per line)")
    r = sub.add_parser("record", help="test times from gtest logs")
    r.add_argument("logs", nargs="+")
    args = parser.parse_args(argv)
    if args.command == "plan":
        if args.shards < 1:
            parser.error(f"--shards {args.shards}: expected at least 1")
        shards, loads = plan(listed_tests(sys.stdin), args.shards, read_times(args.times))
        for tests, load in zip(shards, loads):
            print(":".join(tests))
            print(f"shard of {len(tests)} tests, {load / 1000:.0f} s recorded", file=sys.stderr)
    else:
        for name, ms in sorted(recorded(args.logs).items()):
            print(name, ms)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Medians of `scantune bench --json` runs of several builds, side by side.

Input: files named `ab_<BUILD>_<ROUND>.json` (scripts/gpu_ab.sh writes them), each a
bench JSON (one object, or an array of them for several types). Prints a markdown
table: per type (with its --segments or --select pattern), series and size the median ns of each build over its rounds and the
first build's median over each other's (above 1: the other build is faster), with
the other build's spread (slowest over fastest round). Series whose policy differs
between builds at a size (a table row changed) are marked, as their ratio compares
different kernels.
    scripts/ab_summary.py OUT/ab_*.json [--series tuned,policy]
"""
import argparse
import json
import os
import re
import statistics

NAME = re.compile(r"ab_(?P<build>[A-Za-z0-9-]+)_(?P<round>\d+)\.json$")


def runs(paths):
    """(build, bench object) of each file, in the order given."""
    out = []
    for path in paths:
        m = NAME.search(os.path.basename(path))
        if not m:
            raise SystemExit(f"{path}: not named ab_<BUILD>_<ROUND>.json")
        with open(path) as f:
            data = json.load(f)
        for bench in data if isinstance(data, list) else [data]:
            out.append((m.group("build"), bench))
    return out


def label(bench):
    """The bench's type, with its segmentation or compaction pattern where it has one."""
    return " ".join(x for x in (bench["type"], bench.get("segments"), bench.get("select")) if x)


def collect(paths, series):
    """{(type, series, size): {build: [(ns, policy), ...]}} and the builds in order."""
    table, builds = {}, []
    for build, bench in runs(paths):
        if build not in builds:
            builds.append(build)
        for s in bench["series"]:
            if s["name"] not in series:
                continue
            for p in s["points"]:
                key = (label(bench), s["name"], p["size"])
                timed = (p["ns"], p.get("policy", ""))
                table.setdefault(key, {}).setdefault(build, []).append(timed)
    return table, builds


def size_label(n):
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def rows(table, builds):
    """One row per key with every build: medians, ratios and spreads."""
    out = []
    for key in sorted(table):
        per = table[key]
        if any(b not in per for b in builds):
            continue
        med = {b: statistics.median(ns for ns, _ in per[b]) for b in builds}
        policies = {pol for b in builds for _, pol in per[b]}
        first = builds[0]
        ratios = [med[first] / med[b] for b in builds[1:]]
        spreads = [max(ns for ns, _ in per[b]) / min(ns for ns, _ in per[b]) for b in builds[1:]]
        out.append((key, med, ratios, spreads, len(policies) > 1))
    return out


def markdown(table, builds):
    head = ["type", "series", "n"] + [f"{b} us" for b in builds]
    head += [f"{builds[0]} / {b} (spread)" for b in builds[1:]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (type_, series, size), med, ratios, spreads, mixed in rows(table, builds):
        cells = [type_, series + (" (policies differ)" if mixed else ""), size_label(size)]
        cells += [f"{med[b] / 1e3:.2f}" for b in builds]
        cells += [f"{r:.3f} ({s:.3f})" for r, s in zip(ratios, spreads)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--series", default="tuned,policy", help="bench series to compare")
    a = ap.parse_args()
    table, builds = collect(a.files, set(a.series.split(",")))
    if len(builds) < 2:
        raise SystemExit("need runs of at least two builds")
    print(markdown(table, builds))


if __name__ == "__main__":
    main()

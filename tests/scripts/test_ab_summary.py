"""scripts/ab_summary.py: bench JSONs of several builds grouped by type, series and
size; medians over rounds, the first build's median over the others', spreads, and
a mark where the builds ran different policies."""

import json
import os
import sys

import pytest

SCRIPTS = os.path.join(os.path.dirname(__file__), "..", "..", "scripts")
sys.path.insert(0, SCRIPTS)
import ab_summary  # noqa: E402


def point(size, ns, policy):
    return {"size": size, "ns": ns, "policy": policy}


def bench(type_, points, policy="lookback_bulk.tpb256.ipt32.vec4.warp_scans.st7"):
    """A bench object as `scantune bench --json` writes it: tuned and memcpy series."""
    return {
        "format": "scantune-bench",
        "type": type_,
        "op": "sum",
        "kind": "inclusive",
        "series": [
            {"name": "tuned", "points": [point(n, ns, policy) for n, ns in points]},
            {"name": "memcpy", "points": [point(n, 1.0, "") for n, _ in points]},
        ],
    }


def write(tmp_path, build, round_, data):
    path = tmp_path / f"ab_{build}_{round_}.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_medians_ratios_and_spreads_in_the_order_given(tmp_path):
    times = {  # build: (int32 at 2^24, uint8 at 2^28) per round
        "main": [(100.0, 50.0), (104.0, 52.0), (102.0, 51.0)],
        "new": [(98.0, 40.0), (102.0, 60.0), (100.0, 51.0)],
    }
    files = [
        write(tmp_path, b, r + 1, [bench("int32", [(1 << 24, i)]), bench("uint8", [(1 << 28, u)])])
        for b, rounds in times.items()
        for r, (i, u) in enumerate(rounds)
    ]
    table, builds = ab_summary.collect(files, {"tuned"})
    assert builds == ["main", "new"]
    got = {row[0]: row[1:] for row in ab_summary.rows(table, builds)}
    med, ratios, spreads, mixed = got[("int32", "tuned", 1 << 24)]
    assert med == {"main": 102.0, "new": 100.0}
    assert ratios == [pytest.approx(1.02)]
    assert spreads == [pytest.approx(102.0 / 98.0)]
    assert not mixed
    assert got[("uint8", "tuned", 1 << 28)][1] == [pytest.approx(1.0)]  # medians 51 and 51
    assert ("int32", "memcpy", 1 << 24) not in got  # only the series asked for
    text = ab_summary.markdown(table, builds)
    assert "| int32 | tuned | 2^24 | 0.10 | 0.10 | 1.020 (1.041) |" in text


def test_a_size_whose_policies_differ_is_marked(tmp_path):
    files = [
        write(tmp_path, "a", 1, bench("float16", [(1 << 28, 400.0)], "lookback_pipelined.tpb384")),
        write(tmp_path, "b", 1, bench("float16", [(1 << 28, 360.0)], "lookback_bulk.tpb256")),
    ]
    table, builds = ab_summary.collect(files, {"tuned"})
    assert "tuned (policies differ)" in ab_summary.markdown(table, builds)


def test_files_must_name_their_build_and_round(tmp_path):
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(bench("int32", [(1024, 1.0)])))
    with pytest.raises(SystemExit, match="ab_<BUILD>_<ROUND>"):
        ab_summary.collect([str(path)], {"tuned"})


def test_segmented_and_compaction_benches_keep_their_patterns_apart(tmp_path):
    def select(pattern, ns):
        doc = bench("int32", [(1 << 24, ns)])
        doc["select"] = pattern
        return doc

    files = [
        write(tmp_path, b, 1, [select("flags:0.5", half), select("flags:0.05", tenth)])
        for b, half, tenth in (("table", 100.0, 60.0), ("tuned", 95.0, 60.0))
    ]
    table, builds = ab_summary.collect(files, {"tuned"})
    got = {row[0]: row[2] for row in ab_summary.rows(table, builds)}
    assert got[("int32 flags:0.5", "tuned", 1 << 24)] == [pytest.approx(100.0 / 95.0)]
    assert got[("int32 flags:0.05", "tuned", 1 << 24)] == [pytest.approx(1.0)]

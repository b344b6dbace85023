#!/usr/bin/env python3
"""Stall reasons and instruction mix of Nsight Compute raw exports, one column each.

Input: `ncu --import R.ncu-rep --page raw --csv --print-metric-instances details`
files (scripts/gpu_ncu.sh writes them). Prints a markdown table: duration, DRAM
throughput, executed warp instructions, cycles per issued instruction and its
split by stall reason (reasons under 0.5 cycles everywhere are left out), then
the opcodes that make up the most executed instructions.
    scripts/ncu_summary.py ncu_st.raw.csv ncu_cub.raw.csv [--opcodes 12]
"""
import argparse
import csv
import os
import re

STALL = re.compile(r"smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio$")
ROWS = [
    ("duration, us", "gpu__time_duration.sum"),
    ("DRAM, % of peak", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"),
    ("grid x block", None),
    ("warp instructions executed", "smsp__inst_executed.sum"),
    ("cycles per issued instruction", "smsp__average_warp_latency_per_inst_issued.ratio"),
]


def load(path):
    lines = open(path).read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    rows = list(csv.reader(lines[start:]))
    return dict(zip(rows[0], rows[2]))


def num(text):
    try:
        return float(text.strip().split(" ")[0].replace(",", ""))
    except ValueError:
        return 0.0


def opcodes(text):
    """'N (OP: n; OP: n; ...)' -> {OP: n}"""
    inner = text[text.find("(") + 1 : text.rfind(")")]
    out = {}
    for part in inner.split(";"):
        if ":" in part:
            op, n = part.split(":")
            out[op.strip()] = num(n)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--opcodes", type=int, default=12)
    args = ap.parse_args()
    runs = [(os.path.basename(f).replace(".raw.csv", ""), load(f)) for f in args.files]
    print("| metric | " + " | ".join(n for n, _ in runs) + " |")
    print("|---|" + "---:|" * len(runs))
    for label, key in ROWS:
        if key is None:
            cells = [f"{num(d.get('launch__grid_size', '0')):.0f} x "
                     f"{num(d.get('launch__block_size', '0')):.0f}" for _, d in runs]
        else:
            cells = [f"{num(d.get(key, '0')):,.2f}".rstrip("0").rstrip(".") for _, d in runs]
        print(f"| {label} | " + " | ".join(cells) + " |")
    reasons = sorted({m.group(1) for _, d in runs for k in d for m in [STALL.match(k)] if m})
    for r in reasons:
        key = f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio"
        vals = [num(d.get(key, "0")) for _, d in runs]
        if max(vals) >= 0.5:
            print(f"| stall: {r} | " + " | ".join(f"{v:.1f}" for v in vals) + " |")
    mixes = [opcodes(d.get("sass__inst_executed_per_opcode", "")) for _, d in runs]
    totals = {}
    for m in mixes:
        for op, n in m.items():
            totals[op] = totals.get(op, 0) + n
    for op in sorted(totals, key=totals.get, reverse=True)[: args.opcodes]:
        print(f"| {op} | " + " | ".join(f"{m.get(op, 0):,.0f}" for m in mixes) + " |")


if __name__ == "__main__":
    main()

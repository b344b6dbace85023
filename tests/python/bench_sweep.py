"""scantune.cumsum over row lengths 2^0..2^20 and row counts 2^0..2^24, both layouts.

Against torch.cumsum and a copy of the same tensor (memcpy), cell by cell.

"rows": a (rows, len) tensor scanned along dim 1 (batched rows); "columns": a
(len, rows) tensor scanned along dim 0 (an axis scan, each column a row to scan).
Cells of more than 2^max-log2n elements are skipped, but every length keeps the
largest row count under the cap, so both millions of short rows and a few long rows
are run. Cells of fewer than 2^min-log2n elements are skipped too. Each result is
checked first (bench_dims.checked), then timed.

What is timed is GPU throughput: CUDA events around a batch of back-to-back calls
(enough for about 0.5 ms, 1 to 100 calls; bench_dims.timed_batches), the batch's
time over its calls, the median of repeats; the same for the scan, torch and the
copy. A small cell's host time to launch a call then overlaps the GPU's work rather
than being counted once per call (where the host's time per call exceeds the GPU's,
the launch rate still bounds it). The latency of one call, host path included, is
what bench_cumsum.py and bench_call.py measure. "x memcpy" is the copy's time over
the scan's; "x torch" torch's time over the scan's.

    python3 tests/python/bench_sweep.py [--step 2] [--max-log2n 26] [--min-log2n 0]
        [--dtype float32] [--csv sweep.csv] [--svg sweep.svg] [--repeats 50] [--quick]

--quick runs a smoke grid (step 4, cap 2^24). Prints a markdown summary per layout
(over all cells, and over the bandwidth-bound cells of at least 2^22 elements; and
each cell to stderr as it runs); exits 1 when a result was wrong or a call failed
(that cell is left out and drawn empty).
"""

import csv
import statistics
import sys
from collections import namedtuple
from xml.sax.saxutils import escape

MAX_LOG2_LEN, MAX_LOG2_ROWS = 20, 24
TARGET = 0.7  # the least x memcpy any shape should reach
LARGE_LOG2N = 22  # cells of at least 2^this elements are bound by bandwidth, not launches
LAYOUTS = ("rows", "columns")
CSV_FIELDS = ["layout", "len", "rows", "n", "ours_ms", "torch_ms", "copy_ms", "x_memcpy",
              "x_torch"]


class Result(namedtuple("Result", "layout len rows ours_ms torch_ms copy_ms")):
    """One cell of one layout: its shape (len elements per row) and the three times."""

    @property
    def n(self):
        return self.len * self.rows

    @property
    def x_memcpy(self):
        return self.copy_ms / self.ours_ms

    @property
    def x_torch(self):
        return self.torch_ms / self.ours_ms

    @property
    def log2(self):
        """(log2 len, log2 rows): the cell's place in the grid."""
        return self.len.bit_length() - 1, self.rows.bit_length() - 1


def steps(top, step):
    """0, step, 2 step, ... up to top, with top itself: the extremes always run."""
    values = list(range(0, top + 1, step))
    return values if values[-1] == top else values + [top]


def grid(step=2, max_log2n=26, min_log2n=0):
    """The (log2 len, log2 rows) cells to run: every pair of steps within the cap on
    len x rows, and for each len the largest row count the cap allows; none of fewer
    than 2^min_log2n elements."""
    cells = []
    for log_len in steps(MAX_LOG2_LEN, step):
        room = min(MAX_LOG2_ROWS, max_log2n - log_len)
        if room < 0:
            continue
        rows = [r for r in steps(MAX_LOG2_ROWS, step) if r <= room]
        cells += [(log_len, r) for r in rows + ([room] if room not in rows else [])]
    return [c for c in cells if sum(c) >= min_log2n]


def grid_options(step, max_log2n, quick):
    """(step, cap): --quick's (4, 24), else (2, 26), where not given explicitly."""
    default_step, default_cap = (4, 24) if quick else (2, 26)
    return (default_step if step is None else step,
            default_cap if max_log2n is None else max_log2n)


def write_csv(path, results):
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(CSV_FIELDS)
        for r in results:
            out.writerow([r.layout, r.len, r.rows, r.n, f"{r.ours_ms:.6f}", f"{r.torch_ms:.6f}",
                          f"{r.copy_ms:.6f}", f"{r.x_memcpy:.4f}", f"{r.x_torch:.4f}"])


def _worst(rs):
    """The worst x memcpy of rs (sorted by it, not empty), and how many miss the target."""
    below = sum(r.x_memcpy < TARGET for r in rs)
    return (f"worst {rs[0].x_memcpy:.2f}x memcpy (len 2^{rs[0].log2[0]}, rows "
            f"2^{rs[0].log2[1]}); {below} below {TARGET}x memcpy")


def summary(results, worst=5):
    """Markdown, per layout: the worst x memcpy and how many cells fall below the
    target, over all cells and over those of at least 2^LARGE_LOG2N elements; the
    median x torch, and the worst cells."""
    lines = []
    for layout in LAYOUTS:
        rs = sorted((r for r in results if r.layout == layout), key=lambda r: r.x_memcpy)
        if not rs:
            continue
        large = [r for r in rs if r.n >= 1 << LARGE_LOG2N]
        lines += [f"### {layout} layout", "",
                  f"{len(rs)} cells; {_worst(rs)}; median "
                  f"{statistics.median(r.x_torch for r in rs):.2f}x torch", "",
                  f"{len(large)} cells of at least 2^{LARGE_LOG2N} elements (bandwidth-bound)"
                  + (f"; {_worst(large)}" if large else ""), "",
                  "| len | rows | scantune us | copy us | x memcpy | x torch |",
                  "|---|---|---:|---:|---:|---:|"]
        lines += [f"| 2^{r.log2[0]} | 2^{r.log2[1]} | {r.ours_ms * 1e3:.1f} | "
                  f"{r.copy_ms * 1e3:.1f} | {r.x_memcpy:.2f} | {r.x_torch:.2f} |"
                  for r in rs[:worst]]
        lines.append("")
    return "\n".join(lines)


# The heat map: x memcpy on a fixed scale, warm below the target and green above it,
# so the cells that miss it stand out whatever the rest look like.
LOW, BELOW, ABOVE, HIGH = (165, 0, 38), (254, 224, 139), (217, 240, 211), (27, 120, 55)
CELL_W, CELL_H, LEFT, TOP, BOTTOM, GAP, LEGEND_W = 38, 20, 56, 64, 48, 64, 90
MIN_PANEL_W = 260  # room for the panel's title on small grids


def colour(x):
    """x memcpy on the fixed scale 0 .. 1.0 (clamped), split at the target."""
    x = min(max(x, 0.0), 1.0)
    a, b, t = (LOW, BELOW, x / TARGET) if x < TARGET else (ABOVE, HIGH,
                                                           (x - TARGET) / (1 - TARGET))
    return tuple(round(p + (q - p) * t) for p, q in zip(a, b))


def _hex(rgb):
    return "#%02x%02x%02x" % rgb


def _text(x, y, s, anchor="middle", size=11, extra=""):
    return (f'<text x="{x:g}" y="{y:g}" text-anchor="{anchor}" font-size="{size}"{extra}>'
            f"{escape(s)}</text>")


def _cell(x, y, cell, r):
    """A cell run (coloured, labelled, its numbers in a tooltip) or not run (dashed)."""
    box = f'x="{x:g}" y="{y:g}" width="{CELL_W}" height="{CELL_H}"'
    if r is None:
        return [f'<rect class="empty" {box} fill="none" stroke="#999" stroke-dasharray="2,2"/>']
    rgb = colour(r.x_memcpy)
    ink = "#fff" if 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] < 140 else "#000"
    return [f'<rect class="cell" {box} fill="{_hex(rgb)}" stroke="#fff"><title>len 2^{cell[0]}, '
            f"rows 2^{cell[1]}: {r.x_memcpy:.2f}x memcpy, {r.x_torch:.2f}x torch</title></rect>",
            _text(x + CELL_W / 2, y + CELL_H / 2 + 4, f"{r.x_memcpy:.2f}", size=10,
                  extra=f' fill="{ink}"')]


def _axes(left, xs, ys):
    """Tick labels (the log2 values) and axis titles around cells starting at left."""
    bottom, mid = TOP + len(ys) * CELL_H, TOP + len(ys) * CELL_H / 2
    out = [_text(left + (i + 0.5) * CELL_W, bottom + 14, str(v)) for i, v in enumerate(xs)]
    out += [_text(left - 6, TOP + (len(ys) - 1 - j) * CELL_H + CELL_H / 2 + 4, str(v), "end")
            for j, v in enumerate(ys)]
    return out + [_text(left + len(xs) * CELL_W / 2, bottom + 34, "log2 len (elements per row)"),
                  _text(left - 34, mid, "log2 rows",
                        extra=f' transform="rotate(-90 {left - 34:g} {mid:g})"')]


def _panel(x0, width, layout, cells, results, axes):
    """One layout's grid, centred in width at x0: every cell of the grid, run or not."""
    xs, ys = axes
    left = x0 + (width - len(xs) * CELL_W) / 2
    by_cell = {r.log2: r for r in results if r.layout == layout}
    shape = "(rows, len), dim 1" if layout == "rows" else "(len, rows), dim 0"
    out = [_text(x0 + width / 2, TOP - 10, f"{layout} layout: {shape}", size=13)]
    for cell in cells:
        out += _cell(left + xs.index(cell[0]) * CELL_W,
                     TOP + (len(ys) - 1 - ys.index(cell[1])) * CELL_H, cell, by_cell.get(cell))
    return out + _axes(left, xs, ys)


def _legend(x0, height, slices=50):
    """The colour bar, 0 at the bottom and 1.0 at the top, the target marked."""
    step_h = height / slices
    out = [f'<rect class="legend" x="{x0}" y="{TOP + height - (i + 1) * step_h:g}" width="16" '
           f'height="{step_h:g}" fill="{_hex(colour((i + 0.5) / slices))}"/>'
           for i in range(slices)]
    for v, label in ((0.0, "0"), (0.5, "0.5"), (1.0, ">= 1.0")):
        out.append(_text(x0 + 20, TOP + height * (1 - v) + 4, label, "start", 10))
    y = TOP + height * (1 - TARGET)
    out += [f'<line class="mark" x1="{x0 - 4}" y1="{y:g}" x2="{x0 + 20}" y2="{y:g}" '
            'stroke="#000" stroke-width="2"/>',
            _text(x0 + 22, y + 4, f"{TARGET} target", "start", 10, ' font-weight="bold"'),
            _text(x0 + 8, TOP - 10, "x memcpy", size=11)]
    return out


def heatmap_svg(cells, results, title):
    """Both layouts side by side: x = log2 len, y = log2 rows, each cell coloured and
    labelled with its x memcpy; cells of the grid that did not run are drawn empty."""
    axes = (sorted({c[0] for c in cells}), sorted({c[1] for c in cells}))
    panel_w, panel_h = max(len(axes[0]) * CELL_W, MIN_PANEL_W), len(axes[1]) * CELL_H
    width = LEFT + 2 * panel_w + GAP + 24 + LEGEND_W
    height = TOP + panel_h + BOTTOM
    body = [_text(width / 2, 22, title, size=15, extra=' font-weight="bold"')]
    for i, layout in enumerate(LAYOUTS):
        body += _panel(LEFT + i * (panel_w + GAP), panel_w, layout, cells, results, axes)
    body += _legend(LEFT + 2 * panel_w + GAP + 24, panel_h)
    return "\n".join([f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
                      f'height="{height}" viewBox="0 0 {width} {height}" '
                      'font-family="sans-serif" style="background:#fff">'] + body + ["</svg>", ""])


def run_cell(layout, log_len, log_rows, dtype, repeats):
    """One cell: a Result, or what went wrong where scantune's result is wrong or the
    call fails (the sweep goes on; main reports them)."""
    import torch

    import scantune
    from bench_dims import checked, data, timed_batches

    length, rows = 1 << log_len, 1 << log_rows
    shape, dim = ((rows, length), 1) if layout == "rows" else ((length, rows), 0)
    x = data(shape, dtype)
    out = torch.empty_like(x)
    try:
        ok = checked(x, dim, out)
    except (scantune.ScantuneError, ValueError, TypeError) as e:
        ok = f"{type(e).__name__}: {e}"
    if ok != "ok":
        return ok
    times = [timed_batches(fn, repeats) / 1e3 for fn in (
        lambda: scantune.cumsum(x, dim=dim, dtype=dtype, out=out),
        lambda: torch.cumsum(x, dim, dtype=dtype, out=out),
        lambda: out.copy_(x))]
    return Result(layout, length, rows, *times)


def main():
    import torch

    from bench_cumsum import setup

    args, _ = setup(__doc__.splitlines()[0], [
        ("--step", "log2 step of the grid (default 2; 4 with --quick)", {"type": int}),
        ("--max-log2n", "skip cells of more elements than 2^this (default 26; 24 with --quick)",
         {"type": int}),
        ("--min-log2n", "skip cells of fewer elements than 2^this", {"type": int, "default": 0}),
        ("--dtype", "element type", {"choices": ["float32", "int32"], "default": "float32"}),
        ("--csv", "write every cell's times here", {}),
        ("--svg", "write the heat map here", {}),
        ("--quick", "a smoke grid: step 4, cap 2^24")])
    cells = grid(*grid_options(args.step, args.max_log2n, args.quick), args.min_log2n)
    dtype = getattr(torch, args.dtype)
    results, wrong = [], []
    for layout in LAYOUTS:
        for log_len, log_rows in cells:
            r = run_cell(layout, log_len, log_rows, dtype, args.repeats)
            cell = f"{layout} len 2^{log_len} rows 2^{log_rows}"
            if isinstance(r, Result):
                results.append(r)
                r = f"{r.x_memcpy:.2f}x memcpy, {r.x_torch:.2f}x torch"
            else:
                wrong.append(f"{cell}: {r}")
            print(f"{cell}: {r}", file=sys.stderr, flush=True)  # progress, and a partial log
            torch.cuda.empty_cache()
    if args.csv:
        write_csv(args.csv, results)
    if args.svg:
        with open(args.svg, "w") as f:
            f.write(heatmap_svg(cells, results, f"scantune.cumsum {args.dtype}, "
                                f"{torch.cuda.get_device_name()}: x memcpy"))
    print(summary(results))
    for line in wrong:
        print(f"WRONG: {line}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())

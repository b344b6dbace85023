"""bench_sweep's pure-Python parts without a GPU (or torch): the grid, the CSV, the
markdown summary, the heat map, and the batched timing against a fake clock."""

import csv
import sys
import types
import xml.etree.ElementTree as ET

import pytest

import bench_sweep as sweep

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("step,cap", [(2, 26), (4, 24), (3, 26), (1, 20), (2, 30)])
def test_grid_keeps_the_cap_and_the_step_and_runs_both_extremes(step, cap):
    cells = sweep.grid(step, cap)
    assert len(set(cells)) == len(cells)
    assert all(a + b <= cap for a, b in cells)
    lens = sorted({a for a, _ in cells})
    assert lens[0] == 0 and lens[-1] == sweep.MAX_LOG2_LEN
    assert all(a % step == 0 or a == sweep.MAX_LOG2_LEN for a in lens)
    for a in lens:
        rows = [b for c, b in cells if c == a]
        room = min(sweep.MAX_LOG2_ROWS, cap - a)
        assert max(rows) == room  # the most rows the cap allows for this len
        assert all(b % step == 0 for b in rows if b != room)
    # millions of short rows and a few long rows
    assert (0, min(sweep.MAX_LOG2_ROWS, cap)) in cells
    assert (sweep.MAX_LOG2_LEN, min(sweep.MAX_LOG2_ROWS, cap - sweep.MAX_LOG2_LEN)) in cells


def test_default_grid_is_every_other_power_under_2_to_26():
    cells = sweep.grid()
    assert len(cells) == 98
    assert (0, 24) in cells and (2, 24) in cells and (4, 22) in cells and (4, 24) not in cells
    assert (20, 6) in cells and (20, 8) not in cells and (1, 0) not in cells


@pytest.mark.parametrize("low", [0, 10, 22, 26])
def test_grid_skips_cells_below_the_floor(low):
    every = sweep.grid(2, 26)
    cells = sweep.grid(2, 26, low)
    assert cells == [c for c in every if sum(c) >= low]
    assert all(a + b >= low for a, b in cells) and (20, 6) in cells
    assert (low == 0) == (cells == every)


def test_grid_options_quick_and_explicit():
    assert sweep.grid_options(None, None, False) == (2, 26)
    assert sweep.grid_options(None, None, True) == (4, 24)
    assert sweep.grid_options(1, None, True) == (1, 24)
    assert sweep.grid_options(None, 22, False) == (2, 22)


def results(cells):
    """A Result per cell and layout, x memcpy spread over 0.1 .. 1.3."""
    return [sweep.Result(layout, 1 << a, 1 << b, 0.1, 0.1 * (1 + i % 7), 0.01 * (1 + i % 13))
            for layout in sweep.LAYOUTS for i, (a, b) in enumerate(cells)]


def test_result_ratios():
    r = sweep.Result("rows", 16, 1 << 20, 0.2, 1.0, 0.15)
    assert r.n == 1 << 24 and r.log2 == (4, 20)
    assert r.x_memcpy == pytest.approx(0.75) and r.x_torch == pytest.approx(5.0)


def test_csv_has_the_header_and_a_row_per_result(tmp_path):
    rs = results(sweep.grid(4, 24))
    path = tmp_path / "sweep.csv"
    sweep.write_csv(path, rs)
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["layout", "len", "rows", "n", "ours_ms", "torch_ms", "copy_ms",
                       "x_memcpy", "x_torch"]
    assert len(rows) == 1 + len(rs)
    first = dict(zip(rows[0], rows[1]))
    assert first["layout"] == "rows" and int(first["n"]) == int(first["len"]) * int(first["rows"])
    assert float(first["x_memcpy"]) == pytest.approx(rs[0].x_memcpy, rel=1e-3)
    assert float(first["x_torch"]) == pytest.approx(rs[0].x_torch, rel=1e-3)


def test_summary_names_the_worst_cells_of_each_layout():
    rs = [sweep.Result("rows", 4, 1 << 20, 1.0, 2.0, 0.5),
          sweep.Result("rows", 1024, 16, 1.0, 4.0, 0.9),
          sweep.Result("rows", 1, 1, 1.0, 3.0, 0.95),
          sweep.Result("columns", 16, 64, 1.0, 1.0, 0.2)]
    text = sweep.summary(rs)
    rows_part, columns_part = text.split("### columns layout")
    assert "3 cells; worst 0.50x memcpy (len 2^2, rows 2^20); 1 below 0.7x memcpy; " \
           "median 3.00x torch" in rows_part
    assert rows_part.index("| 2^2 | 2^20 |") < rows_part.index("| 2^10 | 2^4 |")
    assert "1 cells; worst 0.20x memcpy (len 2^4, rows 2^6); 1 below" in columns_part


def test_summary_reports_the_bandwidth_bound_cells_apart():
    rs = [sweep.Result("rows", 1, 1, 1.0, 2.0, 0.1),  # worst overall: a launch-bound cell
          sweep.Result("rows", 4, 1 << 20, 1.0, 2.0, 0.6),  # 2^22: bandwidth-bound
          sweep.Result("rows", 1 << 20, 1 << 4, 1.0, 2.0, 0.65),
          sweep.Result("rows", 16, 1 << 16, 1.0, 2.0, 0.9),
          sweep.Result("columns", 16, 64, 1.0, 1.0, 0.2)]
    rows_part, columns_part = sweep.summary(rs).split("### columns layout")
    assert "4 cells; worst 0.10x memcpy (len 2^0, rows 2^0); 3 below 0.7x memcpy" in rows_part
    assert "2 cells of at least 2^22 elements (bandwidth-bound); worst 0.60x memcpy " \
           "(len 2^2, rows 2^20); 2 below 0.7x memcpy" in rows_part
    assert "0 cells of at least 2^22 elements (bandwidth-bound)\n" in columns_part


def test_summary_shows_at_most_five_cells_a_layout():
    text = sweep.summary(results(sweep.grid()))
    assert sum(line.startswith("| 2^") for line in text.splitlines()) == 10


def parse(svg):
    return ET.fromstring(svg)


def test_heatmap_is_xml_with_a_rect_per_cell_run_the_legend_and_the_target():
    cells = sweep.grid()
    rs = results(cells)[:-5]  # the last columns cells did not run
    root = parse(sweep.heatmap_svg(cells, rs, "scantune.cumsum float32 <test> & more"))
    assert root.tag == SVG + "svg"
    rects = root.findall(f"{SVG}rect")
    by_class = {}
    for r in rects:
        by_class.setdefault(r.get("class"), []).append(r)
    assert len(by_class["cell"]) == len(rs)
    assert len(by_class["empty"]) == 5
    assert by_class["legend"] and set(by_class) == {"cell", "empty", "legend"}
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert "scantune.cumsum float32 <test> & more" in texts
    assert "0.7 target" in texts and len(root.findall(f"{SVG}line[@class='mark']")) == 1
    assert any("log2 len" in t for t in texts) and "log2 rows" in texts
    assert any(t.startswith("rows layout") for t in texts)
    assert any(t.startswith("columns layout") for t in texts)
    labels = {f"{r.x_memcpy:.2f}" for r in rs}
    assert labels <= set(texts)


def test_cells_are_coloured_on_a_fixed_scale():
    assert sweep.colour(-1.0) == sweep.colour(0.0) == sweep.LOW
    assert sweep.colour(1.0) == sweep.colour(5.0) == sweep.HIGH
    assert sweep.colour(0.7) == sweep.ABOVE  # the target is met at 0.7
    assert sweep.colour(0.6999) != sweep.colour(0.7)  # a visible step at the target
    cell = sweep.Result("rows", 4, 4, 1.0, 1.0, 0.35)
    root = parse(sweep.heatmap_svg([(2, 2)], [cell], "t"))
    fill = root.find(f"{SVG}rect[@class='cell']").get("fill")
    assert fill == "#%02x%02x%02x" % sweep.colour(0.35)


@pytest.fixture
def bench_dims(monkeypatch):
    """bench_dims imported against a fake torch whose CUDA events read a clock that
    each call of `call` moves by 20 us (the GPU's time per call); yields the module
    with `call` and `batches()`, the calls made between each pair of events."""
    clock, calls, marks = [0.0], [0], []

    class Event:
        def __init__(self, enable_timing=False):
            self.at = None

        def record(self):
            self.at = clock[0]
            marks.append(calls[0])

        def synchronize(self):
            pass

        def elapsed_time(self, end):
            return end.at - self.at

    fake = types.ModuleType("torch")
    fake.cuda = types.SimpleNamespace(Event=Event)
    fake.float32 = fake.int32 = fake.int64 = fake.int8 = fake.float16 = object()
    monkeypatch.setitem(sys.modules, "torch", fake)
    for name in ("bench_dims", "bench_cumsum"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    import bench_dims

    def call():
        clock[0] += 0.02
        calls[0] += 1
    bench_dims.call = call
    bench_dims.batches = lambda: [e - s for s, e in zip(marks[0::2], marks[1::2])]
    yield bench_dims
    for name in ("bench_dims", "bench_cumsum"):
        sys.modules.pop(name, None)


def test_timed_batches_times_back_to_back_calls_over_their_number(bench_dims):
    us = bench_dims.timed_batches(bench_dims.call, repeats=5)
    assert us == pytest.approx(20.0)
    batches = bench_dims.batches()
    assert batches[0] == 1 and max(batches) == 25  # one call, then batches of 0.5 ms


@pytest.mark.parametrize("first,k", [(0.02, 25), (0.5, 1), (3.0, 1), (1e-3, 100), (0.0, 100),
                                     (0.3, 2)])
def test_batch_size_fills_half_a_millisecond(bench_dims, first, k):
    assert bench_dims.batch_size(first) == k


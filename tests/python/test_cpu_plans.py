"""Plans of repeated calls without a GPU: a dense scan along a dim that calls the
library on the input itself is validated and bound once per call signature, and
every other scan along a dim (casts, strided views, custom operators along an outer
axis) takes its copies on every call, against the recording library."""

import pytest

import scantune
from scantune import _api

from fakes import NumpyArray, TorchArray

INT32, INT64, FLOAT32 = 0, 2, 4
SUM, MAX = 0, 3


@pytest.fixture
def plans(recording, monkeypatch):
    """recording's (library, torch framework), no plans kept yet, and a list counting
    the C calls bound (one per _flat_scanner)."""
    lib, frameworks = recording
    monkeypatch.setattr(_api, "_PLANS", {})
    built = []
    scanner = _api._flat_scanner

    def counting(*args):
        built.append(args[1])
        return scanner(*args)
    monkeypatch.setattr(_api, "_flat_scanner", counting)
    yield lib, frameworks["torch"], built


def twice(lib, call):
    """The recorded C call of call() and of call() again, each one C call."""
    recorded = []
    for _ in range(2):
        lib.calls.clear()
        call()
        assert len(lib.calls) == 1, lib.calls
        recorded.append(lib.calls[0])
    return recorded


def test_rows_are_planned(plans):
    lib, fw, built = plans
    x = TorchArray((4, 16), "int64")
    first, again = twice(lib, lambda: scantune.cumsum(x, dim=1))
    assert first.name == again.name == "scantune_segmented_scan"
    assert first.args[1:5] == (INT64, SUM, 0, x.ptr) and first.args[6:9] == (64, None, 16)
    assert again.args[:5] == first.args[:5] and again.args[6:] == first.args[6:]
    assert again.args[5] != first.args[5]  # a new result each call
    assert built == ["int64"] and fw.copies == []


def test_axis_scans_with_out_are_planned(plans):
    lib, fw, built = plans
    x, out = TorchArray((4, 8, 16), "float32"), TorchArray((4, 8, 16), "float32", ptr=0x40)
    calls = twice(lib, lambda: scantune.scan(x, "max", dim=1, exclusive=True, init=-1.5,
                                             out=out))
    first, again = calls
    assert first.name == again.name == "scantune_axis_scan"
    assert first.args[1:9] == (FLOAT32, MAX, 1, x.ptr, out.ptr, 4, 8, 16)
    assert first.init().value == -1.5
    assert again.args == first.args
    assert built == ["float32"] and fw.copies == []


def test_a_planned_call_returns_out_or_a_new_result(plans):
    lib, fw, built = plans
    x, out = TorchArray((4, 16), "int64"), TorchArray((4, 16), "int64", ptr=0x40)
    y = scantune.cumsum(x, dim=0)
    assert scantune.cumsum(x, dim=0, out=out) is out
    z = scantune.cumsum(x, dim=0)
    assert (y.shape, y.dtype) == (z.shape, z.dtype) == ((4, 16), "int64") and y is not z
    assert [c.args[5] for c in lib.calls] == [y.ptr, out.ptr, z.ptr]
    assert built == ["int64"]


@pytest.mark.parametrize("second,name,args", [
    (lambda: scantune.cumsum(TorchArray((8, 16), "int64"), dim=1), "scantune_segmented_scan",
     (INT64, SUM, 0, 0x10000)),
    (lambda: scantune.cumsum(TorchArray((4, 16), "int64"), dim=0), "scantune_axis_scan",
     (INT64, SUM, 0, 0x10000)),
    (lambda: scantune.cumsum(TorchArray((4, 16), "float32"), dim=1), "scantune_segmented_scan",
     (FLOAT32, SUM, 0, 0x10000)),
    (lambda: scantune.cummax(TorchArray((4, 16), "int64"), dim=1), "scantune_segmented_scan",
     (INT64, MAX, 0, 0x10000)),
])
def test_another_signature_is_not_served_by_a_plan(plans, second, name, args):
    lib, _, built = plans
    scantune.cumsum(TorchArray((4, 16), "int64"), dim=1)
    lib.calls.clear()
    second()
    (c,) = lib.calls
    assert c.name == name and c.args[1:5] == args
    assert len(built) == 2


def test_changed_shape_and_strides_are_not_served_by_a_plan(plans):
    lib, fw, _ = plans
    scantune.cumsum(TorchArray((4, 16), "int64"), dim=1)
    lib.calls.clear()
    scantune.cumsum(TorchArray((8, 16), "int64"), dim=1)
    assert lib.calls[0].args[6:9] == (128, None, 16)
    lib.calls.clear()
    scantune.cumsum(TorchArray((4, 16), "int64", strides=(256, 8)), dim=1)
    assert fw.copies == [("move_last", 1)]
    assert lib.calls[0].args[6:9] == (64, None, 16)


@pytest.mark.parametrize("call,copies", [
    (lambda: scantune.cumsum(TorchArray((4, 16), "int32"), dim=1),
     [("astype", "int32", "int64")]),
    (lambda: scantune.cummax(TorchArray((4, 16), "int8"), dim=0),
     [("astype", "int8", "int32"), ("astype", "int32", "int8")]),
    (lambda: scantune.cumsum(TorchArray((4, 16), "int64", strides=(8, 32)), dim=0),
     [("move_last", 0)]),
    (lambda: scantune.scan(TorchArray((4, 16), "int64"), custom=("f", "return a + b;", "0"),
                           dim=0), [("move_last", 0)]),
    (lambda: scantune.scan(TorchArray((4, 16), "int64"), dim=1, reverse=True),
     [("flip", 1), ("flip", 1)]),
])
def test_copying_scans_copy_on_every_call(plans, call, copies):
    lib, fw, _ = plans
    first, again = [], []
    for seen in (first, again):
        fw.copies.clear()
        lib.calls.clear()
        call()
        seen.extend([fw.copies[:], [(c.name, c.args[1:4]) for c in lib.calls]])
    assert first == again and first[0] == copies


@pytest.mark.parametrize("axis,copies", [(1, [("assign",)]), (0, [("move_last", 0), ("assign",)])])
def test_a_strided_out_takes_the_copies_on_a_planned_call(plans, axis, copies):
    lib, fw, built = plans
    x = TorchArray((4, 16), "int64")
    scantune.cumsum(x, dim=axis)  # planned
    out = TorchArray((4, 16), "int64", strides=(8, 32))
    assert scantune.cumsum(x, dim=axis, out=out) is out
    assert fw.copies == copies
    assert lib.calls[1].name == "scantune_segmented_scan" and built == ["int64"]


@pytest.mark.parametrize("out,match", [
    (TorchArray((4, 15), "int64"), "shape"), (TorchArray((4, 16), "int32"), "dtype int32"),
    (NumpyArray((4, 16), "int64"), "framework")])
@pytest.mark.parametrize("dim", [0, 1])
def test_out_is_checked_on_a_planned_call(plans, out, match, dim):
    lib, _, _ = plans
    x = TorchArray((4, 16), "int64")
    scantune.cumsum(x, dim=dim)
    lib.calls.clear()
    with pytest.raises(ValueError, match=match):
        scantune.cumsum(x, dim=dim, out=out)
    assert lib.calls == []

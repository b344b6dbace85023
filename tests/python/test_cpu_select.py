"""masked_select, unique_consecutive, partition and reduce without a GPU: every
argument check, and the C calls they make (against a recording stand-in for the
library and a framework that allocates fakes)."""

import pytest

import scantune
from scantune import _frameworks, _loader

from fakes import FakeCudaArray as Fake


class OtherFake(Fake):
    """Another framework's array: its own type, so its own framework object."""


B, U8 = "|b1", "|u1"
ms, uc, part = scantune.masked_select, scantune.unique_consecutive, scantune.partition
ALLOCATES = "needs a torch, cupy, numba or JAX array"


@pytest.mark.parametrize("call,error,match", [
    # the input
    (lambda: ms(Fake((8,), "<f2"), Fake((8,), B)), TypeError, "float16"),
    (lambda: ms(Fake((8,), B), Fake((8,), B)), TypeError, "dtype bool"),
    (lambda: uc(Fake((8,), "|i1")), TypeError, "int8"),
    (lambda: part(Fake((8,), "<c8"), Fake((8,), B)), TypeError, "complex64"),
    (lambda: ms(Fake((2, 4)), Fake((8,), B)), ValueError, r"masked_select takes a dense 1-d "
     r"array, got shape \(2, 4\)"),
    (lambda: uc(Fake(())), ValueError, r"unique_consecutive takes a dense 1-d array, got shape "
     r"\(\)"),
    (lambda: part(Fake((8,), strides=(8,)), Fake((8,), B)), ValueError,
     r"partition takes a dense 1-d array, got shape \(8,\) with strides \(8,\)"),
    (lambda: ms([1, 2], Fake((2,), B)), TypeError, "expected a CUDA array"),
    # the mask
    (lambda: ms(Fake((8,)), None), TypeError, "expected a CUDA array"),
    (lambda: ms(Fake((8,)), Fake((8,), "<f4")), ValueError,
     "mask of dtype float32: one of bool, uint8 expected"),
    (lambda: part(Fake((8,)), Fake((8,), "<i4")), ValueError, "mask of dtype int32"),
    (lambda: ms(Fake((8,)), Fake((8,), "|i1")), ValueError, "mask of dtype int8"),
    (lambda: ms(Fake((8,)), Fake((7,), B)), ValueError, "mask has 7 elements, the input 8"),
    (lambda: part(Fake((8,)), Fake((9,), U8)), ValueError, "mask has 9 elements, the input 8"),
    (lambda: ms(Fake((8,)), Fake((2, 4), B)), ValueError, "mask must be a dense 1-d array"),
    (lambda: ms(Fake((8,)), Fake((8,), B, strides=(2,))), ValueError,
     r"mask must be a dense 1-d array, got shape \(8,\) with strides \(2,\)"),
    (lambda: ms(Fake((8,)), OtherFake((8,), B)), ValueError,
     "mask must be an array of the input's framework"),
    # out=
    (lambda: ms(Fake((8,)), Fake((8,), B), out=Fake((4,))), ValueError,
     r"out= has shape \(4,\), the result has \(8,\)"),
    (lambda: uc(Fake((8,), "<i4"), out=Fake((8,), "<i8")), ValueError,
     "out= has dtype int64, the result has int32"),
    (lambda: part(Fake((8,)), Fake((8,), B), out=OtherFake((8,))), ValueError,
     "out= must be an array of the input's framework"),
    (lambda: ms(Fake((8,)), Fake((8,), B), out=Fake((8,), strides=(8,), ptr=0x20000)),
     ValueError, "out= must be dense"),
    (lambda: ms(Fake((8,)), Fake((8,), B, ptr=0x20000), out=Fake((8,), ptr=0x20004)),
     ValueError, "out= overlaps the mask"),
    (lambda: part(Fake((8,)), Fake((8,), U8, ptr=0x20000), out=Fake((8,))), ValueError,
     "partition cannot run in place"),
    (lambda: part(Fake((8,)), Fake((8,), U8, ptr=0x20000), out=Fake((8,), ptr=0x1001c)),
     ValueError, "partition cannot run in place"),
    (lambda: ms(Fake((8,)), Fake((8,), B, ptr=0x20000), out=Fake((8,), ptr=0x10004)),
     ValueError, "partly overlaps the input"),
    (lambda: uc(Fake((8,)), out=Fake((8,), ptr=0x10010)), ValueError, "partly overlaps"),
    # a plain __cuda_array_interface__ object cannot allocate the count, even with out=
    (lambda: ms(Fake((8,)), Fake((8,), B, ptr=0x20000)), ValueError, ALLOCATES),
    (lambda: ms(Fake((8,)), Fake((8,), U8, ptr=0x20000), out=Fake((8,))), ValueError,
     ALLOCATES),  # exactly in place is allowed
    (lambda: uc(Fake((0,))), ValueError, ALLOCATES),
    (lambda: part(Fake((8,)), Fake((8,), B, ptr=0x20000), out=Fake((8,), ptr=0x30000)),
     ValueError, ALLOCATES),
    # reduce
    (lambda: scantune.reduce(Fake((8,)), "median"), ValueError, "unknown operator"),
    (lambda: scantune.reduce(Fake((8,), "<f2")), TypeError, "float16"),
    (lambda: scantune.reduce(Fake((8,)), out=Fake((2,))), ValueError,
     r"out= has shape \(2,\), the result is 0-d \(or 1 element\)"),
    (lambda: scantune.reduce(Fake((8,)), out=Fake((), "<f8")), ValueError,
     "out= has dtype float64, the result has float32"),
    (lambda: scantune.reduce(Fake((8,)), out=OtherFake(())), ValueError,
     "out= must be an array of the input's framework"),
    (lambda: scantune.reduce(Fake((8,), strides=(8,))), ValueError,
     "reduce of a non-contiguous input .* needs a copy"),
])
def test_argument_errors(call, error, match):
    with pytest.raises(error, match=match) as e:
        call()
    assert isinstance(e.value, scantune.ScantuneError)


class AllocatingFake(Fake):
    """An array of a framework that allocates (as torch would), at made-up addresses."""


class _Allocating(_frameworks._Framework):
    allocates = True
    next_ptr = 0x100000

    def empty(self, shape, dtype, like):
        _Allocating.next_ptr += 0x10000
        typestr = {"int32": "<i4", "float32": "<f4", "int64": "<i8"}[dtype]
        return AllocatingFake(shape, typestr, ptr=_Allocating.next_ptr)


class RecordingLibrary:
    """Records the C calls; compactions select 3 items."""

    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        def call(*args):
            self.calls.append((name, args))
            return 0
        return call


@pytest.fixture
def lib(monkeypatch):
    recorder = RecordingLibrary()
    monkeypatch.setitem(_frameworks._cache, AllocatingFake, _Allocating())
    monkeypatch.setattr(_loader, "library", lambda: recorder)
    monkeypatch.setattr(_loader, "scanner", lambda device: "scanner")
    monkeypatch.setattr(_loader, "current_device", lambda: 0)
    monkeypatch.setattr(_loader, "selected_count", lambda d_count, stream: 3)
    return recorder


def compact_args(lib):
    ((name, args),) = lib.calls
    assert name == "scantune_compact"
    return args


def test_masked_select_call(lib):
    x, m = AllocatingFake((8,), "<i4", stream=7), AllocatingFake((8,), B, ptr=0x20000)
    y = ms(x, m)
    s, how, t, d_in, flags, pname, pbody, d_out, n, count, stream = compact_args(lib)
    assert (s, how, t, d_in, flags, pname, pbody, n, stream) == (
        "scanner", 0, 0, 0x10000, 0x20000, None, None, 8, 7)
    assert count % 8 == 0 and count != d_out
    assert y.__cuda_array_interface__["shape"] == (3,)
    assert y.__cuda_array_interface__["data"][0] == d_out


def test_masked_select_in_place(lib):
    x = AllocatingFake((8,), "<f4")
    y = ms(x, AllocatingFake((8,), U8, ptr=0x20000), out=x)
    assert compact_args(lib)[7] == 0x10000
    assert y.__cuda_array_interface__["shape"] == (3,) and y.base is x


def test_unique_consecutive_call(lib):
    uc(AllocatingFake((5,), "<i8"))
    args = compact_args(lib)
    assert (args[1], args[2], args[4]) == (2, 2, None)  # SCANTUNE_UNIQUE, int64, no flags


def test_partition_call(lib):
    x, out = AllocatingFake((8,), "<f4"), AllocatingFake((8,), "<f4", ptr=0x30000)
    y, count = part(x, AllocatingFake((8,), B, ptr=0x20000), out=out)
    assert y is out and count == 3
    assert compact_args(lib)[1] == 3  # SCANTUNE_PARTITION_FLAGGED


def test_empty_input_makes_no_call(lib):
    y = ms(AllocatingFake((0,), "<i4"), AllocatingFake((0,), B))
    assert y.__cuda_array_interface__["shape"] == (0,) and not lib.calls
    assert part(AllocatingFake((0,), "<i4"), AllocatingFake((0,), B))[1] == 0


def test_reduce_call(lib):
    y = scantune.reduce(AllocatingFake((2, 4), "<i4", stream=5), "max")
    ((name, (s, t, op, d_in, d_out, n, stream)),) = lib.calls
    assert (name, s, t, op, d_in, n, stream) == ("scantune_reduce", "scanner", 0, 3, 0x10000,
                                                  8, 5)
    assert y.__cuda_array_interface__["shape"] == ()
    assert y.__cuda_array_interface__["data"][0] == d_out
    out = AllocatingFake((1,), "<i4", ptr=0x40000)
    assert scantune.reduce(AllocatingFake((8,), "<i4"), out=out) is out


def test_library_checks_compaction_arguments():
    try:
        lib = _loader.library()
    except scantune.ScantuneError as e:
        pytest.skip(f"libscantune not loadable here ({e}); set SCANTUNE_LIBRARY")
    with pytest.raises(ValueError, match="null scanner"):
        _loader.check(lib.scantune_compact(None, 0, 0, None, None, None, None, None, 4, None,
                                           None))
    with pytest.raises(ValueError, match="null device pointer for the count"):
        _loader.selected_count(None, None)


def test_no_gpu_gives_a_clear_runtime_error():
    try:
        _loader.library()
        _loader.current_device()
        pytest.skip("a GPU is present")
    except scantune.ScantuneError as e:
        if e.kind == "library":
            pytest.skip(f"libscantune not loadable here ({e}); set SCANTUNE_LIBRARY")
    with pytest.raises(RuntimeError, match="no usable CUDA device") as e:
        scantune.reduce(Fake((8,)), out=Fake((), ptr=0x40000))
    assert e.value.kind == "no_device"

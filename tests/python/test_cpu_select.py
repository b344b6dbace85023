"""masked_select, unique_consecutive, partition and reduce without a GPU: every
argument check. The calls themselves run against the real library and torch in
test_gpu_select.py."""

import ctypes

import pytest

import scantune
from scantune import _loader

from fakes import FakeCudaArray as Fake
from fakes import library_or_skip, skip_unless_no_gpu


class OtherFake(Fake):
    """Another framework's array: its own type, so its own framework object."""


B, U8 = "|b1", "|u1"
ms, uc, part = scantune.masked_select, scantune.unique_consecutive, scantune.partition
ALLOCATES = "allocating the result needs a copy"


@pytest.mark.parametrize("call,error,match", [
    # the input
    # narrow dtypes and bool pass their checks (the fake cannot allocate the result)
    (lambda: ms(Fake((8,), "<f2"), Fake((8,), B)), ValueError, ALLOCATES),
    (lambda: ms(Fake((8,), B), Fake((8,), B)), ValueError, ALLOCATES),
    (lambda: uc(Fake((8,), "|i1")), ValueError, ALLOCATES),
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
    # a plain __cuda_array_interface__ object cannot allocate the result (out= can)
    (lambda: ms(Fake((8,)), Fake((8,), B, ptr=0x20000)), ValueError, ALLOCATES),
    (lambda: uc(Fake((0,))), ValueError, ALLOCATES),
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


def test_library_checks_compaction_arguments():
    lib = library_or_skip()
    with pytest.raises(ValueError, match="null scanner"):
        _loader.check(lib.scantune_compact(None, 0, 0, None, None, None, None, None, 4, None,
                                           None))
    with pytest.raises(ValueError, match="null device pointer for the count"):
        _loader.check(lib.scantune_selected_count(None, None, ctypes.byref(ctypes.c_uint64())))


@pytest.mark.parametrize("call", [
    lambda: scantune.reduce(Fake((8,)), out=Fake((), ptr=0x40000)),
    # out= lets a plain __cuda_array_interface__ array compact: the count goes through
    # pinned host memory, which needs a device too
    lambda: ms(Fake((8,)), Fake((8,), B, ptr=0x20000), out=Fake((8,), ptr=0x30000)),
])
def test_no_gpu_gives_a_clear_runtime_error(call):
    skip_unless_no_gpu()
    with pytest.raises(RuntimeError, match="no usable CUDA device") as e:
        call()
    assert e.value.kind == "no_device"

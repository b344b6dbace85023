"""sort without a GPU: every argument check, and the C call the binding makes
(against the recording library). The sort itself runs against torch in
test_gpu_sort.py."""

import pytest

import scantune

from fakes import FakeCudaArray as Fake
from fakes import TorchArray, skip_unless_no_gpu

INT32, UINT64, FLOAT32 = 0, 3, 4


class OtherFake(Fake):
    """Another framework's array: its own type, so its own framework object."""


def out_pair(ptr=0x80000):
    return (Fake((8,), ptr=ptr), Fake((8,), "<i4", ptr=ptr + 0x1000))


@pytest.mark.parametrize("call,error,match", [
    # the keys
    (lambda: scantune.sort(Fake((8,), "|i1")), TypeError, "int8"),
    (lambda: scantune.sort(Fake((8,), "<f2")), TypeError, "float16"),
    (lambda: scantune.sort(Fake((2, 4))), ValueError,
     r"sort takes a dense 1-d array, got shape \(2, 4\)"),
    (lambda: scantune.sort(Fake((8,), strides=(8,))), ValueError, "dense 1-d"),
    (lambda: scantune.sort([3, 1]), TypeError, "expected a CUDA array"),
    # the bit range
    (lambda: scantune.sort(Fake((8,)), begin_bit=-1), ValueError,
     r"bit range \[-1, 32\) is outside the 32-bit key"),
    (lambda: scantune.sort(Fake((8,), "<i8"), end_bit=65), ValueError,
     r"bit range \[0, 65\) is outside the 64-bit key"),
    (lambda: scantune.sort(Fake((8,)), begin_bit=8, end_bit=4), ValueError,
     r"\[8, 4\)"),
    (lambda: scantune.sort(Fake((8,)), begin_bit=1.5), ValueError, "begin_bit must be an int"),
    (lambda: scantune.sort(Fake((8,)), end_bit=True), ValueError, "end_bit must be an int"),
    # the values
    (lambda: scantune.sort(Fake((8,)), Fake((8,), "<i2", ptr=0x20000)), ValueError,
     "values of dtype int16: one of"),
    (lambda: scantune.sort(Fake((8,)), Fake((7,), "<i4", ptr=0x20000)), ValueError,
     "values has 7 elements, the keys 8"),
    (lambda: scantune.sort(Fake((8,)), OtherFake((8,), ptr=0x20000)), ValueError,
     "values must be an array of the input's framework"),
    # out=
    (lambda: scantune.sort(Fake((8,)), out=Fake((4,), ptr=0x20000)), ValueError,
     r"out= has shape \(4,\), the result has \(8,\)"),
    (lambda: scantune.sort(Fake((8,)), out=Fake((8,), "<i4", ptr=0x20000)), ValueError,
     "out= has dtype int32, the result has float32"),
    (lambda: scantune.sort(Fake((8,)), out=Fake((8,), strides=(8,), ptr=0x20000)), ValueError,
     "out= must be dense"),
    (lambda: scantune.sort(Fake((8,)), out=Fake((8,))), ValueError,
     "sort cannot run in place: out= overlaps an input"),
    (lambda: scantune.sort(Fake((8,)), Fake((8,), "<i4", ptr=0x20000),
                           out=Fake((8,), ptr=0x30000)), ValueError,
     r"with values=, out= must be a \(keys, values\) pair"),
    (lambda: scantune.sort(Fake((8,)), Fake((8,), "<i4", ptr=0x20000),
                           out=(Fake((8,), ptr=0x30000), Fake((8,), "<i4", ptr=0x20010))),
     ValueError, "overlaps an input"),
    (lambda: scantune.sort(Fake((8,)), Fake((8,), "<i4", ptr=0x20000),
                           out=(Fake((8,), ptr=0x30000), Fake((8,), "<i4", ptr=0x30010))),
     ValueError, "keys and values outputs overlap"),
    # return_indices=True
    (lambda: scantune.sort(Fake((8,)), Fake((8,), "<i4", ptr=0x20000), return_indices=True),
     ValueError, "give values= or return_indices=True, not both"),
    (lambda: scantune.sort(Fake((8,)), out=Fake((8,), ptr=0x30000), return_indices=True),
     ValueError, r"with return_indices=True, out= must be a \(keys, indices\) pair"),
    (lambda: scantune.sort(Fake((8,)), out=(Fake((8,), ptr=0x30000), Fake((8,), "<f8", ptr=0x40000)),
                           return_indices=True),
     ValueError, "the indices' out= must be a dense array of 8 elements of int64"),
    (lambda: scantune.sort(Fake((8,)), out=(Fake((8,), ptr=0x30000), Fake((7,), "<i8", ptr=0x40000)),
                           return_indices=True),
     ValueError, "the indices' out= must be"),
    (lambda: scantune.sort(Fake((8,)), out=(Fake((8,), ptr=0x30000), Fake((8,), "<i8", ptr=0x30010)),
                           return_indices=True),
     ValueError, "keys and values outputs overlap"),
    (lambda: scantune.sort(Fake((8,)), out=(Fake((8,), ptr=0x30000), Fake((8,), "<i8")),
                           return_indices=True),
     ValueError, "overlaps an input"),
    # a plain __cuda_array_interface__ object cannot allocate the result
    (lambda: scantune.sort(Fake((8,))), ValueError, "allocating the result needs a copy"),
])
def test_argument_errors(call, error, match):
    with pytest.raises(error, match=match) as e:
        call()
    assert isinstance(e.value, scantune.ScantuneError)


def test_keys_only_call(recording):
    lib, _ = recording
    x = TorchArray((1000,), "float32")
    y = scantune.sort(x, descending=True)
    assert y.shape == (1000,) and y.dtype == "float32" and y.ptr != x.ptr
    (c,) = lib.calls
    assert c.name == "scantune_sort"
    assert c.args[1:] == (FLOAT32, x.ptr, y.ptr, None, None, 0, 1000, 1, 0, 32, 0)


def test_pairs_call_with_a_bit_range(recording):
    lib, _ = recording
    keys, values = TorchArray((77,), "uint64"), TorchArray((77,), "int32", ptr=0x20000)
    k, v = scantune.sort(keys, values, begin_bit=4, end_bit=40)
    assert (k.dtype, v.dtype) == ("uint64", "int32")
    (c,) = lib.calls
    assert c.args[1:] == (UINT64, keys.ptr, k.ptr, values.ptr, v.ptr, 4, 77, 0, 4, 40, 0)


def test_indices_call_reads_no_values(recording):
    """return_indices: a fresh int64 array the C call fills (no values' input), or
    out='s 4-byte indices."""
    lib, _ = recording
    x = TorchArray((300,), "int32")
    k, i = scantune.sort(x, return_indices=True, descending=True)
    assert (k.dtype, i.dtype, i.shape) == ("int32", "int64", (300,))
    assert lib.calls[0].args[1:] == (INT32, x.ptr, k.ptr, None, i.ptr, 8, 300, 1, 0, 32, 0)
    ko, io = TorchArray((300,), "int32", ptr=0x50000), TorchArray((300,), "uint32", ptr=0x60000)
    k, i = scantune.sort(x, out=(ko, io), return_indices=True)
    assert k is ko and i is io
    assert lib.calls[1].args[1:] == (INT32, x.ptr, ko.ptr, None, io.ptr, 4, 300, 0, 0, 32, 0)


def test_empty_input_makes_no_call(recording):
    lib, _ = recording
    k, v = scantune.sort(TorchArray((0,), "int32"), TorchArray((0,), "int64", ptr=0x20000))
    assert k.shape == (0,) and v.shape == (0,) and lib.calls == []


def test_out_pair_is_returned(recording):
    lib, _ = recording
    ko, vo = TorchArray((5,), "int32", ptr=0x50000), TorchArray((5,), "float64", ptr=0x60000)
    k, v = scantune.sort(TorchArray((5,), "int32"), TorchArray((5,), "float64", ptr=0x20000),
                         out=(ko, vo))
    assert k is ko and v is vo
    assert lib.calls[0].args[1:6] == (INT32, 0x10000, ko.ptr, 0x20000, vo.ptr)


def test_no_gpu_gives_a_clear_runtime_error():
    skip_unless_no_gpu()
    with pytest.raises(RuntimeError, match="no usable CUDA device") as e:
        scantune.sort(Fake((8,)), out=Fake((8,), ptr=0x40000))
    assert e.value.kind == "no_device"

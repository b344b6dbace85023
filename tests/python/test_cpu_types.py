"""Narrow and mixed element types, and reverse scans, without a GPU: which C function
the binding calls with which types and init, against the recording library, and
which copies the framework makes."""

import ctypes

import pytest

import scantune
from scantune import _dtypes

from fakes import FakeCudaArray as Fake
from fakes import NumpyArray, TorchArray

INT8, UINT8, INT16, UINT16, FLOAT16, BFLOAT16 = 6, 7, 8, 9, 10, 11
INT32, UINT32, INT64, UINT64, FLOAT32, FLOAT64 = 0, 1, 2, 3, 4, 5
SUM, MAX, MIN, AND = 0, 3, 2, 4


@pytest.mark.parametrize("name,code", [("int8", INT8), ("uint8", UINT8), ("int16", INT16),
                                       ("uint16", UINT16), ("float16", FLOAT16),
                                       ("bfloat16", BFLOAT16), ("bool", UINT8)])
def test_narrow_type_codes(name, code):
    assert _dtypes.scan_code(name) == code
    with pytest.raises(TypeError, match=f"{name} here"):
        _dtypes.code(name)  # segmented, axis, reduce and compaction calls take no narrow type
    assert _dtypes.itemsize(name) == {"int8": 1, "uint8": 1, "bool": 1}.get(name, 2)


@pytest.mark.parametrize("out,data,acc", [
    ("int8", None, "int32"), ("uint8", None, "uint32"), ("int16", None, "int32"),
    ("uint16", None, "uint32"), ("float16", None, "float32"), ("bfloat16", None, "float32"),
    ("int64", "int8", "int64"), ("uint64", "uint8", "uint64"), ("int64", "bool", "int64"),
    ("float32", "float16", "float32"), ("float16", "float64", "float64"),
    ("float32", "int32", "float32"), ("int32", "int64", None), ("int32", "float32", None),
    ("int8", "float16", None), ("float32", "float64", "float64")])
def test_default_accumulators_follow_the_library(out, data, acc):
    assert _dtypes.accumulator(out, data) == acc


def test_bfloat16_is_a_float():
    assert _dtypes.is_float("bfloat16") and _dtypes.is_float("float16")
    assert _dtypes.work_type("bfloat16") == "float32" and _dtypes.work_type("uint16") == "int32"


def only_call(lib):
    assert len(lib.calls) == 1, lib.calls
    return lib.calls[0]


@pytest.mark.parametrize("cls,data,result,codes", [
    (TorchArray, "int8", "int64", (INT8, INT64, INT64)),
    (TorchArray, "bool", "int64", (UINT8, INT64, INT64)),
    (TorchArray, "uint8", "int64", (UINT8, INT64, INT64)),
    (TorchArray, "int16", "int64", (INT16, INT64, INT64)),
    (NumpyArray, "uint8", "uint64", (UINT8, UINT64, UINT64)),
    (NumpyArray, "int8", "int64", (INT8, INT64, INT64)),
    (NumpyArray, "bool", "int64", (UINT8, INT64, INT64))])
def test_widening_cumsum_converts_in_the_kernel(recording, cls, data, result, codes):
    lib, frameworks = recording
    x = cls((1000,), data)
    y = scantune.cumsum(x)
    assert y.dtype == result and y.shape == (1000,)
    c = only_call(lib)
    assert c.name == "scantune_scan_types"
    assert c.args[1:7] == codes + (SUM, 0, 0)
    assert c.args[7:10] == (x.ptr, y.ptr, 1000)
    assert frameworks[cls is TorchArray and "torch" or "numpy"].copies == []


@pytest.mark.parametrize("data,dtype,codes", [
    ("int8", "int32", (INT8, INT32, INT32)), ("float16", "float32", (FLOAT16, FLOAT32, FLOAT32)),
    ("bfloat16", "float64", (BFLOAT16, FLOAT64, FLOAT64)),
    ("int32", "float32", (INT32, FLOAT32, FLOAT32)), ("float64", "float16", (FLOAT64, FLOAT64,
                                                                             FLOAT16))])
def test_explicit_dtype_converts_in_the_kernel(recording, data, dtype, codes):
    lib, frameworks = recording
    y = scantune.cumsum(TorchArray((64,), data), dtype=dtype)
    assert y.dtype == dtype
    assert only_call(lib).args[1:4] == codes
    assert frameworks["torch"].copies == []


@pytest.mark.parametrize("data", ["float16", "bfloat16", "int8", "uint16"])
def test_same_type_scans_use_the_plain_calls(recording, data):
    lib, frameworks = recording
    fn = scantune.cumsum if "float" in data else scantune.cummax
    y = fn(TorchArray((64,), data))
    assert y.dtype == data  # torch keeps half sums in half (accumulated in float)
    c = only_call(lib)
    assert c.name == "scantune_inclusive_scan" and c.args[1] == _dtypes.CODES[data]
    assert frameworks["torch"].copies == []


def test_bool_max_scans_bytes(recording):
    lib, _ = recording
    y = scantune.cummax(TorchArray((64,), "bool"))
    assert y.dtype == "bool"
    c = only_call(lib)
    assert c.name == "scantune_inclusive_scan" and c.args[1:3] == (UINT8, MAX)


def test_a_bool_result_is_cast_first(recording):
    """uint8 and bool share a C type: bytes other than 0 and 1 must not reach a bool."""
    lib, frameworks = recording
    scantune.scan(TorchArray((64,), "uint8"), "max", dtype="bool")
    assert frameworks["torch"].copies == [("astype", "uint8", "bool")]
    assert only_call(lib).args[1] == UINT8


@pytest.mark.parametrize("data,result", [("int64", "int32"), ("float32", "int32"),
                                         ("float64", "int64"), ("uint64", "int32")])
def test_pairs_the_library_refuses_are_cast_first(recording, data, result):
    lib, frameworks = recording
    scantune.cumsum(TorchArray((64,), data), dtype=result)
    assert frameworks["torch"].copies == [("astype", data, result)]
    c = only_call(lib)
    assert c.name == "scantune_inclusive_scan" and c.args[1] == _dtypes.CODES[result]


def test_custom_operators_convert_by_a_cast(recording):
    lib, frameworks = recording
    scantune.scan(TorchArray((64,), "int8"), custom=("f", "return a + b;", "0"), dtype="int64")
    assert frameworks["torch"].copies == [("astype", "int8", "int64")]
    assert only_call(lib).name == "scantune_custom_scan"


@pytest.mark.parametrize("data,op,init,ctype,value", [
    ("int8", "max", 5, ctypes.c_int32, 5), ("int8", "min", None, ctypes.c_int32, 127),
    ("int8", "max", None, ctypes.c_int32, -128), ("uint8", "bit_and", None, ctypes.c_uint32, 255),
    ("uint16", "bit_and", -1, ctypes.c_uint32, 65535),
    ("int16", "bit_and", None, ctypes.c_int32, -1),
    ("float16", "sum", 1.5, ctypes.c_float, 1.5), ("bfloat16", "min", None, ctypes.c_float,
                                                   float("inf")),
    ("bool", "max", None, ctypes.c_uint32, 0), ("bool", "min", None, ctypes.c_uint32, 1),
    ("bool", "bit_and", None, ctypes.c_uint32, 1)])
def test_init_is_one_accumulator(recording, data, op, init, ctype, value):
    lib, _ = recording
    scantune.scan(TorchArray((64,), data), op, exclusive=True, init=init, dtype=data)
    c = only_call(lib)
    assert c.name == "scantune_exclusive_scan"
    assert type(c.init()) is ctype and c.init().value == value


def test_init_of_a_converting_scan_is_of_its_accumulator(recording):
    lib, _ = recording
    scantune.scan(TorchArray((64,), "int8"), exclusive=True, init=3)  # torch: int64 result
    c = only_call(lib)
    assert c.name == "scantune_scan_types" and c.args[1:7] == (INT8, INT64, INT64, SUM, 1, 0)
    assert type(c.init()) is ctypes.c_int64 and c.init().value == 3


def test_init_must_fit_the_result(recording):
    with pytest.raises(ValueError, match="does not fit in int8"):
        scantune.scan(TorchArray((64,), "int8"), "max", exclusive=True, init=200)
    assert recording[0].calls == []


def test_reverse_flat_scans_run_in_the_library(recording):
    lib, frameworks = recording
    scantune.scan(TorchArray((64,), "int32"), "max", reverse=True, exclusive=True, init=-5)
    c = only_call(lib)
    assert c.name == "scantune_reverse_scan" and c.args[1:4] == (INT32, MAX, 1)
    assert c.init().value == -5
    lib.calls.clear()
    scantune.scan(TorchArray((4, 16), "int8"), reverse=True)  # flattened: one run
    c = only_call(lib)
    assert c.name == "scantune_scan_types" and c.args[1:7] == (INT8, INT64, INT64, SUM, 0, 1)
    assert c.args[9] == 64
    lib.calls.clear()
    scantune.cumsum(TorchArray((1, 64), "float16"), dim=1)  # one row is one run
    assert only_call(lib).name == "scantune_inclusive_scan"
    assert frameworks["torch"].copies == []


def test_reverse_along_a_dim_flips(recording):
    lib, frameworks = recording
    scantune.scan(TorchArray((4, 16), "int32"), dim=1, reverse=True, dtype="int32")
    assert frameworks["torch"].copies == [("flip", 1), ("flip", 1)]
    assert lib.names() == ["scantune_segmented_scan"]


def test_rows_of_narrow_types_are_cast(recording):
    """The batched and axis calls take accumulator types only."""
    lib, frameworks = recording
    copies = frameworks["torch"].copies
    scantune.cumsum(TorchArray((4, 16), "int8"), dim=1)
    assert copies == [("astype", "int8", "int64")]
    assert lib.calls[0].name == "scantune_segmented_scan" and lib.calls[0].args[1] == INT64
    copies.clear()
    lib.calls.clear()
    scantune.cummax(TorchArray((4, 16), "uint8"), dim=0)
    assert copies == [("astype", "uint8", "int32"), ("astype", "int32", "uint8")]
    assert lib.calls[0].name == "scantune_axis_scan" and lib.calls[0].args[1] == INT32
    copies.clear()
    lib.calls.clear()
    scantune.scan(TorchArray((4, 16), "float16"), "min", dim=1, exclusive=True)
    assert copies == [("astype", "float16", "float32"), ("astype", "float32", "float16")]
    c = lib.calls[0]
    assert c.args[1] == FLOAT32 and type(c.init()) is ctypes.c_float


def test_flattened_strided_input_is_copied_in_its_own_type(recording):
    lib, frameworks = recording
    scantune.cumsum(TorchArray((4, 16), "int8", strides=(32, 1)))
    assert frameworks["torch"].copies == [("reshape",)]
    assert only_call(lib).args[1:4] == (INT8, INT64, INT64)


@pytest.mark.parametrize("data", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", ["bit_and", "bit_or", "bit_xor"])
def test_bitwise_on_half_types_is_refused(recording, data, op):
    with pytest.raises(TypeError, match=f"on {data}"):
        scantune.scan(TorchArray((8,), data), op)
    assert recording[0].calls == []


def test_library_failures_raise(recording):
    lib, _ = recording
    lib.status, lib.error = 2, b"scan types int8:int64: unsupported"
    with pytest.raises(TypeError, match="int8:int64: unsupported"):
        scantune.cumsum(TorchArray((8,), "int8"))


def test_narrow_types_elsewhere_are_refused():
    with pytest.raises(TypeError, match="int8"):
        scantune.segmented_scan(Fake((8,), "|i1"), flags=Fake((8,), "|u1"))
    with pytest.raises(TypeError, match="float16"):
        scantune.reduce(Fake((8,), "<f2"))


def test_empty_inputs_call_nothing(recording):
    y = scantune.cumsum(TorchArray((0,), "int8"))
    assert y.dtype == "int64" and y.shape == (0,)
    assert recording[0].calls == []


def test_logcumsumexp_is_the_librarys_logaddexp_scan(recording):
    lib, frameworks = recording
    scantune.logcumsumexp(TorchArray((64,), "float16"))
    c = only_call(lib)
    assert c.name == "scantune_custom_scan" and c.args[1] == _dtypes.CODES["float16"]
    assert c.args[3] == b"logaddexp"
    assert frameworks["torch"].copies == []  # half is combined in float inside the kernel


@pytest.mark.parametrize("dtype", ["int32", "int8", "bool"])
def test_logcumsumexp_refuses_integers(recording, dtype):
    with pytest.raises(TypeError, match="floating-point"):
        scantune.logcumsumexp(TorchArray((64,), dtype))

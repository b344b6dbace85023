"""What runs without a GPU: import, dtype rules, argument errors, error mapping,
the clear error without a device, and python -m scantune."""

import os
import subprocess
import sys

import pytest

import scantune
from scantune import _dtypes, _errors, _frameworks, _loader

from fakes import FakeCudaArray as Fake
from fakes import library_or_skip, skip_unless_no_gpu

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(scantune.__file__)))


def test_import_loads_no_library():
    code = "import scantune, scantune._loader as L; assert L._lib is None; print('ok')"
    env = dict(os.environ, SCANTUNE_LIBRARY="/nonexistent/libscantune.so", PYTHONPATH=PACKAGE_ROOT)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_missing_library_raises_at_call_time(monkeypatch):
    monkeypatch.setenv("SCANTUNE_LIBRARY", "/nonexistent/libscantune.so")
    monkeypatch.setattr(_loader, "_lib", None)
    with pytest.raises(RuntimeError, match="could not be loaded") as e:
        scantune.cumsum(Fake((8,)))
    assert e.value.kind == "library"


def test_dtype_codes_follow_the_c_enum():
    assert _dtypes.CODES == {"int32": 0, "uint32": 1, "int64": 2, "uint64": 3,
                             "float32": 4, "float64": 5, "int8": 6, "uint8": 7, "int16": 8,
                             "uint16": 9, "float16": 10, "bfloat16": 11}
    assert scantune.SUPPORTED_DTYPES == tuple(_dtypes.CODES)
    assert _dtypes.scan_code("bool") == _dtypes.CODES["uint8"]  # bytes of 0 or 1
    assert _dtypes.ACC_DEFAULT == -1


@pytest.mark.parametrize("typestr,name", [("<i4", "int32"), ("<u8", "uint64"), ("<f4", "float32"),
                                          ("|b1", "bool"), ("<f2", "float16"),
                                          ("|u1", "uint8"), (">i4", "big-endian int32")])
def test_typestr_names(typestr, name):
    assert _dtypes.from_typestr(typestr) == name


NumpyLikeType = type("int32", (), {})  # as numpy.int32, whose __name__ is "int32"


@pytest.mark.parametrize("dtype,name", [("int64", "int64"), (int, "int64"), (float, "float64"),
                                        (NumpyLikeType, "int32")])
def test_dtype_names(dtype, name):
    assert _dtypes.name_of(dtype) == name


@pytest.mark.parametrize("name,torch_rule,numpy_rule", [
    ("bool", "int64", "int64"), ("int8", "int64", "int64"), ("int16", "int64", "int64"),
    ("int32", "int64", "int64"), ("int64", "int64", "int64"), ("uint8", "int64", "uint64"),
    ("uint32", "int64", "uint64"), ("uint64", "int64", "uint64"),
    ("float32", "float32", "float32"), ("float64", "float64", "float64"),
    ("float16", "float16", "float16")])
def test_default_accumulation_types(name, torch_rule, numpy_rule):
    assert _dtypes.default_accumulate(name, "torch") == torch_rule
    assert _dtypes.default_accumulate(name, "numpy") == numpy_rule


def test_exception_classes():
    for kind, base in [("invalid_argument", ValueError), ("unsupported", TypeError),
                       ("compile", RuntimeError), ("cuda", RuntimeError),
                       ("no_device", RuntimeError), ("database", RuntimeError)]:
        e = _errors.error_for(kind, "m", "log")
        assert isinstance(e, base) and isinstance(e, scantune.ScantuneError)
        assert e.kind == kind and e.log == "log"


@pytest.mark.parametrize("status,cls,kind", [
    (1, ValueError, "invalid_argument"), (2, TypeError, "unsupported"), (3, RuntimeError, "compile"),
    (4, RuntimeError, "cuda"), (5, RuntimeError, "no_device"), (7, RuntimeError, "database")])
def test_status_codes_map_to_exceptions(status, cls, kind):
    library_or_skip()
    with pytest.raises(cls) as e:
        _loader.check(status)
    assert e.value.kind == kind and str(e.value)


def test_library_error_message_reaches_python():
    lib = library_or_skip()
    with pytest.raises(ValueError, match="null output handle"):
        _loader.check(lib.scantune_scanner_create(None, 0, None, None))
    with pytest.raises(ValueError, match="null scanner"):
        _loader.check(lib.scantune_inclusive_scan(None, 0, 0, None, None, 4, None))


@pytest.mark.parametrize("call,error,match", [
    (lambda: scantune.scan(Fake((8,)), "sideways"), ValueError, "unknown operator"),
    (lambda: scantune.scan(Fake((8,)), 3), ValueError, "unknown operator"),
    (lambda: scantune.cumsum(Fake((8,)), dim=1), ValueError, "out of range"),
    (lambda: scantune.cumsum(Fake((4, 8)), dim=-3), ValueError, "out of range"),
    (lambda: scantune.cumsum(Fake((8,)), dim=0.5), ValueError, "dim must be"),
    (lambda: scantune.cumsum(Fake((8,)), out=Fake((9,))), ValueError, "shape"),
    (lambda: scantune.cumsum(Fake((2, 4)), dim=None, out=Fake((2, 4))), ValueError, "shape"),
    (lambda: scantune.cumsum(Fake((8,)), out=Fake((8,), "<f8")), ValueError, "dtype float64"),
    (lambda: scantune.cumsum(Fake((8,), "<i4"), out=Fake((8,), "<i4")), ValueError, "int64"),
    (lambda: scantune.cumsum(Fake((8,), "<c8")), TypeError, "complex64"),
    (lambda: scantune.cummax(Fake((8,), "<V2")), TypeError, "V2"),
    (lambda: scantune.scan(Fake((8,), "<f2"), "bit_xor"), TypeError, "on float16"),
    (lambda: scantune.scan(Fake((8,), "|b1"), dtype="bool"), TypeError, "stored as bool"),
    (lambda: scantune.cumsum(Fake((8,)), dtype="complex64"), TypeError, "complex64"),
    (lambda: scantune.scan(Fake((8,)), custom=("f", "return a;")), ValueError, "custom must"),
    (lambda: scantune.scan(Fake((8,)), custom=("f", "", "0")), ValueError, "custom must"),
    (lambda: scantune.scan(Fake((8,)), "max", custom=("f", "return a;", "0")), ValueError,
     "either op or custom"),
    (lambda: scantune.scan(Fake((8,)), custom=("f", "return a;", "0"), exclusive=True),
     ValueError, "needs init"),
    (lambda: scantune.scan(Fake((8,), "<i4"), "max", exclusive=True, init=2**31), ValueError,
     "does not fit"),
    (lambda: scantune.scan(Fake((8,), "<i4"), "max", exclusive=True, init=1.5), ValueError,
     "not an integer"),
    (lambda: scantune.scan(Fake((8,)), exclusive=True, init="x"), ValueError, "not a number"),
    (lambda: scantune.scan(Fake((2, 4)), dim=0, reverse=True), ValueError,
     "a reverse scan needs a copy"),
    (lambda: scantune.cumsum(Fake(())), ValueError, "0-d"),
    (lambda: scantune.cumsum([1, 2, 3]), TypeError, "expected a CUDA array"),
    (lambda: scantune.segmented_scan(Fake((8,))), ValueError, "exactly one of flags=.*none"),
    (lambda: scantune.segmented_scan(Fake((8,)), flags=Fake((8,), "|u1"), keys=Fake((8,), "<i4")),
     ValueError, "exactly one of flags=.*flags, keys"),
    (lambda: scantune.segmented_scan(Fake((2, 4)), flags=Fake((8,), "|u1")), ValueError,
     "dense 1-d array, got shape"),
    (lambda: scantune.segmented_scan(Fake((8,)), flags=Fake((7,), "|u1")), ValueError,
     "flags has 7 elements, the input 8"),
    (lambda: scantune.segmented_scan(Fake((8,)), flags=Fake((8,), "<f4")), ValueError,
     "flags of dtype float32"),
    (lambda: scantune.segmented_scan(Fake((8,)), keys=Fake((8,), "<i2")), ValueError,
     "keys of dtype int16"),
    (lambda: scantune.segmented_scan(Fake((8,)), offsets=Fake((3,), "<u4")), ValueError,
     "offsets of dtype uint32: one of int32, int64 expected"),
    (lambda: scantune.segmented_scan(Fake((8,)), "nope", flags=Fake((8,), "|u1")), ValueError,
     "unknown operator"),
])
def test_argument_errors(call, error, match):
    with pytest.raises(error, match=match) as e:
        call()
    assert isinstance(e.value, scantune.ScantuneError)


def test_no_gpu_gives_a_clear_runtime_error():
    skip_unless_no_gpu()
    with pytest.raises(RuntimeError, match="no usable CUDA device") as e:
        scantune.cumsum(Fake((8,)))
    assert e.value.kind == "no_device"


def test_cai_views_and_streams():
    fw = _frameworks.of(Fake((4,)))
    v = fw.view(Fake((2, 3), "<f8", strides=(24, 8), ptr=64))
    assert (v.ptr, v.shape, v.dtype) == (64, (2, 3), "float64") and v.dense()
    assert not fw.view(Fake((2, 3), "<f8", strides=(8, 16))).dense()
    assert fw.view(Fake((1, 3), "<f4", strides=(4, 4))).dense()  # size-1 axes: any stride
    # head flags and keys: strides checked at their own widths
    assert fw.view(Fake((5,), "|u1", strides=(1,))).dense()
    assert not fw.view(Fake((5,), "|u1", strides=(2,))).dense()
    assert fw.view(Fake((5,), "<i2", strides=(2,))).dense()
    assert fw.stream(Fake((4,))) == 0  # no stream named: the legacy default stream
    assert fw.stream(Fake((4,), stream=2)) == 2  # per-thread default, as CAI v3 says
    reshaped = fw.reshape(Fake((2, 3)), (6,))
    assert fw.view(reshaped).shape == (6,)
    with pytest.raises(ValueError, match="needs a copy"):
        fw.reshape(Fake((2, 3), strides=(4, 8)), (6,))


def run_module(*args, **env):
    return subprocess.run([sys.executable, "-m", "scantune", *args], capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=PACKAGE_ROOT, **env))


def test_module_forwards_inspection_commands_only():
    r = run_module("devices", "--json", SCANTUNE_CLI="/bin/echo")
    assert r.returncode == 0 and r.stdout.strip() == "devices --json"
    r = run_module("tune", SCANTUNE_CLI="/bin/echo")
    assert r.returncode == 2 and "usage" in r.stderr
    r = run_module("show", SCANTUNE_CLI="/nonexistent/scantune")
    assert r.returncode != 0

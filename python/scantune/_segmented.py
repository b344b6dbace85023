"""segmented_scan: scans that restart at every segment, over flat CUDA arrays."""

import ctypes

from . import _api, _dtypes, _frameworks, _loader
from ._errors import bad_argument

_KEY_DTYPES = ("int32", "uint32", "int64", "uint64")
_FLAG_DTYPES = ("uint8", "bool", "int8")


def dense_1d(fw, a, what, dtypes):
    if _frameworks.of(a) is not fw:
        raise bad_argument(f"{what} must be an array of the input's framework ({fw.name})")
    v = fw.view(a)
    if len(v.shape) != 1 or not v.dense():
        raise bad_argument(f"{what} must be a dense 1-d array, got {v.describe()}")
    if v.dtype not in dtypes:
        raise bad_argument(f"{what} of dtype {v.dtype}: one of {', '.join(dtypes)} expected")
    return v


def input_view(x, does):
    """The framework and view of a call's input, which must be a dense 1-d array;
    `does`: the call and its verb for the message ("segmented_scan scans")."""
    fw = _frameworks.of(x)
    v = fw.view(x)
    if len(v.shape) != 1 or not v.dense():
        raise bad_argument(f"{does} a dense 1-d array, got {v.describe()}")
    return fw, v


def run(x, op, flags, keys, offsets, exclusive, init, out):
    """Validates, then runs one C call (see scantune.segmented_scan)."""
    given = [name for name, a in (("flags", flags), ("keys", keys), ("offsets", offsets))
             if a is not None]
    if len(given) != 1:
        raise bad_argument("give exactly one of flags=, keys=, offsets= "
                           f"({', '.join(given) if given else 'none'} given)")
    fw, v = input_view(x, "segmented_scan scans")
    t = _dtypes.code(v.dtype)
    n = v.shape[0]
    _api.check_out(fw, out, v.shape, v.dtype)
    c_init = _api.init_value(_api.identity(op, v.dtype) if init is None else init, v.dtype) \
        if exclusive else None
    if flags is not None:
        h = dense_1d(fw, flags, "flags", _FLAG_DTYPES)
        if h.shape[0] != n:
            raise bad_argument(f"flags has {h.shape[0]} elements, the input {n}")
    elif keys is not None:
        h = dense_1d(fw, keys, "keys", _KEY_DTYPES)
        if h.shape[0] != n:
            raise bad_argument(f"keys has {h.shape[0]} elements, the input {n}")
    else:
        h = dense_1d(fw, offsets, "offsets", _KEY_DTYPES[::2])
        if h.shape[0] < 1:
            raise bad_argument("offsets needs num_segments + 1 >= 1 entries")
    y = out if out is not None else fw.empty(v.shape, v.dtype, x)
    if n == 0:
        return y
    lib = _loader.library()
    s = _loader.scanner(fw.device(x))
    stream = fw.stream(x)
    o = fw.ptr(y)
    ref = ctypes.byref(c_init) if c_init is not None else None
    width = _dtypes.itemsize(h.dtype) if flags is None else 1
    if flags is not None:
        status = lib.scantune_segmented_scan(s, t, op, int(exclusive), v.ptr, o, n, h.ptr, 0,
                                             ref, stream)
    elif keys is not None:
        status = lib.scantune_scan_by_key(s, t, op, int(exclusive), v.ptr, o, n, h.ptr, width,
                                          ref, stream)
    else:
        status = lib.scantune_segmented_scan_offsets(s, t, op, int(exclusive), v.ptr, o, n,
                                                     h.ptr, width, h.shape[0] - 1, ref, stream)
    _loader.check(status)
    fw.finish(stream)
    return y

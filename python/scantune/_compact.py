"""masked_select, unique_consecutive, partition (the C API's stream compactions) and
reduce, over CUDA arrays of any framework."""

import math

from . import _api, _dtypes, _frameworks, _loader
from ._errors import bad_argument
from ._segmented import dense_1d, input_view

# scantune_compaction_t codes.
SELECT_FLAGGED, UNIQUE, PARTITION_FLAGGED = 0, 2, 3
_NAMES = {SELECT_FLAGGED: "masked_select", UNIQUE: "unique_consecutive",
          PARTITION_FLAGGED: "partition"}
_MASK_DTYPES = ("bool", "uint8")


def _span(v):
    start = v.ptr
    return start, start + math.prod(v.shape) * _dtypes.itemsize(v.dtype)


def overlap(a, b):
    """Whether the memory of two dense views overlaps."""
    (a0, a1), (b0, b1) = _span(a), _span(b)
    return a0 < b1 and b0 < a1


def _check_out(fw, name, how, out, v, m):
    """out=: x's shape and dtype, dense; it may be x itself (not for a partition),
    never overlap it otherwise, nor the mask."""
    if out is None:
        return
    _api.check_out(fw, out, v.shape, v.dtype)
    o = fw.view(out)
    if not o.dense():
        raise bad_argument(f"out= must be dense, got {o.describe()}")
    if m is not None and overlap(o, m):
        raise bad_argument(f"{name}: out= overlaps the mask")
    if overlap(o, v):
        if how == PARTITION_FLAGGED:
            raise bad_argument("partition cannot run in place: out= overlaps the input")
        if o.ptr != v.ptr:
            raise bad_argument(f"{name}: out= partly overlaps the input (only out=x, "
                               "exactly in place, is allowed)")


def run(how, x, mask, out):
    """Validates, runs one scantune_compact and reads the count back, which
    synchronizes the stream. Returns (framework, result of len(x) elements, count)."""
    name = _NAMES[how]
    fw, v = input_view(x, f"{name} takes")
    t = _dtypes.scan_code(v.dtype)  # any element type: compactions move items as they are
    n = v.shape[0]
    m = None
    if how != UNIQUE:
        m = dense_1d(fw, mask, "mask", _MASK_DTYPES)
        if m.shape[0] != n:
            raise bad_argument(f"mask has {m.shape[0]} elements, the input {n}")
    _check_out(fw, name, how, out, v, m)
    y = out if out is not None else fw.empty((n,), v.dtype, x)
    if n == 0:
        return fw, y, 0
    lib = _loader.library()
    scanner = _loader.scanner(fw.device(x))  # without a GPU: the clear no_device error
    stream = fw.stream(x)
    c, count = _loader.count_word()
    _loader.check(lib.scantune_compact(scanner, how, t, v.ptr, m.ptr if m is not None else None,
                                       None, None, fw.ptr(y), n, c, stream))
    _loader.stream_synchronize(stream)
    return fw, y, count.value


def select(how, x, mask, out):
    """masked_select and unique_consecutive: the first count elements of the result."""
    fw, y, count = run(how, x, mask, out)
    return fw.prefix(y, count)


def reduce(x, op, out):
    """Validates, then one scantune_reduce into a 0-d array (or out=)."""
    fw = _frameworks.of(x)
    v = fw.view(x)
    t = _dtypes.code(v.dtype)
    if out is not None:
        shape = fw.view(out).shape if _frameworks.of(out) is fw else ()
        if shape not in ((), (1,)):
            raise bad_argument(f"out= has shape {shape}, the result is 0-d (or 1 element)")
        _api.check_out(fw, out, shape, v.dtype)
    if not v.dense():
        if fw.move_last.__func__ is _frameworks._Framework.move_last:
            raise bad_argument(f"reduce of a non-contiguous input ({v.describe()}) needs a "
                               f"copy, which {fw.name} arrays cannot make: pass a torch, "
                               "cupy or JAX array, or a contiguous one")
        x = fw.move_last(x, len(v.shape) - 1)  # the framework's dense copy
        v = fw.view(x)
    y = out if out is not None else fw.empty((), v.dtype, x)
    lib = _loader.library()
    stream = fw.stream(x)
    _loader.check(lib.scantune_reduce(_loader.scanner(fw.device(x)), t, op, v.ptr,
                                      fw.ptr(y), math.prod(v.shape), stream))
    fw.finish(stream)
    return y

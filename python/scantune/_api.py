"""cumsum, cumprod, cummax, cummin and scan over CUDA arrays of any framework."""

import ctypes
import math

from . import _dtypes, _frameworks, _loader
from ._errors import bad_argument, unsupported

# scantune_op_t codes, with NumPy/PyTorch-style aliases.
OPS = {"sum": 0, "add": 0, "prod": 1, "product": 1, "mul": 1, "min": 2, "max": 3,
       "bit_and": 4, "and": 4, "bit_or": 5, "or": 5, "bit_xor": 6, "xor": 6}
_SUM, _PROD, _MIN, _MAX, _AND = 0, 1, 2, 3, 4
_CTYPES = {"int32": ctypes.c_int32, "uint32": ctypes.c_uint32, "int64": ctypes.c_int64,
           "uint64": ctypes.c_uint64, "float32": ctypes.c_float, "float64": ctypes.c_double}


def _int_range(dtype):
    if dtype == "bool":
        return 0, 1
    bits = 8 * _dtypes.itemsize(dtype)
    if dtype.startswith("u"):
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def identity(op, dtype):
    """The init of an exclusive scan when none is given: the operator's identity in
    dtype's range (the first value of the result)."""
    if op == _SUM:
        return 0
    if op == _PROD:
        return 1
    if op in (_MIN, _MAX):
        if _dtypes.is_float(dtype):
            return math.inf if op == _MIN else -math.inf
        return _int_range(dtype)[1 if op == _MIN else 0]
    if op == _AND:  # all bits set: -1, or the largest value of unsigned types and bool
        lo, hi = _int_range(dtype)
        return -1 if lo < 0 else hi
    return 0


def init_value(init, dtype, acc=None):
    """init as one C element of the accumulator acc (default dtype): the library reads
    an exclusive scan's init in the type it combines in (int32 for int8 data). An
    integer init must fit dtype, the result type whose first element it is;
    ValueError where it does not."""
    acc = acc or dtype
    if _dtypes.is_float(dtype):
        try:
            return _CTYPES[acc](float(init))
        except (TypeError, ValueError):
            raise bad_argument(f"init {init!r} is not a number")
    if isinstance(init, float) and not init.is_integer() or isinstance(init, (str, bytes)):
        raise bad_argument(f"init {init!r} is not an integer, as {dtype} needs")
    try:
        value = int(init)
    except (TypeError, ValueError, OverflowError):
        raise bad_argument(f"init {init!r} is not an integer, as {dtype} needs")
    lo, hi = _int_range(dtype)
    if not lo <= value <= hi:
        if dtype.startswith("u") and value == -1:  # all bits set, as bit_and's identity
            value = hi
        else:
            raise bad_argument(f"init {init} does not fit in {dtype}")
    return _CTYPES[acc](value)


def _normalize_dim(dim, ndim):
    if dim is None:
        return None
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise bad_argument(f"dim must be an int or None, got {dim!r}")
    if not -ndim <= dim < ndim:
        raise bad_argument(f"dim {dim} is out of range for a {ndim}-d input")
    return dim % ndim


def check_out(fw, out, shape, dtype):
    """Its view (None without out=), or ValueError naming what does not match."""
    if out is None:
        return None
    if _frameworks.of(out) is not fw:
        raise bad_argument(f"out= must be an array of the input's framework ({fw.name})")
    v = fw.view(out)
    if v.shape != tuple(shape):
        raise bad_argument(f"out= has shape {v.shape}, the result has {tuple(shape)}")
    if v.dtype != dtype:
        raise bad_argument(f"out= has dtype {v.dtype}, the result has {dtype}")
    return v


def logaddexp_custom():
    """The library's logaddexp operator (scantune::logaddexp_op) as the (name, body,
    identity) of a custom operator."""
    parts = [ctypes.c_char_p() for _ in range(3)]
    _loader.library().scantune_logaddexp_op(*(ctypes.byref(p) for p in parts))
    return tuple(p.value.decode() for p in parts)


def _flat_scanner(device, dtype, op, custom, exclusive, init, stream):
    """A function (in_ptr, out_ptr, n, length=0, inner=1) running through the C API
    one flat scan, or with a length one scan of every column of length elements,
    inner apart, in the (n / (length * inner), length, inner) array (inner == 1: rows).
    dtype is an accumulator type (the batched calls take no other). Custom operators
    have no batched C call: their rows run one flat scan each, and their function's
    ``axis`` attribute is False (no inner > 1)."""
    lib = _loader.library()
    s = _loader.scanner(device)
    t = _dtypes.code(dtype)
    c_init = ctypes.byref(init) if init is not None else None
    flat = _flat_call(lib, s, (dtype, dtype, dtype), op, custom, exclusive, False, c_init,
                      stream)
    if custom is not None:
        def per_row(i, o, n, length=0, inner=1):
            length = length or n
            step = length * _dtypes.itemsize(dtype)
            for r in range(n // length):
                flat(i + r * step, o + r * step, length)
        per_row.axis = False
        return per_row

    def scan(i, o, n, length=0, inner=1):
        if inner > 1:
            return _loader.check(lib.scantune_axis_scan(
                s, t, op, int(exclusive), i, o, n // (length * inner), length, inner, c_init,
                stream))
        if not length or length == n:
            return flat(i, o, n)
        return _loader.check(lib.scantune_segmented_scan(
            s, t, op, int(exclusive), i, o, n, None, length, c_init, stream))
    scan.axis = True
    return scan


def _flat_call(lib, s, types, op, custom, exclusive, reverse, c_init, stream):
    """A function (in_ptr, out_ptr, n) scanning n elements of types[0] into types[2],
    combined in the accumulator types[1]: one C call. A conversion (and only one) goes
    through scantune_scan_types; the plain calls convert a narrow type through its
    default accumulator themselves. Custom operators: same types, forward only."""
    data, acc, result = types
    t = _dtypes.scan_code(result)
    if custom is not None:
        name, body, identity = (p.encode() for p in custom)
        return lambda i, o, n: _loader.check(lib.scantune_custom_scan(
            s, t, int(exclusive), name, body, identity, i, o, n, c_init, stream))
    if _dtypes.scan_code(data) != t:
        d, a = _dtypes.scan_code(data), _dtypes.CODES[acc]
        return lambda i, o, n: _loader.check(lib.scantune_scan_types(
            s, d, a, t, op, int(exclusive), int(reverse), i, o, n, c_init, stream))
    if reverse:
        return lambda i, o, n: _loader.check(lib.scantune_reverse_scan(
            s, t, op, int(exclusive), i, o, n, c_init, stream))
    if exclusive:
        return lambda i, o, n: _loader.check(
            lib.scantune_exclusive_scan(s, t, op, i, o, n, c_init, stream))
    return lambda i, o, n: _loader.check(lib.scantune_inclusive_scan(s, t, op, i, o, n, stream))


def _scan_along_dim(fw, src, out, axis, dtype, flat_scan):
    """Scans src (already of the result dtype) along axis and returns the result,
    written into out when given. A dense input (and out) is one library call
    (_dense_along). Otherwise (strided views, custom operators along an outer axis)
    the input is first copied by its framework with that axis last and contiguous,
    and the result copied back into the caller's layout."""
    v = fw.view(src)
    last = axis == len(v.shape) - 1
    out_view = None if out is None else fw.view(out)
    if _one_call(v, axis, flat_scan) and (out is None or out_view.dense()):
        return _dense_along(fw, src, v, out, out_view, axis, dtype, flat_scan)
    moved = not last or not v.dense()
    if moved:
        src = fw.move_last(src, axis)
        v = fw.view(src)
    direct = not moved and (out is None or out_view.dense())
    if direct and out is None:
        out = fw.empty(v.shape, dtype, src)
    buf = out if direct else fw.empty(v.shape, dtype, src)
    _rows(flat_scan, v, fw.view(buf))
    if out is None:
        return fw.move_back(buf, axis) if moved else buf
    if direct:
        return buf
    return fw.assign(out, fw.move_back(buf, axis) if moved else buf)


def _one_call(v, axis, flat_scan):
    """Whether the input of view v scans along axis in one library call: dense, and
    rows along the last axis or an operator with axis scans."""
    return v.dense() and (axis == len(v.shape) - 1 or flat_scan.axis)


def _dense_along(fw, like, v, out, out_view, axis, dtype, flat_scan):
    """One library call for a dense input (and dense out, of view out_view): a
    batched scan of rows along the last axis, an axis scan along another."""
    if out is None:
        out = fw.empty(v.shape, dtype, like)
        out_view = fw.view(out)
    n = math.prod(v.shape)
    if n:
        flat_scan(v.ptr, out_view.ptr, n, v.shape[axis], math.prod(v.shape[axis + 1:]))
    return out


def _rows(flat_scan, src, dst):
    length = src.shape[-1] if src.shape else 1
    if length:
        flat_scan(src.ptr, dst.ptr, math.prod(src.shape), length)


def _reverse(fw, x, v, op, custom, exclusive, init, axis, dtype, out, accumulate):
    """A suffix scan the library has no kernel for (along a dim of a
    multi-dimensional array, or with a custom operator): the framework flips the
    input and the result (two copies)."""
    if axis is None:
        x, axis = fw.reshape(x, (math.prod(v.shape),)), 0
    y = run(fw.flip(x, axis), op, custom, exclusive, init, axis, dtype, None, False,
            accumulate)
    y = fw.flip(y, axis)
    if out is None:
        return y
    check_out(fw, out, fw.view(y).shape, fw.view(y).dtype)
    return fw.assign(out, y)


def _result_type(fw, data, dtype, accumulate):
    if dtype is not None:
        return _dtypes.name_of(dtype)
    if accumulate:
        return fw.canonical(_dtypes.default_accumulate(data, fw.rule))
    return data


def _check_types(op, data, result):
    """TypeError for what no scan can do, before any copy or call."""
    _dtypes.scan_code(data)
    _dtypes.scan_code(result)
    if op is not None and op >= _AND and _dtypes.is_float(result):
        raise unsupported(f"bitwise operator {op} on {result}: bitwise scans need integers")
    if op == _SUM and result == "bool":
        raise unsupported("a sum cannot be stored as bool (give an integer dtype=)")


def _flat(fw, x, v, out, out_view, shape, types, call):
    """The whole input as one flat scan (dense; 1-d, flattened, or one row): one C
    call (`call`, from _flat_call) converting types[0] (the input's, or the result's
    after a cast copy) through the accumulator types[1] to the result types[2]."""
    if v.dtype != types[0]:
        x = fw.astype(x, types[0])
        v = fw.view(x)
    if out_view is not None and out_view.dense():
        dst, dst_ptr = out, out_view.ptr
    else:
        dst = fw.empty(shape, types[2], x)
        dst_ptr = fw.ptr(dst)
    call(v.ptr, dst_ptr, math.prod(shape))
    return dst if out is None or dst is out else fw.assign(out, dst)


def _flat_types(custom, data, result):
    """(input, accumulator, result) of a flat scan: the input's own type where the
    library converts it (built-in operators; not an input wider than the accumulator
    nor a float into an integer), else the result's (the framework casts first)."""
    acc = _dtypes.accumulator(result, data) if custom is None else None
    if acc is not None or _dtypes.scan_code(data) == _dtypes.scan_code(result):
        return data, acc or _dtypes.accumulator(result), result
    return result, _dtypes.accumulator(result), result


def _along_dim(fw, x, v, out, axis, result, flat_scan):
    """A scan along one dim of a multi-dimensional array (batched rows, axis scans,
    strided views) by flat_scan, a _flat_scanner of the result's work type: the
    library's calls for these take accumulator types only, so the framework casts
    other inputs to the work type first, and a narrow result is computed in its work
    type (int32, float32) and cast back (two copies)."""
    work = _dtypes.work_type(result)
    src = x if v.dtype == work else fw.astype(x, work)
    if work == result:
        return _scan_along_dim(fw, src, out, axis, result, flat_scan)
    y = fw.astype(_scan_along_dim(fw, src, None, axis, work, flat_scan), result)
    return y if out is None else fw.assign(out, y)


def _plannable_along(v, axis, result, flat_scan):
    """Whether a scan along axis is always one library call on the input itself
    (no cast, no copy): then its plan serves repeated calls (a strided out= still
    takes _scan_along_dim's copies)."""
    return v.dtype == result == _dtypes.work_type(result) and _one_call(v, axis, flat_scan)


class _Plan:
    """A dense scan's checked arguments, kept per call signature: at n <= 2^16 a
    call is bound by this host path, not by the GPU (docs/performance.md, "From
    Python"). axis None: one flat scan (a _flat_call); else a scan along axis (a
    _flat_scanner of the result's work type). Its C calls are kept per (device,
    stream)."""

    __slots__ = ("shape", "types", "result", "op", "custom", "exclusive", "reverse",
                 "c_init", "axis", "calls")

    def __init__(self, shape, types, result, op, custom, exclusive, reverse, c_init, axis):
        self.shape, self.types, self.result = shape, types, result
        self.op, self.custom, self.exclusive, self.reverse = op, custom, exclusive, reverse
        self.c_init, self.axis, self.calls = c_init, axis, {}

    def call(self, device, stream):
        fn = self.calls.get((device, stream))
        if fn is None:
            fn = self.calls[(device, stream)] = self._make_call(device, stream)
        return fn

    def _make_call(self, device, stream):
        if self.axis is not None:
            return _flat_scanner(device, _dtypes.work_type(self.result), self.op, self.custom,
                                 self.exclusive, self.c_init, stream)
        c_init = ctypes.byref(self.c_init) if self.exclusive else None
        return _flat_call(_loader.library(), _loader.scanner(device), self.types, self.op,
                          self.custom, self.exclusive, self.reverse, c_init, stream)


_PLANS = {}


def _planned(fw, x, v, out, plan):
    out_view = check_out(fw, out, plan.shape, plan.result)
    stream = fw.stream(x)
    call = plan.call(fw.device(x), stream)
    if plan.axis is None:
        y = _flat(fw, x, v, out, out_view, plan.shape, plan.types, call)
    elif out_view is None or out_view.dense():
        y = _dense_along(fw, x, v, out, out_view, plan.axis, plan.result, call)
    else:
        y = _scan_along_dim(fw, x, out, plan.axis, plan.result, call)
    fw.finish(stream)
    return y


def run(x, op, custom, exclusive, init, dim, dtype, out, reverse, accumulate):
    """Validates, then scans. accumulate: the result type defaults to the
    framework's accumulation type (cumsum/cumprod), else to the input's."""
    fw = _frameworks.of(x)
    v = fw.view(x)
    key = (fw, v.dtype, v.shape, v.strides, op, custom, exclusive, init, dim, dtype, reverse,
           accumulate)
    try:
        plan = _PLANS.get(key)
    except TypeError:  # an unhashable argument: no plan is kept
        key = plan = None
    if plan is not None:
        return _planned(fw, x, v, out, plan)
    if not v.shape:
        raise bad_argument("a 0-d input has nothing to scan (reshape it to 1-d)")
    axis = _normalize_dim(dim, len(v.shape))
    result = _result_type(fw, v.dtype, dtype, accumulate)
    _check_types(op, v.dtype, result)
    shape = (math.prod(v.shape),) if axis is None else v.shape
    flat = axis is None or v.dense() and shape[axis] == math.prod(shape)
    if reverse and (not flat or custom is not None):
        return _reverse(fw, x, v, op, custom, exclusive, init, axis, dtype, out, accumulate)
    out_view = check_out(fw, out, shape, result)
    if exclusive and init is None and custom is not None:
        raise bad_argument("an exclusive custom scan needs init=")
    if result == "bool" and v.dtype != "bool":  # to 0 and 1 first, as NumPy casts the input
        x = fw.astype(x, result)
        v = fw.view(x)
        key = None  # the plan would skip this cast
    types = _flat_types(custom, v.dtype, result) if flat else None
    acc = types[1] if flat else _dtypes.work_type(result)
    c_init = init_value(identity(op, result) if init is None else init, result, acc) \
        if exclusive else None
    if math.prod(shape) == 0:
        return out if out is not None else fw.empty(shape, result, x)
    device = fw.device(x)
    stream = fw.stream(x)
    plan = _Plan(shape, types, result, op, custom, exclusive, reverse, c_init,
                 None if flat else axis)
    call = plan.call(device, stream)
    if key is not None and v.dense() and (flat or _plannable_along(v, axis, result, call)):
        if len(_PLANS) >= 1024:  # many signatures: start over rather than grow
            _PLANS.clear()
        _PLANS[key] = plan
    if not flat:
        y = _along_dim(fw, x, v, out, axis, result, call)
    else:
        if not v.dense():  # flattening a strided view: a dense copy in the input's type
            x = fw.reshape(x, shape)
            v = fw.view(x)
            if not v.dense():  # a 1-d strided view reshapes to itself
                x = fw.move_last(x, 0)
                v = fw.view(x)
        y = _flat(fw, x, v, out, out_view, shape, types, call)
    fw.finish(stream)
    return y

"""sort: the C API's stable radix sort of keys, or of keys with values, over flat CUDA
arrays of any framework."""

from . import _api, _dtypes, _loader
from ._compact import overlap
from ._errors import bad_argument
from ._segmented import dense_1d, input_view

# Values move as raw words: any element type of 4 or 8 bytes.
_VALUE_DTYPES = tuple(name for name in _dtypes.SUPPORTED + ("complex64",)
                      if _dtypes.itemsize(name) in (4, 8))


def _bit_range(begin_bit, end_bit, key_bits):
    end = key_bits if end_bit is None else end_bit
    for name, bit in (("begin_bit", begin_bit), ("end_bit", end)):
        if not isinstance(bit, int) or isinstance(bit, bool):
            raise bad_argument(f"{name} must be an int, got {bit!r}")
    if not 0 <= begin_bit <= end <= key_bits:
        raise bad_argument(f"bit range [{begin_bit}, {end}) is outside the {key_bits}-bit key "
                           f"(0 <= begin_bit <= end_bit <= {key_bits})")
    return end


def _outputs(fw, x, values, k, v, out):
    """The keys' and the values' output views (fresh arrays where out= gives none);
    out=: the keys' array, or a (keys, values) pair when values are sorted."""
    if out is None:
        outs = (None, None)
    elif v is None:
        outs = (out, None)
    elif isinstance(out, tuple) and len(out) == 2:
        outs = out
    else:
        raise bad_argument("with values=, out= must be a (keys, values) pair")
    results = []
    for a, view, like in ((outs[0], k, x), (outs[1], v, values)):
        if view is None:
            results.append(None)
            continue
        if a is None:
            a = fw.empty(view.shape, view.dtype, like)
        o = _api.check_out(fw, a, view.shape, view.dtype)
        if not o.dense():
            raise bad_argument(f"out= must be dense, got {o.describe()}")
        results.append(a)
    return results


def run(x, values, descending, begin_bit, end_bit, out):
    """Validates, then one scantune_sort on the input's stream (asynchronous)."""
    fw, k = input_view(x, "sort takes")
    t = _dtypes.code(k.dtype)
    n = k.shape[0]
    end = _bit_range(begin_bit, end_bit, 8 * _dtypes.itemsize(k.dtype))
    v = None
    if values is not None:
        v = dense_1d(fw, values, "values", _VALUE_DTYPES)
        if v.shape[0] != n:
            raise bad_argument(f"values has {v.shape[0]} elements, the keys {n}")
    keys_out, values_out = _outputs(fw, x, values, k, v, out)
    inputs = [view for view in (k, v) if view is not None]
    for a in (keys_out, values_out):
        if a is not None and any(overlap(fw.view(a), i) for i in inputs):
            raise bad_argument("sort cannot run in place: out= overlaps an input")
    if values_out is not None and overlap(fw.view(keys_out), fw.view(values_out)):
        raise bad_argument("sort's keys and values outputs overlap")
    if n:
        lib = _loader.library()
        _loader.check(lib.scantune_sort(
            _loader.scanner(fw.device(x)), t, k.ptr, fw.view(keys_out).ptr,
            v.ptr if v is not None else None,
            fw.view(values_out).ptr if v is not None else None,
            _dtypes.itemsize(v.dtype) if v is not None else 0, n, int(bool(descending)),
            begin_bit, end, fw.stream(x)))
    return keys_out if v is None else (keys_out, values_out)

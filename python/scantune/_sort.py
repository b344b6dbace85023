"""sort: the C API's stable radix sort of keys, or of keys with values, over flat CUDA
arrays of any framework."""

from . import _api, _dtypes, _frameworks, _loader
from ._compact import overlap
from ._errors import bad_argument
from ._segmented import dense_1d, input_view

# Values move as raw words: any element type of 4 or 8 bytes.
_VALUE_DTYPES = tuple(name for name in _dtypes.SUPPORTED + ("complex64",)
                      if _dtypes.itemsize(name) in (4, 8))
_INDEX_DTYPES = ("int64", "int32", "uint64", "uint32")


def _bit_range(begin_bit, end_bit, key_bits):
    end = key_bits if end_bit is None else end_bit
    # Exact ints pass one comparison each (every call pays it); the rest get the full test.
    if type(begin_bit) is not int or type(end) is not int:
        for name, bit in (("begin_bit", begin_bit), ("end_bit", end)):
            if not isinstance(bit, int) or isinstance(bit, bool):
                raise bad_argument(f"{name} must be an int, got {bit!r}")
    if not 0 <= begin_bit <= end <= key_bits:
        raise bad_argument(f"bit range [{begin_bit}, {end}) is outside the {key_bits}-bit key "
                           f"(0 <= begin_bit <= end_bit <= {key_bits})")
    return end


_CARRIED = {"values": "values=", "indices": "return_indices=True"}


def _given_outputs(carried, out):
    """out= as a (keys, values or indices) pair of arrays or Nones; `carried`: what
    goes with the keys ("values", "indices" or None)."""
    if out is None:
        return None, None
    if carried is None:
        return out, None
    if isinstance(out, tuple) and len(out) == 2:
        return out
    raise bad_argument(f"with {_CARRIED[carried]}, out= must be a (keys, {carried}) pair")


def _indices(fw, given, x, n, inputs):
    """The indices' output and view: a fresh int64 array, or out='s, an integer
    array of 4 or 8 bytes with n elements, dense, apart from the inputs."""
    if given is None:
        a = fw.empty((n,), "int64", x)
        return a, fw.view(a)
    if _frameworks.of(given) is not fw:
        raise bad_argument(f"out= must be arrays of the input's framework ({fw.name})")
    o = fw.view(given)
    if o.shape != (n,) or o.dtype not in _INDEX_DTYPES or not o.dense():
        raise bad_argument(f"the indices' out= must be a dense array of {n} elements of "
                           f"{', '.join(_INDEX_DTYPES)}, got {o.describe()} of {o.dtype}")
    return given, _apart(o, inputs)


def _output(fw, given, view, like, inputs):
    """An output array and its view: a fresh array (nothing to check: a small sort
    is host-bound), or out='s, which must match `view`, be dense and not overlap
    `inputs`."""
    if given is None:
        a = fw.empty(view.shape, view.dtype, like)
        return a, fw.view(a)
    o = _api.check_out(fw, given, view.shape, view.dtype)
    if not o.dense():
        raise bad_argument(f"out= must be dense, got {o.describe()}")
    return given, _apart(o, inputs)


def _apart(o, inputs):
    """out='s view `o`, which may not overlap an input (not in place)."""
    if any(overlap(o, i) for i in inputs):
        raise bad_argument("sort cannot run in place: out= overlaps an input")
    return o


def run(x, values, descending, begin_bit, end_bit, out, indices=False):
    """Validates, then one scantune_sort on the input's stream (asynchronous)."""
    fw, k = input_view(x, "sort takes")
    t = _dtypes.code(k.dtype)
    n = k.shape[0]
    end = _bit_range(begin_bit, end_bit, 8 * _dtypes.itemsize(k.dtype))
    v = None
    if values is not None:
        if indices:
            raise bad_argument("give values= or return_indices=True, not both")
        v = dense_1d(fw, values, "values", _VALUE_DTYPES)
        if v.shape[0] != n:
            raise bad_argument(f"values has {v.shape[0]} elements, the keys {n}")
    given_keys, given_values = _given_outputs(
        "values" if v is not None else "indices" if indices else None, out)
    inputs = (k,) if v is None else (k, v)
    keys_out, ko = _output(fw, given_keys, k, x, inputs)
    values_out = vo = None
    if v is not None:
        values_out, vo = _output(fw, given_values, v, values, inputs)
    elif indices:
        values_out, vo = _indices(fw, given_values, x, n, inputs)
    if vo is not None and overlap(ko, vo):
        raise bad_argument("sort's keys and values outputs overlap")
    if n:
        stream = fw.stream(x)
        _loader.check(_loader.library().scantune_sort(
            _loader.scanner(fw.device(x)), t, k.ptr, ko.ptr, v.ptr if v is not None else None,
            vo.ptr if vo is not None else None,
            _dtypes.itemsize(vo.dtype) if vo is not None else 0, n, int(bool(descending)),
            begin_bit, end, stream))
        fw.finish(stream)  # JAX: done before its arrays are seen
    return keys_out if vo is None else (keys_out, values_out)

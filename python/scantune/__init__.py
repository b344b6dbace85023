"""scantune: autotuned GPU prefix scans for PyTorch, CuPy, JAX and numba arrays.

The functions take any CUDA array (an object with ``__cuda_array_interface__``:
torch, cupy, numba; or a JAX array) and return an array of the caller's framework on
the input's device, computed on the framework's current stream::

    >>> import torch, scantune
    >>> x = torch.arange(1, 6, device="cuda", dtype=torch.int32)
    >>> scantune.cumsum(x)
    tensor([ 1,  3,  6, 10, 15], device='cuda:0')

Besides scans: ``reduce``, the stream compactions ``masked_select``,
``unique_consecutive`` and ``partition`` (which synchronize the stream to read
their count back), and the stable radix ``sort`` of keys or key-value pairs.

Reproducible floating-point results: with the environment variable
``SCANTUNE_REPRODUCIBLE=1`` set before the first call (it is read when the
device's scanner is created), float scans give the same bits on every run on one
GPU model (at some cost in speed; see docs/performance.md); there is no per-call
parameter. Reductions are always reproducible.

The binding is ctypes over libscantune's C API, so the package is pure Python and
works with any Python 3 version; importing it needs neither CUDA nor a GPU (the
library is loaded on the first call; see ``scantune.library_path``).
"""

from . import _api, _compact, _dtypes, _errors, _frameworks, _loader, _segmented, _sort
from ._errors import (ScantuneError, ScantuneRuntimeError, ScantuneTypeError,
                      ScantuneValueError)
from ._api import OPS

__version__ = "0.1.0"
__all__ = ["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "scan", "segmented_scan", "reduce",
           "masked_select", "unique_consecutive", "partition", "sort", "OPS", "SUPPORTED_DTYPES",
           "ScantuneError", "ScantuneValueError", "ScantuneTypeError", "ScantuneRuntimeError",
           "library_path"]
SUPPORTED_DTYPES = _dtypes.SUPPORTED


def library_path():
    """The file libscantune was (or will be) loaded from: ``$SCANTUNE_LIBRARY``, the
    copy installed inside the package, then ``libscantune.so.0`` on the loader's
    path."""
    return _loader.candidates()[0]


def scan(x, op=None, *, exclusive=False, init=None, dim=None, dtype=None, out=None,
         custom=None, reverse=False):
    """Inclusive or exclusive scan of ``x`` with an operator.

    Args:
        x: a CUDA array (torch, cupy, numba, JAX, or any ``__cuda_array_interface__``).
        op: "sum" (default; alias "add"), "prod" ("product", "mul"), "min", "max",
            "bit_and" ("and"), "bit_or" ("or"), "bit_xor" ("xor").
        exclusive: element i combines elements 0..i-1, starting from ``init``.
        init: the exclusive scan's first value (default: the operator's identity,
            e.g. 0 for sum, the type's largest value for min). Required with ``custom``.
        dim: the axis to scan; None scans the flattened input (as NumPy's axis=None)
            and returns a 1-d result.
        dtype: the result type. Default: for "sum" and "prod", the framework's
            accumulation type (torch: bool and integers -> int64; NumPy/CuPy: bool
            and signed integers -> int64, unsigned -> uint64); otherwise the input's
            type. A flat scan (``dim=None``, a 1-d input, or one row of a dense
            array) converts inside the kernel, without a copy, wherever the library
            has the pair; the framework casts the input first for the others (an
            input wider than the accumulator, a float into an integer, a custom
            operator) and for scans along a dim of a multi-dimensional array, whose
            batched kernels take only int32, uint32, int64, uint64, float32 and
            float64: a narrow result there is computed in int32 or float32 and cast
            back (two copies).
        out: an array of the result's shape and dtype, written in place and returned.
        custom: ``(name, body, identity)``: a custom operator as CUDA source, the body
            of a function of ``a`` and ``b`` returning the type, and its identity
            expression. Then leave ``op`` out.
        reverse: a suffix scan (element i combines elements i..n-1 along the dim).
            Flat scans with a built-in operator run the library's reverse kernels;
            along a dim of a multi-dimensional array, or with ``custom``, the
            framework flips the input and the result (two copies; torch and cupy
            inputs only), since the library has no reversed batched kernel.

    Supported element types: int32, uint32, int64, uint64, float32, float64, and
    int8, uint8, int16, uint16, float16, bfloat16 and bool (read as uint8 bytes);
    others raise TypeError naming the type. The narrow ones combine in an
    accumulator: int32 (int8, int16), uint32 (uint8, uint16), float32 (float16,
    bfloat16), so a float16 sum kept in float16 accumulates in float; an exclusive
    scan's ``init`` must fit the result type and is passed as one accumulator. A
    custom operator on a narrow type sees ``a`` and ``b`` as its accumulator.
    bfloat16 arrives through torch or JAX arrays only (``__cuda_array_interface__``
    has no typestr for it). Bitwise scans of floats and sums stored as bool raise
    TypeError.

    Examples:
        >>> scantune.scan(x, "max")                       # running maximum
        >>> scantune.scan(x, exclusive=True)              # 0, x0, x0+x1, ...
        >>> scantune.scan(x, exclusive=True, init=10)     # 10, 10+x0, ...
        >>> scantune.scan(x, custom=("absmax", "return fabsf(a) > fabsf(b) ? a : b;",
        ...                          "0.0f"))
    """
    if custom is not None:
        if op is not None:
            raise ScantuneValueError("give either op or custom, not both", "invalid_argument")
        if (not isinstance(custom, (tuple, list)) or len(custom) != 3
                or not all(isinstance(p, str) and p for p in custom)):
            raise ScantuneValueError("custom must be (name, body, identity), three "
                                     "non-empty strings", "invalid_argument")
        code = None
    else:
        code = _op_code("sum" if op is None else op)
    return _api.run(x, code, custom, exclusive, init, dim, dtype, out, reverse,
                    accumulate=code in (0, 1))


def _op_code(op):
    if not isinstance(op, str) or op not in OPS:
        raise ScantuneValueError(f"unknown operator {op!r} (one of {', '.join(OPS)})",
                                 "invalid_argument")
    return OPS[op]


def cumsum(x, dim=None, *, dtype=None, out=None):
    """Cumulative sum, as ``torch.cumsum`` / ``numpy.cumsum``.

    ``dim=None`` scans the flattened input. Integer and bool inputs accumulate in
    int64 by default, as the framework does (NumPy/CuPy: unsigned -> uint64). A
    flat scan (``dim=None``, 1-d, one row) widens inside the kernel, reading the
    narrow input directly; along a dim of a multi-dimensional array the framework
    casts the input first (a copy), which ``dtype=`` equal to the input's type
    (e.g. ``dtype=torch.int32``) avoids.

    Example:
        >>> y = scantune.cumsum(torch.ones(4, 1000, device="cuda"), dim=1)
        >>> scantune.cumsum(x, dtype=torch.int32, out=y)   # in place, no widening
    """
    return scan(x, "sum", dim=dim, dtype=dtype, out=out)


def cumprod(x, dim=None, *, dtype=None, out=None):
    """Cumulative product, as ``torch.cumprod`` (same dtype rules as ``cumsum``).

    Example:
        >>> scantune.cumprod(cupy.array([1.0, 2.0, 3.0]))   # array([1., 2., 6.])
    """
    return scan(x, "prod", dim=dim, dtype=dtype, out=out)


def cummax(x, dim=None, *, out=None):
    """Running maximum. Returns the values only: unlike ``torch.cummax`` there is
    no ``indices`` result (and no namedtuple); the result has the input's dtype.

    Example:
        >>> scantune.cummax(torch.tensor([1, 3, 2, 5], device="cuda"))
        tensor([1, 3, 3, 5], device='cuda:0')
    """
    return scan(x, "max", dim=dim, out=out)


def logcumsumexp(x, dim=None, *, out=None):
    """``log(cumsum(exp(x)))`` computed stably, as ``torch.logcumsumexp``: a scan of
    the library's logaddexp operator (``max + log1p(exp(min - max))``, identity -inf).
    float32 and float64 combine in their own type; float16 and bfloat16 in float32,
    stored in the input's type. Other dtypes raise TypeError.

    Example:
        >>> scantune.logcumsumexp(torch.tensor([0., 0., 0.], device="cuda"))
        tensor([0.0000, 0.6931, 1.0986], device='cuda:0')
    """
    name = _frameworks.of(x).view(x).dtype
    if name not in ("float16", "bfloat16", "float32", "float64"):
        raise _errors.unsupported(f"logcumsumexp needs a floating-point input, not {name}")
    return _api.run(x, None, _api.logaddexp_custom(), False, None, dim, None, out, False,
                    accumulate=False)


def cummin(x, dim=None, *, out=None):
    """Running minimum; values only, like ``cummax`` (no indices, unlike torch).

    Example:
        >>> scantune.cummin(torch.tensor([4., 2., 3., 1.], device="cuda"))
        tensor([4., 2., 2., 1.], device='cuda:0')
    """
    return scan(x, "min", dim=dim, out=out)


def segmented_scan(x, op="sum", *, flags=None, keys=None, offsets=None, exclusive=False,
                   init=None, out=None):
    """A scan of the 1-d array ``x`` that restarts at every segment. Segments are
    given by exactly one of:

    - ``flags``: ``x``'s length of uint8/bool, nonzero where a segment starts;
    - ``keys``: ``x``'s length of 32- or 64-bit integers, a segment per run of equal
      keys (CUB's ScanByKey);
    - ``offsets``: ``num_segments + 1`` CSR begin offsets (int32 or int64): segment
      s is ``x[offsets[s]:offsets[s + 1]]``; ``offsets[0] == 0``,
      ``offsets[-1] == len(x)`` and non-decreasing are the caller's guarantee.

    Element 0 always starts a segment. An exclusive scan starts every segment at
    ``init`` (default the operator's identity). The result has ``x``'s dtype (no
    widening, unlike ``cumsum``); all arrays must be dense, of ``x``'s framework.
    Batched scans of rows are ``cumsum(x, dim=-1)`` on a 2-d array.

    Example:
        >>> x = torch.tensor([1, 2, 3, 4, 5], device="cuda", dtype=torch.int32)
        >>> f = torch.tensor([1, 0, 1, 0, 0], device="cuda", dtype=torch.uint8)
        >>> scantune.segmented_scan(x, flags=f)
        tensor([ 1,  3,  3,  7, 12], device='cuda:0', dtype=torch.int32)
    """
    return _segmented.run(x, _op_code(op), flags, keys, offsets, exclusive, init, out)


def reduce(x, op="sum", *, out=None):
    """``x[0] op x[1] op ...`` over every element of ``x``, as a 0-d array on the
    device (no host round trip, no synchronization; ``out=``: 0-d or 1 element).

    ``op`` as in ``scan``. The result has ``x``'s dtype: unlike ``torch.sum``,
    integers do not widen (cast the input first for that). An empty input gives the
    operator's identity (for float min and max, which skip NaN, that is NaN).
    Non-contiguous inputs are first copied by the framework.

    Example:
        >>> scantune.reduce(torch.arange(5, device="cuda"), "max")
        tensor(4, device='cuda:0')
    """
    return _compact.reduce(x, _op_code(op), out)


def masked_select(x, mask, *, out=None):
    """The elements of the dense 1-d ``x`` where ``mask`` (bool or uint8, nonzero =
    selected, ``x``'s length) is set, in order, as ``torch.masked_select`` on 1-d
    input (no broadcasting). Every dtype ``scan`` takes, the narrow ones and bool
    too: the compactions move elements as they are.

    The count is read back to size the result, which synchronizes the stream (the
    call is not asynchronous and cannot be captured in a CUDA graph). The result is
    the first ``count`` elements of a buffer of ``len(x)`` (a view; JAX: a copy);
    ``out=``, of ``x``'s shape and dtype and dense, is that buffer, and may be ``x``
    itself. The GPU writes the count into pinned host memory, so no copy follows the
    kernel. Without ``out=``, needs an array whose framework allocates (torch, cupy,
    numba, JAX).

    Example:
        >>> x = torch.tensor([5, 6, 7, 8], device="cuda", dtype=torch.int32)
        >>> scantune.masked_select(x, x % 2 == 0)
        tensor([6, 8], device='cuda:0', dtype=torch.int32)
    """
    return _compact.select(_compact.SELECT_FLAGGED, x, mask, out)


def unique_consecutive(x, *, out=None):
    """The dense 1-d ``x`` with each run of equal consecutive elements reduced to
    its first, as ``torch.unique_consecutive`` (no counts or inverse indices).
    Synchronizes the stream to read the count back; ``out=`` as in ``masked_select``.
    Floats compare with ``!=`` (each NaN is its own run; float16 and bfloat16 as
    float32: ``-0.0`` and ``0.0`` are one run).

    Example:
        >>> scantune.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1], device="cuda"))
        tensor([1, 2, 3, 1], device='cuda:0')
    """
    return _compact.select(_compact.UNIQUE, x, None, out)


def partition(x, mask, *, out=None):
    """A stable two-way partition of the dense 1-d ``x``: the elements where
    ``mask`` (bool or uint8, ``x``'s length) is set, then the others, each in input
    order. Returns ``(out, num_selected)`` with ``num_selected`` a Python int, read
    back by synchronizing the stream. ``out=`` (``x``'s shape and dtype, dense) may
    not overlap ``x`` or ``mask``.

    Example:
        >>> x = torch.tensor([5, 6, 7, 8], device="cuda")
        >>> scantune.partition(x, x % 2 == 0)
        (tensor([6, 8, 5, 7], device='cuda:0'), 2)
    """
    _, y, count = _compact.run(_compact.PARTITION_FLAGGED, x, mask, out)
    return y, count


def sort(x, values=None, *, descending=False, begin_bit=0, end_bit=None, out=None,
         return_indices=False):
    """The dense 1-d ``x`` sorted by a stable LSD radix sort (equal keys keep their
    input order), or with ``values`` (a dense 1-d array of ``x``'s length, any
    dtype of 4 or 8 bytes) the pair ``(keys, values)`` sorted by key, or with
    ``return_indices=True`` the pair ``(keys, indices)``: each sorted key's position
    in ``x`` as int64, ``torch.sort(x, stable=True)``'s pair (the sort makes the
    indices: no index array is read).

    Keys: int32, uint32, float32, int64, uint64, float64; floats in IEEE total
    order (``-0.0`` before ``+0.0``, NaNs last; reversed when ``descending``).
    ``begin_bit``/``end_bit`` sort by those bits of the key's order-preserving
    image only (default: all); digits that every key shares, two in a row (the high
    bytes of small integers such as indices or labels), cost no pass, so such keys
    sort faster without a range. Asynchronous on the framework's current stream.
    ``out=``: the keys' array, or a ``(keys, values)`` / ``(keys, indices)`` pair
    (indices of int32, uint32, int64 or uint64); outputs may not overlap the inputs.

    Example:
        >>> x = torch.tensor([3, 1, 2, 1], device="cuda", dtype=torch.int32)
        >>> keys, order = scantune.sort(x, return_indices=True)
        >>> keys, order
        (tensor([1, 1, 2, 3], device='cuda:0', dtype=torch.int32),
         tensor([1, 3, 2, 0], device='cuda:0'))
    """
    return _sort.run(x, values, descending, begin_bit, end_bit, out, return_indices)

"""Element types by name ("int32", "float64", ...), independent of any framework."""

from ._errors import bad_argument, unsupported

# scantune_dtype_t, in the C enum's order.
CODES = {"int32": 0, "uint32": 1, "int64": 2, "uint64": 3, "float32": 4, "float64": 5,
         "int8": 6, "uint8": 7, "int16": 8, "uint16": 9, "float16": 10, "bfloat16": 11}
SUPPORTED = tuple(CODES)
# The types segmented, axis and batched scans, reductions and compactions take; the
# narrow ones scan only as one flat run (scantune_scan_types converts them).
ACCUMULATORS = SUPPORTED[:6]
ACC_DEFAULT = -1
# bool data are bytes of 0 or 1: scanned as uint8.
_DATA = {"bool": "uint8"}
_FLOATS = ("float16", "bfloat16", "float32", "float64")

# __cuda_array_interface__ typestr kind+size -> name.
_TYPESTR = {
    "b1": "bool", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
    "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
    "f2": "float16", "f4": "float32", "f8": "float64", "c8": "complex64", "c16": "complex128",
}
_PYTHON = {bool: "bool", int: "int64", float: "float64"}
# Bytes per element of every type the typestr table names (head flags and keys too).
_ITEMSIZE = {"bool": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2,
             "bfloat16": 2,
             "int32": 4, "uint32": 4, "float32": 4, "complex64": 8,
             "int64": 8, "uint64": 8, "float64": 8, "complex128": 16}


def from_typestr(typestr):
    """'<f4' -> 'float32'; big-endian data is reported under its own name.
    __cuda_array_interface__ has no typestr for bfloat16 (producers that export it
    at all use an opaque '<V2'), so such arrays are refused by name: pass a torch
    or JAX array, whose dtype names it."""
    order, rest = typestr[0], typestr[1:]
    name = _TYPESTR.get(rest, typestr)
    return name if order in "<|=" else f"big-endian {name}"


_NAMES = {}


def name_of(dtype):
    """The name of a dtype given as a string, a torch/NumPy/CuPy/JAX dtype or a
    NumPy scalar type: torch.int32, numpy.dtype('int32'), numpy.int32 -> 'int32'."""
    if isinstance(dtype, str):
        return dtype
    try:
        return _NAMES[dtype]
    except (KeyError, TypeError):  # not seen yet, or unhashable
        pass
    name = _name_of(dtype)
    try:
        _NAMES[dtype] = name
    except TypeError:
        pass
    return name


def _name_of(dtype):
    if dtype in _PYTHON:
        return _PYTHON[dtype]
    name = getattr(dtype, "name", None)  # numpy.dtype
    if isinstance(name, str):
        return name
    name = getattr(dtype, "__name__", None)  # numpy.int32
    if isinstance(name, str):
        return name
    text = str(dtype)
    return text[len("torch."):] if text.startswith("torch.") else text


def code(name):
    """The C enum value of an accumulator type, for the calls that take only those
    (segmented, axis and batched scans, reductions); TypeError naming any other."""
    if name not in ACCUMULATORS:
        raise unsupported(f"scantune does not support dtype {name} here (supported: "
                          f"{', '.join(ACCUMULATORS)})")
    return CODES[name]


def scan_code(name):
    """The C enum value of a type a flat scan reads or writes or a compaction moves:
    the accumulator types, the narrow ones and bool (as uint8); TypeError naming any
    other."""
    name = _DATA.get(name, name)
    if name not in CODES:
        raise unsupported(f"scantune does not support dtype {name} (supported: "
                          f"{', '.join(SUPPORTED + ('bool',))})")
    return CODES[name]


def accumulator(out, data=None):
    """The type a scan producing `out` from `data` combines in, as the library's
    default (scantune::scan_types): `out` widened to 32 bits (signed as `out`),
    half and bfloat16 to float32, float64 when `data` is float64. None where the
    library refuses the pair: `data` wider than the accumulator, or a float into an
    integer accumulator."""
    out = _DATA.get(out, out)
    if out in ACCUMULATORS:
        acc = out
    elif is_float(out):
        acc = "float32"
    else:
        acc = "uint32" if out.startswith("u") else "int32"
    data = out if data is None else _DATA.get(data, data)
    if data == "float64" and acc == "float32":
        acc = "float64"
    if itemsize(data) > itemsize(acc) or is_float(data) and not is_float(acc):
        return None
    return acc


def itemsize(name):
    return _ITEMSIZE[name]


def known(name):
    """Whether itemsize knows `name` (strides of other dtypes cannot be checked)."""
    return name in _ITEMSIZE


def is_float(name):
    return name in _FLOATS


def default_accumulate(name, rule):
    """The result type cumsum/cumprod give without dtype=, as the caller's framework
    does: torch promotes bool and every integer type to int64; NumPy and CuPy
    promote bool and signed integers narrower than 64 bits to int64 and unsigned
    ones to uint64."""
    if rule == "torch":
        return "int64" if name == "bool" or "int" in name else name
    if name in ("bool", "int8", "int16", "int32"):
        return "int64"
    if name in ("uint8", "uint16", "uint32"):
        return "uint64"
    return name


def require_name(value, what):
    if not isinstance(value, str) or not value:
        raise bad_argument(f"{what} must be a non-empty string")
    return value


def work_type(name):
    """The accumulator type a scan of `name` runs in where the library takes only
    accumulator types (batched and axis scans): the framework casts to it and back.
    Narrow integers and bool go to int32 whatever their sign: sums, products and
    bitwise results wrap to the same low bits, min and max of their values agree,
    and every framework casts int32 (uint32 is barely supported by torch)."""
    if name in ACCUMULATORS:
        return name
    return "float32" if is_float(name) else "int32"

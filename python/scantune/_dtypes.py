"""Element types by name ("int32", "float64", ...), independent of any framework."""

from ._errors import bad_argument, unsupported

# scantune_dtype_t, in the C enum's order.
CODES = {"int32": 0, "uint32": 1, "int64": 2, "uint64": 3, "float32": 4, "float64": 5}
SUPPORTED = tuple(CODES)

# __cuda_array_interface__ typestr kind+size -> name.
_TYPESTR = {
    "b1": "bool", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
    "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
    "f2": "float16", "f4": "float32", "f8": "float64", "c8": "complex64", "c16": "complex128",
}
_PYTHON = {bool: "bool", int: "int64", float: "float64"}
# Bytes per element of every type the typestr table names (head flags and keys too).
_ITEMSIZE = {"bool": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2,
             "int32": 4, "uint32": 4, "float32": 4, "complex64": 8,
             "int64": 8, "uint64": 8, "float64": 8, "complex128": 16}


def from_typestr(typestr):
    """'<f4' -> 'float32'; big-endian data is reported under its own name."""
    order, rest = typestr[0], typestr[1:]
    name = _TYPESTR.get(rest, typestr)
    return name if order in "<|=" else f"big-endian {name}"


def name_of(dtype):
    """The name of a dtype given as a string, a torch/NumPy/CuPy/JAX dtype or a
    NumPy scalar type: torch.int32, numpy.dtype('int32'), numpy.int32 -> 'int32'."""
    if isinstance(dtype, str):
        return dtype
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
    """The C enum value of a supported type; TypeError naming any other."""
    if name not in CODES:
        raise unsupported(f"scantune does not support dtype {name} (supported: "
                          f"{', '.join(SUPPORTED)})")
    return CODES[name]


def itemsize(name):
    return _ITEMSIZE[name]


def known(name):
    """Whether itemsize knows `name` (strides of other dtypes cannot be checked)."""
    return name in _ITEMSIZE


def is_float(name):
    return name.startswith("float")


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

"""The caller's framework: how to read an array's pointer, shape and device, which
stream to use, and how to allocate, cast and copy. Frameworks are imported only
when one of their arrays arrives, so importing scantune imports none of them."""


from . import _dtypes, _loader
from ._errors import bad_argument, unsupported


class View:
    """What the C API needs of an array: device pointer, shape, strides in bytes,
    element type name."""

    __slots__ = ("ptr", "shape", "strides", "dtype")

    def __init__(self, ptr, shape, strides, dtype):
        self.ptr, self.shape, self.strides, self.dtype = ptr, tuple(shape), strides, dtype

    def dense(self):
        """C-contiguous (size-1 axes may have any stride)."""
        if self.strides is None:
            return True
        expect = _dtypes.itemsize(self.dtype) if _dtypes.known(self.dtype) else None
        for size, stride in zip(reversed(self.shape), reversed(self.strides)):
            if size != 1 and stride != expect:
                return False
            expect = expect * size
        return True

    def describe(self):
        """'shape (8,)', with the strides where they are not dense, for messages."""
        text = f"shape {self.shape}"
        return text if self.dense() else f"{text} with strides {self.strides} (bytes)"


def _cai_view(obj):
    cai = obj.__cuda_array_interface__
    try:
        shape, typestr, data = cai["shape"], cai["typestr"], cai["data"]
    except (KeyError, TypeError):
        raise bad_argument("malformed __cuda_array_interface__ (needs shape, typestr, data)")
    strides = cai.get("strides")
    return View(data[0], shape, tuple(strides) if strides else None,
                _dtypes.from_typestr(typestr))


class _Framework:
    """Base: an array known only by its __cuda_array_interface__ (numba, or any
    producer). Scans run on the stream the producer names (CAI v3 'stream': the
    consumer may enqueue its work there), else on the legacy default stream, on the
    current device. Copies and allocations need a framework: without one, only
    dense inputs scanned along their last axis with out= given are accepted."""

    rule = "numpy"
    name = "__cuda_array_interface__"

    def view(self, x):
        return _cai_view(x)

    def ptr(self, x):
        """The device pointer of an array already checked (a result or a validated out=)."""
        return self.view(x).ptr

    def device(self, x):
        return _loader.current_device()

    def stream(self, x):
        s = x.__cuda_array_interface__.get("stream")
        return s or 0

    def canonical(self, dtype):
        return dtype

    def finish(self, stream):
        pass

    def _needs_framework(self, what):
        raise bad_argument(f"{what} needs a copy, which a plain __cuda_array_interface__ "
                           "object cannot make: pass a torch or cupy array, or out=")

    def empty(self, shape, dtype, like):
        self._needs_framework("allocating the result")

    def astype(self, x, dtype):
        self._needs_framework(f"casting to {dtype}")

    def move_last(self, x, axis):
        self._needs_framework("scanning a non-contiguous input or a non-last dim")

    def move_back(self, x, axis):
        self._needs_framework("scanning a non-last dim")

    def reshape(self, x, shape):
        v = self.view(x)
        if v.dense():
            return _Reshaped(x, shape)
        self._needs_framework("flattening a non-contiguous input")

    def assign(self, out, value):
        self._needs_framework("writing into a non-contiguous out=")

    def flip(self, x, axis):
        self._needs_framework("a reverse scan")

    def prefix(self, x, count):
        """The first count elements of the dense 1-d x (no copy)."""
        return _Reshaped(x, (count,))


class _Reshaped:
    """A dense CAI array seen with another shape (no copy)."""

    def __init__(self, base, shape):
        cai = dict(base.__cuda_array_interface__)
        cai["shape"], cai["strides"] = tuple(shape), None
        self.__cuda_array_interface__ = cai
        self.base = base


def _slice(self, x, count):
    return x[:count]


class _Numba(_Framework):
    name = "numba"
    prefix = _slice

    def empty(self, shape, dtype, like):
        import numba.cuda
        return numba.cuda.device_array(shape, dtype=dtype)


class _Torch(_Framework):
    rule = "torch"
    name = "torch"
    prefix = _slice

    def __init__(self):
        import torch
        self.t = torch
        self.names = {}
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self.raw_stream = raw if raw is not None else (
            lambda d: torch.cuda.current_stream(d).cuda_stream)

    def view(self, x):
        name = self.names.get(x.dtype)
        if name is None:
            name = self.names[x.dtype] = _dtypes.name_of(x.dtype)
        if x.is_contiguous():  # no strides to convert: small calls are host-bound
            return View(x.data_ptr(), x.shape, None, name)
        size = x.element_size()
        return View(x.data_ptr(), x.shape, tuple(s * size for s in x.stride()), name)

    def ptr(self, x):  # a View costs 1.3 us a call more (H200, Python 3.12)
        return x.data_ptr()

    def device(self, x):
        if not x.is_cuda:  # is_cuda and get_device() are cheaper than building x.device
            raise bad_argument(f"expected a CUDA tensor, got one on {x.device}")
        return x.get_device()

    def stream(self, x):
        return self.raw_stream(x.get_device())

    def empty(self, shape, dtype, like):
        # new_empty takes like's device without building a torch.device per call.
        return like.new_empty(shape, dtype=getattr(self.t, dtype))

    def astype(self, x, dtype):
        return x.to(getattr(self.t, dtype))

    def move_last(self, x, axis):
        return x.movedim(axis, -1).contiguous()

    def move_back(self, x, axis):
        return x.movedim(-1, axis)

    def reshape(self, x, shape):
        return x.reshape(shape)

    def assign(self, out, value):
        return out.copy_(value)

    def flip(self, x, axis):
        return x.flip(axis)


class _Cupy(_Framework):
    name = "cupy"
    prefix = _slice

    def __init__(self):
        import cupy
        self.cp = cupy

    def view(self, x):
        return View(x.data.ptr, x.shape, x.strides, x.dtype.name)

    def device(self, x):
        return x.device.id

    def stream(self, x):
        return self.cp.cuda.get_current_stream(x.device.id).ptr

    def empty(self, shape, dtype, like):
        with like.device:
            return self.cp.empty(shape, dtype=dtype)

    def astype(self, x, dtype):
        with x.device:
            return x.astype(dtype)

    def move_last(self, x, axis):
        with x.device:
            return self.cp.ascontiguousarray(self.cp.moveaxis(x, axis, -1))

    def move_back(self, x, axis):
        return self.cp.moveaxis(x, -1, axis)

    def reshape(self, x, shape):
        with x.device:
            return x.reshape(shape)

    def assign(self, out, value):
        with out.device:
            out[...] = value
        return out

    def flip(self, x, axis):
        with x.device:
            return self.cp.ascontiguousarray(self.cp.flip(x, axis))


class _Jax(_Framework):
    """JAX arrays (DLPack producers without __cuda_array_interface__). JAX does not
    expose its streams: inputs are waited for (block_until_ready), the scan runs on
    the legacy default stream and is synchronized before the result is returned.
    Results are fresh arrays written once before JAX sees them; out= is refused,
    since JAX arrays are immutable."""

    name = "jax"
    prefix = _slice  # a copy: JAX slices are new arrays

    def __init__(self):
        import jax
        import jax.numpy as jnp
        self.jax, self.jnp = jax, jnp

    def view(self, x):
        x.block_until_ready()
        return View(x.unsafe_buffer_pointer(), x.shape, None, x.dtype.name)

    def device(self, x):
        (dev,) = x.devices()
        if dev.platform != "gpu":
            raise bad_argument(f"expected a JAX array on a GPU, got one on {dev}")
        return getattr(dev, "local_hardware_id", dev.id)

    def stream(self, x):
        return 0

    def finish(self, stream):
        _loader.stream_synchronize(stream)

    def canonical(self, dtype):
        return self.jax.dtypes.canonicalize_dtype(dtype).name

    def empty(self, shape, dtype, like):
        (dev,) = like.devices()
        return self.jax.device_put(self.jnp.zeros(shape, dtype=dtype), dev).block_until_ready()

    def astype(self, x, dtype):
        return x.astype(dtype).block_until_ready()

    def move_last(self, x, axis):
        return self.jnp.moveaxis(x, axis, -1).block_until_ready()

    def move_back(self, x, axis):
        return self.jnp.moveaxis(x, -1, axis)

    def reshape(self, x, shape):
        return x.reshape(shape).block_until_ready()

    def assign(self, out, value):
        if out is not None:
            raise bad_argument("out= is not supported for JAX arrays (they are immutable)")
        return value


_BY_MODULE = {"torch": _Torch, "cupy": _Cupy, "numba": _Numba, "numba_cuda": _Numba,
              "jax": _Jax, "jaxlib": _Jax}
_cache = {}


def of(x):
    """The framework object of an array (cached per type)."""
    kind = type(x)
    fw = _cache.get(kind)
    if fw is None:
        module = getattr(kind, "__module__", "").split(".")[0]
        cls = _BY_MODULE.get(module)
        if cls is None:
            if not hasattr(x, "__cuda_array_interface__"):
                raise unsupported(
                    f"expected a CUDA array (an object with __cuda_array_interface__, a "
                    f"torch/cupy/numba/jax array), got {kind.__module__}.{kind.__name__}")
            cls = _Framework
        elif cls is _Jax and not hasattr(x, "__dlpack__"):
            raise unsupported(f"unsupported JAX object {kind.__name__}")
        fw = _cache[kind] = cls()
    return fw

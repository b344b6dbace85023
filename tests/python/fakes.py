"""Arrays known only by __cuda_array_interface__, for tests that never reach a GPU."""


class FakeCudaArray:
    def __init__(self, shape, typestr="<f4", strides=None, ptr=0x10000, stream=None):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": typestr, "data": (ptr, False),
            "strides": strides, "version": 3}
        if stream is not None:
            self.__cuda_array_interface__["stream"] = stream


class Call:
    """One recorded C call: its name and arguments (an init by reference is
    unwrapped to its ctypes value in `init`)."""

    def __init__(self, name, args):
        self.name, self.args = name, args

    def init(self):
        ref = self.args[-2]
        return None if ref is None else ref._obj

    def __repr__(self):
        return f"{self.name}{self.args}"


class RecordingLibrary:
    """Stands in for libscantune: every scantune_* function records its call and
    returns `status` (0, success), so the binding's choice of C calls and argument
    types is tested without a GPU."""

    def __init__(self):
        self.calls = []
        self.status = 0
        self.error = b""

    def __getattr__(self, name):
        if not name.startswith("scantune_"):
            raise AttributeError(name)

        def record(*args):
            self.calls.append(Call(name, args))
            return self.status
        return record

    def scantune_last_error(self):
        return self.error

    def scantune_last_error_log(self):
        return b""

    def scantune_status_string(self, status):
        return b"recorded failure"

    def scantune_logaddexp_op(self, name, body, identity):
        """Fills the three out-pointers (byref'd c_char_p) as the library does."""
        for ref, text in zip((name, body, identity), (b"logaddexp", b"return a;", b"-inf")):
            ref._obj.value = text

    def names(self):
        return [c.name for c in self.calls]


class FakeArray:
    """An array of a RecordingFramework: a shape, a dtype name (bfloat16 included,
    which __cuda_array_interface__ cannot name) and a fake device pointer."""

    def __init__(self, shape, dtype, strides=None, ptr=0x10000):
        self.shape, self.dtype, self.strides, self.ptr = tuple(shape), dtype, strides, ptr


class TorchArray(FakeArray):
    """Follows torch's dtype rules."""


class NumpyArray(FakeArray):
    """Follows NumPy's and CuPy's dtype rules."""


def make_framework():
    """A framework that allocates fake arrays and records every copy it makes
    (casts, flips, moves, assignments) in `copies`. Imported lazily so that this
    module imports without the package."""
    from scantune import _frameworks

    class RecordingFramework(_frameworks._Framework):
        def __init__(self, rule):
            self.rule, self.name, self.copies, self.next_ptr = rule, f"fake {rule}", [], 0x100000

        def _new(self, like, shape, dtype):
            self.next_ptr += 0x100000
            return type(like)(shape, dtype, ptr=self.next_ptr)

        def view(self, x):
            return _frameworks.View(x.ptr, x.shape, x.strides, x.dtype)

        def device(self, x):
            return 0

        def stream(self, x):
            return 0

        def empty(self, shape, dtype, like):
            return self._new(like, shape, dtype)

        def astype(self, x, dtype):
            self.copies.append(("astype", x.dtype, dtype))
            return self._new(x, x.shape, dtype)

        def flip(self, x, axis):
            self.copies.append(("flip", axis))
            return self._new(x, x.shape, x.dtype)

        def move_last(self, x, axis):
            self.copies.append(("move_last", axis))
            shape = list(x.shape)
            shape.append(shape.pop(axis))
            return self._new(x, shape, x.dtype)

        def move_back(self, x, axis):
            shape = list(x.shape)
            shape.insert(axis, shape.pop())
            return type(x)(shape, x.dtype, ptr=x.ptr, strides=(0,) * len(shape))  # a view

        def reshape(self, x, shape):
            if self.view(x).dense():
                return type(x)(shape, x.dtype, ptr=x.ptr)
            self.copies.append(("reshape",))
            return self._new(x, shape, x.dtype)

        def assign(self, out, value):
            self.copies.append(("assign",))
            return out

    return RecordingFramework


def library_or_skip():
    """libscantune, or the calling test skipped where it cannot be loaded."""
    import pytest
    import scantune
    from scantune import _loader
    try:
        return _loader.library()
    except scantune.ScantuneError as e:
        pytest.skip(f"libscantune not loadable here ({e}); set SCANTUNE_LIBRARY")


def gpu_present():
    import scantune
    from scantune import _loader
    try:
        library_or_skip()
        _loader.current_device()
        return True
    except scantune.ScantuneError:
        return False


def skip_unless_no_gpu():
    """For tests of the error a call gives without a GPU: skipped where the library
    cannot be loaded or a GPU is present."""
    import pytest
    library_or_skip()
    if gpu_present():
        pytest.skip("a GPU is present")

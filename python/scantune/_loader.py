"""Finds and loads libscantune through ctypes, lazily: importing scantune never
loads it, so the package imports on machines without CUDA; the first call does."""

import ctypes
import ctypes.util
import glob
import os
import threading

from ._errors import KINDS, ScantuneRuntimeError, error_for

SOVERSION = 0
# libscantune needs these from the CUDA toolkit; where the loader's paths miss them,
# the toolkit's usual folder is tried before giving up.
_CUDA_LIB_DIRS = ("/usr/local/cuda/lib64", "/usr/local/cuda/lib")
_CUDA_DEPS = ("libcudart.so.*[0-9]", "libnvrtc.so.*[0-9]")

_lock = threading.RLock()
_lib = None
_cudart = None

_p = ctypes.c_void_p
_size = ctypes.c_size_t
_int = ctypes.c_int
# name: argument types (every function returns scantune_status_t, an int).
_SIGNATURES = {
    "scantune_scanner_create": (ctypes.POINTER(_p), _int, ctypes.c_char_p, ctypes.c_char_p),
    "scantune_inclusive_scan": (_p, _int, _int, _p, _p, _size, _p),
    "scantune_exclusive_scan": (_p, _int, _int, _p, _p, _size, _p, _p),
    "scantune_custom_scan": (_p, _int, _int, ctypes.c_char_p, ctypes.c_char_p,
                             ctypes.c_char_p, _p, _p, _size, _p, _p),
    "scantune_prepare": (_p, _int, _int, _int, _size),
    "scantune_segmented_scan": (_p, _int, _int, _int, _p, _p, _size, _p, _size, _p, _p),
    "scantune_scan_by_key": (_p, _int, _int, _int, _p, _p, _size, _p, _int, _p, _p),
    "scantune_segmented_scan_offsets": (_p, _int, _int, _int, _p, _p, _size, _p, _int, _size,
                                        _p, _p),
    "scantune_axis_scan": (_p, _int, _int, _int, _p, _p, _size, _size, _size, _p, _p),
    "scantune_reverse_scan": (_p, _int, _int, _int, _p, _p, _size, _p, _p),
    "scantune_scan_types": (_p, _int, _int, _int, _int, _int, _int, _p, _p, _size, _p, _p),
    "scantune_reduce": (_p, _int, _int, _p, _p, _size, _p),
    "scantune_compact": (_p, _int, _int, _p, _p, ctypes.c_char_p, ctypes.c_char_p, _p, _size, _p,
                         _p),
    "scantune_selected_count": (_p, _p, ctypes.POINTER(ctypes.c_uint64)),
    "scantune_sort": (_p, _int, _p, _p, _p, _p, _size, _size, _int, ctypes.c_uint, ctypes.c_uint,
                      _p),
}


def candidates():
    """Where libscantune is looked for, in order: $SCANTUNE_LIBRARY, the copy the
    install step put in the package, then the system loader's name."""
    env = os.environ.get("SCANTUNE_LIBRARY")
    if env:
        return [env]
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib")
    found = sorted(glob.glob(os.path.join(here, "libscantune.so*")), key=len)
    system = ctypes.util.find_library("scantune")
    return found + [f"libscantune.so.{SOVERSION}"] + ([system] if system else [])


def _preload_cuda():
    """Loads cudart and NVRTC from the toolkit folder, globally, so that
    libscantune's NEEDED entries resolve where the loader's paths lack them."""
    for d in _CUDA_LIB_DIRS:
        for pattern in _CUDA_DEPS:
            for path in sorted(glob.glob(os.path.join(d, pattern)), key=len)[:1]:
                try:
                    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
                except OSError:
                    pass


def _open():
    errors = []
    for retry in (False, True):
        if retry:
            _preload_cuda()
        for path in candidates():
            try:
                return ctypes.CDLL(path)
            except OSError as e:
                errors.append(f"{path}: {e}")
    raise ScantuneRuntimeError(
        "libscantune could not be loaded (set SCANTUNE_LIBRARY to its path, or run "
        "scripts/python_install.sh); tried:\n  " + "\n  ".join(errors), "library")


def _declare(lib):
    for name, args in _SIGNATURES.items():
        f = getattr(lib, name)
        f.argtypes = args
        f.restype = _int
    for name in ("scantune_last_error", "scantune_last_error_log"):
        getattr(lib, name).restype = ctypes.c_char_p
        getattr(lib, name).argtypes = ()
    lib.scantune_status_string.restype = ctypes.c_char_p
    lib.scantune_status_string.argtypes = (_int,)
    lib.scantune_logaddexp_op.restype = None
    lib.scantune_logaddexp_op.argtypes = (ctypes.POINTER(ctypes.c_char_p),) * 3


def library():
    """The loaded library (loaded on first use); raises ScantuneRuntimeError."""
    global _lib
    if _lib is not None:  # loaded: no lock on the per-call path
        return _lib
    with _lock:
        if _lib is None:
            lib = _open()
            _declare(lib)
            _lib = lib
        return _lib


def check(status):
    """Raises the exception of a failed status, with the library's message (and the
    NVRTC log for a compile error); called on the thread that made the call, since
    the library's last error is per thread."""
    if status == 0:
        return
    lib = library()
    message = (lib.scantune_last_error() or b"").decode(errors="replace")
    if not message:
        message = lib.scantune_status_string(status).decode()
    log = (lib.scantune_last_error_log() or b"").decode(errors="replace")
    if log:
        message = f"{message}\n{log}"
    raise error_for(KINDS.get(status, "internal"), message, log)


def cudart():
    """The CUDA runtime libscantune loaded (for cudaGetDevice and the like)."""
    global _cudart
    library()
    with _lock:
        if _cudart is None:
            for name in ("libcudart.so.13", "libcudart.so.12", "libcudart.so"):
                try:
                    _cudart = ctypes.CDLL(name)
                    break
                except OSError:
                    continue
            else:
                raise ScantuneRuntimeError("the CUDA runtime (libcudart) was not found", "library")
        return _cudart


def current_device():
    """cudaGetDevice, for inputs that do not name their device; raises a clear
    error without a GPU or driver."""
    dev = ctypes.c_int(-1)
    rc = cudart().cudaGetDevice(ctypes.byref(dev))
    if rc != 0:
        raise ScantuneRuntimeError(
            f"no usable CUDA device (cudaGetDevice returned error {rc}: no GPU or no "
            "driver on this machine?)", "no_device")
    return dev.value


def stream_synchronize(stream):
    rc = cudart().cudaStreamSynchronize(ctypes.c_void_p(stream))
    if rc != 0:
        raise ScantuneRuntimeError(f"cudaStreamSynchronize failed with error {rc}", "cuda")


_counts = threading.local()
_HOST_ALLOC_PORTABLE_MAPPED = 0x01 | 0x02  # cudaHostAllocPortable | cudaHostAllocMapped


def count_word():
    """This thread's 8-byte word of pinned host memory that every GPU can write (mapped,
    portable): a compaction writes its count there and the host reads it once the
    stream is synchronized, with no device-to-host copy after the kernel (a copy and
    its wait cost more than the kernel up to 2^20 elements). Returns (address for the
    device, ctypes view for the host); one word a thread, kept for the thread's life."""
    word = getattr(_counts, "word", None)
    if word is None:
        host, dev = ctypes.c_void_p(), ctypes.c_void_p()
        rc = cudart().cudaHostAlloc(ctypes.byref(host), ctypes.c_size_t(8),
                                    ctypes.c_uint(_HOST_ALLOC_PORTABLE_MAPPED))
        if rc == 0:
            rc = cudart().cudaHostGetDevicePointer(ctypes.byref(dev), host, ctypes.c_uint(0))
        if rc != 0:
            raise ScantuneRuntimeError(f"pinned memory for the count: CUDA error {rc}", "cuda")
        word = _counts.word = (dev.value, ctypes.c_uint64.from_address(host.value))
    return word


_scanners = {}


def scanner(device):
    """One scanner per device, created on first use and kept for the life of the
    process (the C++ Scanner is thread-safe; destroying it at exit could run after
    the CUDA runtime has shut down)."""
    s = _scanners.get(device)
    if s is not None:
        return s
    lib = library()
    with _lock:
        s = _scanners.get(device)
        if s is None:
            handle = ctypes.c_void_p()
            check(lib.scantune_scanner_create(ctypes.byref(handle), device, None, None))
            s = _scanners[device] = handle
        return s

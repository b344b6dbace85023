"""Exceptions: every failure is a ScantuneError carrying the library's kind and message."""

# Status codes of scantune_status_t (runtime/include/scantune/scantune.h).
KINDS = {
    1: "invalid_argument",
    2: "unsupported",
    3: "compile",
    4: "cuda",
    5: "no_device",
    6: "internal",
    7: "database",
}


class ScantuneError(Exception):
    """Base of every scantune error. ``kind`` names the library's status
    ("invalid_argument", "unsupported", "compile", "cuda", "no_device",
    "internal", "database", or "library" when libscantune cannot be loaded);
    ``log`` holds the NVRTC log of a compile error ("" otherwise)."""

    def __init__(self, message, kind, log=""):
        super().__init__(message)
        self.kind = kind
        self.log = log


class ScantuneValueError(ScantuneError, ValueError):
    """A bad argument (status SCANTUNE_ERROR_INVALID_ARGUMENT)."""


class ScantuneTypeError(ScantuneError, TypeError):
    """An unsupported element type or operator (SCANTUNE_ERROR_UNSUPPORTED)."""


class ScantuneRuntimeError(ScantuneError, RuntimeError):
    """CUDA, compile, device, database and internal errors."""


def error_for(kind, message, log=""):
    """The exception class that matches a kind, instantiated."""
    if kind == "invalid_argument":
        return ScantuneValueError(message, kind, log)
    if kind == "unsupported":
        return ScantuneTypeError(message, kind, log)
    return ScantuneRuntimeError(message, kind, log)


def bad_argument(message):
    return error_for("invalid_argument", message)


def unsupported(message):
    return error_for("unsupported", message)

import os
import sys

import pytest

# The package from this checkout unless PYTHONPATH names another one.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, "..", "..", "python"))


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU and torch (or cupy/jax)")


@pytest.fixture
def recording(monkeypatch):
    """The recording library in place of libscantune, and recording frameworks for
    fakes.TorchArray and fakes.NumpyArray: yields (library, {rule: framework})."""
    import fakes
    from scantune import _frameworks, _loader

    lib = fakes.RecordingLibrary()
    monkeypatch.setattr(_loader, "_lib", lib)
    monkeypatch.setattr(_loader, "scanner", lambda device: "scanner")
    monkeypatch.setattr(_loader, "current_device", lambda: 0)
    framework = fakes.make_framework()
    frameworks = {"torch": framework("torch"), "numpy": framework("numpy")}
    monkeypatch.setitem(_frameworks._cache, fakes.TorchArray, frameworks["torch"])
    monkeypatch.setitem(_frameworks._cache, fakes.NumpyArray, frameworks["numpy"])
    yield lib, frameworks

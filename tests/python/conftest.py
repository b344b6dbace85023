import os
import sys

# The package from this checkout unless PYTHONPATH names another one.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, "..", "..", "python"))


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU and torch (or cupy/jax)")

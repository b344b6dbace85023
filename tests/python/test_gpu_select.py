"""masked_select, unique_consecutive, partition and reduce against torch on a GPU.
Results are compared bit for bit (through same-width signed integer views, which
torch supports for every op, unlike uint32/uint64). Skipped without torch and a
CUDA device."""

import math

import pytest

import scantune

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")]

WIDE = ["int32", "uint32", "int64", "uint64", "float32", "float64"]  # what reduce takes
DTYPES = WIDE + ["int8", "uint8", "int16", "uint16", "float16", "bfloat16", "bool"]
SIZES = [0, 1, 2, 3, 7, 1009, 100003, (1 << 20) + 3]
MASKS = ["half", "sparse", "all", "none"]
_BITS = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def bits(t):
    return t.view(_BITS[t.element_size()])


def values(n, dtype, seed=0):
    """Small values, so that runs of equal neighbours (unique) are frequent."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randint(0, 4, (n,), generator=g, device="cuda").to(getattr(torch, dtype))


def make_mask(n, kind, dtype=torch.bool, seed=1):
    g = torch.Generator(device="cuda").manual_seed(seed)
    if kind in ("all", "none"):
        m = torch.full((n,), kind == "all", device="cuda", dtype=torch.bool)
    else:
        m = torch.rand(n, generator=g, device="cuda") < (0.5 if kind == "half" else 0.05)
    # uint8 masks: any nonzero byte selects
    return m if dtype == torch.bool else m.to(torch.uint8) * 3


@pytest.mark.parametrize("kind", MASKS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_select_matches_torch(dtype, n, kind):
    x = values(n, dtype)
    m = make_mask(n, kind)
    y = scantune.masked_select(x, m)
    assert y.dtype == x.dtype and y.device == x.device
    assert torch.equal(bits(y), torch.masked_select(bits(x), m))


@pytest.mark.parametrize("kind", MASKS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_partition_is_stable(dtype, n, kind):
    x = values(n, dtype)
    m = make_mask(n, kind, torch.uint8)
    y, count = scantune.partition(x, m)
    b = m.bool()
    assert count == int(b.sum())
    assert torch.equal(bits(y), torch.cat([bits(x)[b], bits(x)[~b]]))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_unique_consecutive_matches_torch(dtype, n):
    x = values(n, dtype)
    assert torch.equal(bits(scantune.unique_consecutive(x)), torch.unique_consecutive(bits(x)))
    same = torch.full((n,), 5, device="cuda").to(x.dtype)
    assert scantune.unique_consecutive(same).numel() == min(n, 1)


def test_out_and_in_place():
    x = values(100003, "int32")
    m = make_mask(x.numel(), "half")
    want = torch.masked_select(x, m)
    out = torch.empty_like(x)
    y = scantune.masked_select(x, m, out=out)
    assert torch.equal(y, want) and y.data_ptr() == out.data_ptr()
    z = scantune.masked_select(x, m, out=x)  # exactly in place
    assert torch.equal(z, want)
    with pytest.raises(ValueError, match="cannot run in place"):
        scantune.partition(x, m, out=x)


def test_errors_on_torch_arrays():
    x = values(64, "int32")
    with pytest.raises(ValueError, match="dense 1-d"):
        scantune.masked_select(x[::2], make_mask(32, "half"))
    with pytest.raises(ValueError, match="dense 1-d"):
        scantune.unique_consecutive(x.view(8, 8))
    with pytest.raises(TypeError, match="complex64"):
        scantune.masked_select(x.to(torch.complex64), make_mask(64, "half"))
    with pytest.raises(ValueError, match="mask of dtype float32"):
        scantune.partition(x, x.float())


def test_non_default_stream():
    s = torch.cuda.Stream()
    base = values(1 << 22, "int64")
    m = make_mask(base.numel(), "half")
    with torch.cuda.stream(s):
        torch.cuda._sleep(200_000_000)  # x is ready on s only: a call elsewhere reads stale data
        x = base + 1
        y = scantune.masked_select(x, m)
        r = scantune.reduce(x)
    s.synchronize()
    assert torch.equal(y, torch.masked_select(base + 1, m))
    assert int(r) == int((base + 1).sum())


@pytest.mark.parametrize("n", [0, 1, 1009, (1 << 20) + 3])
@pytest.mark.parametrize("dtype", WIDE)
@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_reduce_matches_torch(op, dtype, n):
    x = values(n, dtype)
    r = scantune.reduce(x, op)
    assert r.shape == () and r.dtype == x.dtype and r.device == x.device
    if n == 0:  # the identity; float min and max skip NaN, so theirs is NaN
        if op != "sum" and dtype.startswith("float"):
            assert math.isnan(r.item())
        else:
            want = {"sum": 0, "max": scantune._api.identity(3, dtype),
                    "min": scantune._api.identity(2, dtype)}[op]
            assert r.item() == want
        return
    wide = x.double() if dtype.startswith("float") else x.to(torch.int64)
    want = {"sum": wide.sum(), "max": wide.max(), "min": wide.min()}[op]
    assert r.item() == want.item()  # small integral values: exact in floats too


def test_reduce_strided_and_out():
    x = values(3000, "int64").view(30, 100)
    assert int(scantune.reduce(x.t())) == int(x.sum())
    out = torch.empty(1, dtype=torch.int64, device="cuda")
    assert scantune.reduce(x, "max", out=out) is out and int(out) == int(x.max())


def test_cupy_input():
    cp = pytest.importorskip("cupy")
    x = cp.random.randint(0, 4, size=100003).astype(cp.int32)
    m = cp.random.rand(100003) < 0.3
    assert (scantune.masked_select(x, m) == x[m]).all()
    y, count = scantune.partition(x, m)
    assert count == int(m.sum()) and (y == cp.concatenate([x[m], x[~m]])).all()
    assert int(scantune.reduce(x)) == int(x.sum())


def test_jax_input():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX has no GPU")
    x = jnp.arange(100003, dtype=jnp.int32) % 5
    m = x > 2
    assert bool((scantune.masked_select(x, m) == x[m]).all())
    assert bool((scantune.unique_consecutive(jnp.repeat(x[:50], 3)) == x[:50]).all())

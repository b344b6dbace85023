"""Results against the frameworks' own functions on a GPU. Integers must match
exactly; float sums are compared with a float64 reference within
1e-4 * cumsum(|x|) (float32) or 1e-10 * cumsum(|x|) (float64), since the
summation order differs. Skipped without torch and a CUDA device."""

import math

import pytest

import scantune

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")]

DTYPES = ["int32", "uint32", "int64", "uint64", "float32", "float64"]
SIZES = [1, 1000, (1 << 20) + 3]


def data(n, dtype, op, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    if op == "prod":  # no overflow: +-1 for integers, close to 1 for floats
        if dtype.startswith("float"):
            x = 1 + (torch.rand(n, generator=g, device="cuda", dtype=torch.float64) - 0.5) * 1e-4
        else:
            x = torch.randint(0, 2, (n,), generator=g, device="cuda") * 2 - 1
            x = x.abs() if dtype.startswith("u") else x
    elif dtype.startswith("float"):
        x = torch.randn(n, generator=g, device="cuda", dtype=torch.float64)
    else:
        lo = 0 if dtype.startswith("u") else -1000
        x = torch.randint(lo, 1000, (n,), generator=g, device="cuda")
    return x.to(getattr(torch, dtype))


def reference(x64, op):
    """The scan of x (converted to float64 or int64) by torch."""
    if op == "sum":
        return torch.cumsum(x64, 0)
    if op == "prod":
        return torch.cumprod(x64, 0)
    return (torch.cummax if op == "max" else torch.cummin)(x64, 0).values


def assert_scan_equal(y, x, op):
    wide = torch.float64 if x.dtype.is_floating_point else torch.int64
    x64 = x.to(wide)
    ref = reference(x64, op)
    if x.dtype.is_floating_point and op in ("sum", "prod"):
        tol = 1e-4 if x.dtype == torch.float32 else 1e-10
        bound = tol * torch.cumsum(x64.abs(), 0) + tol
        assert bool(((y.to(torch.float64) - ref).abs() <= bound).all())
    elif x.dtype in (torch.uint32, torch.uint64) and op in ("max", "min"):
        assert torch.equal(y.to(wide), ref)
    else:
        assert torch.equal(y.to(wide), ref.to(y.dtype).to(wide))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["sum", "prod", "max", "min"])
def test_matches_torch(op, dtype, n):
    x = data(n, dtype, op)
    y = scantune.scan(x, op, dtype=x.dtype)
    assert y.dtype == x.dtype and y.shape == x.shape and y.device == x.device
    assert_scan_equal(y, x, op)


@pytest.mark.parametrize("op,fn", [("bit_and", "bitwise_and"), ("bit_or", "bitwise_or"),
                                   ("bit_xor", "bitwise_xor")])
@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64"])
def test_bitwise_matches_numpy(op, fn, dtype):
    np = pytest.importorskip("numpy")
    x = data(5000, dtype, "sum")
    y = scantune.scan(x, op)
    host = x.to(torch.int64).cpu().numpy().astype(dtype)
    assert (y.cpu().to(torch.int64).numpy().astype(dtype) == getattr(np, fn).accumulate(host)).all()


def test_default_dtypes_follow_torch():
    x = torch.arange(10, device="cuda", dtype=torch.int32)
    assert scantune.cumsum(x).dtype == torch.int64
    assert scantune.cumsum(x, dtype=torch.int32).dtype == torch.int32
    assert scantune.cummax(x).dtype == torch.int32
    b = torch.ones(10, device="cuda", dtype=torch.bool)
    assert torch.equal(scantune.cumsum(b), torch.cumsum(b, 0))


def test_exclusive_and_init():
    x = data(10000, "int64", "sum")
    y = scantune.scan(x, exclusive=True, init=7)
    ref = torch.cat([torch.zeros(1, device="cuda", dtype=torch.int64), torch.cumsum(x, 0)[:-1]]) + 7
    assert torch.equal(y, ref)
    z = scantune.scan(x, "max", exclusive=True)
    assert z[0] == torch.iinfo(torch.int64).min


def test_views_and_dims():
    base = data(3 * 4096 + 5, "float64", "sum")
    for view in (base[::3], base[5:], base[5:].view(3, 4096), base[5:].view(3, 4096).t()):
        for dim in range(view.dim()):
            assert torch.allclose(scantune.cumsum(view, dim), torch.cumsum(view, dim))
    m = base[5:].view(3, 4096)
    assert torch.allclose(scantune.cumsum(m), torch.cumsum(m.flatten(), 0))


def test_out_in_place():
    x = data(4096, "int32", "sum").view(64, 64)
    out = torch.empty(64, 64, dtype=torch.int32, device="cuda")
    assert scantune.cumsum(x, 1, dtype=torch.int32, out=out) is out
    assert torch.equal(out, torch.cumsum(x, 1, dtype=torch.int32))
    strided = torch.empty(64, 128, dtype=torch.int32, device="cuda")[:, ::2]
    scantune.cumsum(x, 0, dtype=torch.int32, out=strided)
    assert torch.equal(strided, torch.cumsum(x, 0, dtype=torch.int32))


def test_custom_operator():
    x = data(100000, "float32", "sum")
    y = scantune.scan(x, custom=("absmax", "return fabsf(a) > fabsf(b) ? a : b;", "0.0f"))
    ref = x.cpu()
    for i in range(1, len(ref)):  # the reference on a prefix only: a Python loop
        if i > 2000:
            break
        ref[i] = ref[i] if abs(ref[i]) > abs(ref[i - 1]) else ref[i - 1]
    assert torch.equal(y[:2000].cpu(), ref[:2000])


def test_errors():
    with pytest.raises(TypeError, match="complex64"):
        scantune.cumsum(torch.ones(8, device="cuda", dtype=torch.complex64))
    with pytest.raises(TypeError):
        scantune.scan(torch.ones(8, device="cuda"), "bit_and")
    with pytest.raises(RuntimeError) as e:
        scantune.scan(torch.ones(8, device="cuda"), custom=("bad", "return a +* ;", "0.0f"))
    assert e.value.kind == "compile" and e.value.log


def test_non_default_torch_stream():
    s = torch.cuda.Stream()
    base = data(1 << 22, "float32", "sum")
    with torch.cuda.stream(s):
        torch.cuda._sleep(200_000_000)  # x is ready on s only: a scan elsewhere reads stale data
        x = base * 2
        y = scantune.cumsum(x)
    s.synchronize()
    assert_scan_equal(y, base * 2, "sum")


def test_graph_capture():
    x = data(1 << 20, "float32", "sum")
    scantune.cumsum(x)  # compiles (and allocates the workspace) before capture
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = scantune.cumsum(x)
    x.copy_(data(1 << 20, "float32", "sum", seed=1))
    g.replay()
    torch.cuda.synchronize()
    assert_scan_equal(y, x, "sum")


def test_cupy_input_and_stream():
    cp = pytest.importorskip("cupy")
    x = cp.random.randint(-1000, 1000, size=(1 << 20) + 1, dtype=cp.int64)
    assert (scantune.cumsum(x) == cp.cumsum(x)).all()
    assert scantune.cumsum(x.astype(cp.int32)).dtype == cp.int64
    assert scantune.cumsum(x.astype(cp.uint32)).dtype == cp.uint64
    with cp.cuda.Stream(non_blocking=True) as s:
        f = cp.random.rand(1 << 20).astype(cp.float64)
        y = scantune.cumsum(f[::2])
        s.synchronize()
    assert cp.allclose(y, cp.cumsum(f[::2]))
    m = x[:1 << 20].reshape(1024, 1024)
    # cupy has no maximum.accumulate: NumPy's on the host is the reference
    np = pytest.importorskip("numpy")
    want = np.maximum.accumulate(cp.asnumpy(m), axis=0)
    assert (cp.asnumpy(scantune.cummax(m, 0)) == want).all()


def test_jax_input():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX has no GPU")
    x = jnp.arange(1 << 20, dtype=jnp.float32) % 7
    y = scantune.cumsum(x, dtype="float32")
    assert isinstance(y, jax.Array)
    assert bool(jnp.allclose(y, jnp.cumsum(x), rtol=1e-4))
    i = jnp.arange(4096, dtype=jnp.int32).reshape(64, 64)
    assert bool((scantune.cummax(i, 0) == jax.lax.cummax(i, axis=0)).all())


def segments_reference(x, starts, exclusive):
    """Sum scan of int64 x restarting at each index in starts (0 included)."""
    y = torch.empty_like(x)
    bounds = sorted(set(starts) | {0}) + [x.numel()]
    for b, e in zip(bounds[:-1], bounds[1:]):
        part = torch.cumsum(x[b:e], 0)
        y[b:e] = part - x[b:e] if exclusive else part
    return y


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("source", ["flags", "keys32", "keys64", "offsets32", "offsets64"])
def test_segmented_scan_sources(source, exclusive):
    n = 100003
    x = data(n, "int64", "sum")
    g = torch.Generator().manual_seed(3)
    starts = sorted(set(torch.randint(1, n, (500,), generator=g).tolist()))
    flags = torch.zeros(n, dtype=torch.uint8, device="cuda")
    flags[starts] = 1
    if source == "flags":
        y = scantune.segmented_scan(x, flags=flags, exclusive=exclusive)
    elif source.startswith("keys"):
        keys = torch.cumsum(flags.to(torch.int64), 0)
        y = scantune.segmented_scan(x, keys=keys.to(torch.int32 if source == "keys32"
                                                    else torch.int64), exclusive=exclusive)
    else:
        offsets = torch.tensor([0] + starts + [n], device="cuda",
                               dtype=torch.int32 if source == "offsets32" else torch.int64)
        y = scantune.segmented_scan(x, offsets=offsets, exclusive=exclusive)
    assert torch.equal(y, segments_reference(x, starts, exclusive))


def test_batched_rows_match_torch():
    for rows, length in ((1 << 14, 16), (3, 100000), (1000, 1)):
        x = data(rows * length, "float32", "sum").reshape(rows, length)
        want = torch.cumsum(x.double(), 1)
        got = scantune.cumsum(x, 1)
        assert torch.allclose(got.double(), want, atol=1e-3, rtol=1e-4)


def test_outer_dims_run_as_axis_scans():
    """dim 0 of 2-d and the middle dim of 3-d contiguous tensors (one axis-scan call)."""
    for shape, dim in (((1024, 300), 0), ((7, 513, 33), 1), ((5, 4, 3), 0), ((2, 3, 1), 1)):
        x = data(math.prod(shape), "float64", "sum").reshape(shape)
        assert torch.allclose(scantune.cumsum(x, dim), torch.cumsum(x, dim), rtol=1e-10, atol=1e-9)
        y = data(math.prod(shape), "int32", "max").reshape(shape)
        assert torch.equal(scantune.cummax(y, dim), torch.cummax(y, dim).values)


def test_reverse_is_a_suffix_scan():
    x = data(3 * 1000, "int64", "sum").reshape(3, 1000)
    for dim in (0, 1):
        want = torch.cumsum(x.flip(dim), dim).flip(dim)
        assert torch.equal(scantune.scan(x, "sum", dim=dim, reverse=True), want)
    flat = scantune.scan(x, "max", reverse=True, exclusive=True, init=-5)
    f = x.flatten().flip(0)
    shifted = torch.cat([torch.tensor([-5], device="cuda"), f[:-1]])
    assert torch.equal(flat, torch.cummax(shifted, 0).values.clamp(min=-5).flip(0))

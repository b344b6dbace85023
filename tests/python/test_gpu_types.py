"""Narrow element types and reverse scans against torch on a GPU. Integer results
must match torch exactly. float16 and bfloat16 sums are compared with torch's sum
of the same data in float64, rounded to the result type, within
    eps * |ref| + 1e-6 * log2(n + 2) * cumsum(|x|)  (+ eps for values near 0),
eps the result type's unit roundoff doubled (2^-10 half, 2^-7 bfloat16): one
rounding of the stored result plus float32 accumulation, whose error grows with
the depth of the scan. Skipped without torch and a CUDA device."""

import math

import pytest

import scantune

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")]

SIZES = [0, 1, 1000003, (1 << 20) + 3]
INTEGERS = ["int8", "uint8", "int16", "bool"]
HALVES = ["float16", "bfloat16"]
EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


def data(n, dtype, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    if dtype in HALVES:
        return torch.randn(n, generator=g, device="cuda", dtype=torch.float64).to(
            getattr(torch, dtype))
    if dtype == "bool":
        return torch.randint(0, 2, (n,), generator=g, device="cuda").bool()
    info = torch.iinfo(getattr(torch, dtype))
    return torch.randint(info.min, info.max + 1, (n,), generator=g, device="cuda").to(
        getattr(torch, dtype))


def assert_half_sum(y, x, ref64):
    n = x.numel()
    eps = EPS[str(x.dtype)[6:]]
    bound = eps * ref64.abs() + 1e-6 * math.log2(n + 2) * torch.cumsum(x.double().abs(), 0) + eps
    assert bool(((y.double() - ref64).abs() <= bound).all())


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", INTEGERS + HALVES)
def test_cumsum_matches_torch(dtype, n):
    x = data(n, dtype)
    y = scantune.cumsum(x)
    want = torch.cumsum(x, 0)
    assert y.dtype == want.dtype and y.shape == x.shape
    if dtype in HALVES:
        assert_half_sum(y, x, torch.cumsum(x.double(), 0))
    else:
        assert torch.equal(y, want)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", INTEGERS + HALVES + ["uint16"])
@pytest.mark.parametrize("op", ["max", "min"])
def test_cummax_cummin_on_narrow_types(op, dtype, n):
    if dtype == "uint16":
        if not hasattr(torch, "uint16"):
            pytest.skip("this torch has no uint16")
        x = data(n, "int16").to(torch.int32).add(1 << 15).to(torch.uint16)
    else:
        x = data(n, dtype)
    y = (scantune.cummax if op == "max" else scantune.cummin)(x)
    wide = torch.float64 if dtype in HALVES else torch.int64
    ref = (torch.cummax if op == "max" else torch.cummin)(x.to(wide), 0).values
    assert y.dtype == x.dtype and torch.equal(y.to(wide), ref)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
def test_explicit_dtype(dtype):
    x = data(1000003, dtype)
    for result in (torch.int32, torch.int64, torch.float64):
        assert torch.equal(scantune.cumsum(x, dtype=result), torch.cumsum(x, 0, dtype=result))


def test_half_to_float_and_exclusive_init():
    x = data(1 << 20, "float16")
    y = scantune.cumsum(x, dtype=torch.float32)
    assert y.dtype == torch.float32
    assert bool(torch.allclose(y.double(), torch.cumsum(x.double(), 0), rtol=1e-4, atol=1e-2))
    i = data(100000, "int8")
    z = scantune.scan(i, "max", exclusive=True, init=-7)
    shifted = torch.cat([torch.tensor([-7], device="cuda"), i[:-1].to(torch.int64)])
    assert z.dtype == torch.int8
    assert torch.equal(z.to(torch.int64), torch.cummax(shifted, 0).values)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ["int8", "int32", "float16", "bool"])
def test_reverse_matches_flipped_torch(dtype, n):
    x = data(n, dtype)
    y = scantune.scan(x, "sum", reverse=True)
    want = torch.flip(torch.cumsum(torch.flip(x, (0,)), 0), (0,))
    assert y.dtype == want.dtype
    if dtype in HALVES:
        ref = torch.flip(torch.cumsum(torch.flip(x.double(), (0,)), 0), (0,))
        assert_half_sum(y.flip(0), x.flip(0), ref.flip(0))
    else:
        assert torch.equal(y, want)
    if dtype in ("int8", "int32") and n:
        m = scantune.scan(x, "max", reverse=True, exclusive=True, dtype=torch.int64, init=-5)
        wide = x.to(torch.int64).flip(0)
        shifted = torch.cat([torch.tensor([-5], device="cuda"), wide[:-1]])
        assert torch.equal(m, torch.cummax(shifted, 0).values.flip(0))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "float16", "bfloat16"])
def test_dims_of_narrow_types(dtype):
    """Batched and axis scans: the framework casts to int32/float32 and back."""
    x = data(300 * 513, dtype).reshape(300, 513)
    for dim in (0, 1):
        ref = (torch.cummax(x.to(torch.float64 if dtype in HALVES else torch.int64), dim)
               .values.to(x.dtype))
        assert torch.equal(scantune.cummax(x, dim), ref)
        y = scantune.cumsum(x, dim)
        if dtype in HALVES:
            assert y.dtype == x.dtype
            ref = torch.cumsum(x.double(), dim)
            assert bool(((y.double() - ref).abs() <= EPS[dtype] * (ref.abs() + 1) + 1e-3).all())
        else:
            assert torch.equal(y, torch.cumsum(x, dim))
        if dtype not in HALVES:
            r = scantune.scan(x, "sum", dim=dim, reverse=True, dtype=torch.int64)
            assert torch.equal(r, torch.cumsum(x.flip(dim), dim).flip(dim))


def test_cupy_numpy_rules():
    cp = pytest.importorskip("cupy")
    x = cp.random.randint(0, 256, size=1000003).astype(cp.uint8)
    y = scantune.cumsum(x)
    assert y.dtype == cp.uint64 and (y == cp.cumsum(x)).all()
    b = x > 100
    assert (scantune.cumsum(b) == cp.cumsum(b)).all()


@pytest.mark.parametrize("n", [1, 4099, (1 << 20) + 3])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_logcumsumexp_matches_float64(dtype, n):
    """Against torch.logcumsumexp in float64: within the result's rounding (its unit
    roundoff doubled, of |ref|) plus float32's accumulation, (n / 256 + 64) x 2^-24 of
    (|ref| + 1); float64 within 2^-40 of (|ref| + 1)."""
    g = torch.Generator(device="cuda").manual_seed(1)
    x = (torch.rand(n, generator=g, device="cuda", dtype=torch.float64) * 10 - 5).to(
        getattr(torch, dtype))
    y = scantune.logcumsumexp(x)
    assert y.dtype == x.dtype and y.shape == x.shape
    ref = torch.logcumsumexp(x.double(), 0)
    eps = {"float32": 2.0 ** -23, "float64": 0.0, **EPS}[dtype]
    depth = 2.0 ** -40 if dtype == "float64" else (n / 256 + 64) * 2.0 ** -24
    assert ((y.double() - ref).abs() <= eps * ref.abs() + depth * (ref.abs() + 1)).all()


def test_logcumsumexp_rows_and_minus_infinity():
    x = torch.full((3, 1000), -math.inf, device="cuda")
    x[1, 500] = 2.0
    y = scantune.logcumsumexp(x, dim=1)
    assert torch.equal(y, torch.logcumsumexp(x, 1))

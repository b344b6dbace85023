"""sort against torch.sort(stable=True) on a GPU: keys bit for bit, the order of
equal keys through an index payload. Skipped without torch and a CUDA device."""

import pytest

import scantune

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")]

# torch sorts no uint32/uint64: those are checked through a reference below.
DTYPES = ["int32", "int64", "float32", "float64"]
SIZES = [0, 1, 2, 31, 1009, 100003, (1 << 20) + 7]


def keys(n, dtype, seed=0, few=False):
    """Random keys of both signs (floats without zeros: torch sorts -0.0 and +0.0 as
    equal, scantune -0.0 first); `few`: 5 distinct values, many ties."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    if few:
        return torch.randint(-2, 3, (n,), generator=g, device="cuda").to(getattr(torch, dtype))
    if dtype.startswith("float"):
        return torch.randn(n, generator=g, device="cuda", dtype=getattr(torch, dtype)) * 1e3 + 0.5
    info = torch.iinfo(getattr(torch, dtype))
    return torch.randint(info.min, info.max, (n,), generator=g, device="cuda",
                         dtype=getattr(torch, dtype))


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("few", [False, True])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_pairs_match_stable_torch_sort(dtype, n, few, descending):
    x = keys(n, dtype, seed=n, few=few)
    idx = torch.arange(n, device="cuda")
    k, v = scantune.sort(x, idx, descending=descending)
    want_k, want_v = torch.sort(x, stable=True, descending=descending)
    assert k.dtype == x.dtype and v.dtype == idx.dtype and k.device == x.device
    assert torch.equal(k, want_k)
    assert torch.equal(v, want_v)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("few", [False, True])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_indices_match_stable_torch_sort(dtype, n, few, descending):
    """return_indices=True: torch.sort(stable=True)'s pair, the indices made by the sort."""
    x = keys(n, dtype, seed=n + 1, few=few)
    k, i = scantune.sort(x, descending=descending, return_indices=True)
    want_k, want_i = torch.sort(x, stable=True, descending=descending)
    assert i.dtype == torch.int64 and i.device == x.device
    assert torch.equal(k, want_k)
    assert torch.equal(i, want_i)


def test_int32_indices_through_out():
    x = keys(100003, "float32", seed=11, few=True)
    ko, io = torch.empty_like(x), torch.empty(100003, device="cuda", dtype=torch.int32)
    k, i = scantune.sort(x, out=(ko, io), return_indices=True)
    assert k is ko and i is io
    assert torch.equal(i.long(), torch.sort(x, stable=True).indices)


@pytest.mark.parametrize("dtype", ["uint32", "uint64"])
def test_unsigned_keys_against_their_signed_image(dtype):
    """uint keys sort as their bits flipped at the sign sort as signed ints."""
    signed = {"uint32": torch.int32, "uint64": torch.int64}[dtype]
    s = keys(100003, str(signed)[len("torch."):], seed=3)
    sign = torch.tensor(-(1 << (8 * s.element_size() - 1)), dtype=signed, device="cuda")
    u = (s ^ sign).view(getattr(torch, dtype))
    got = scantune.sort(u).view(signed) ^ sign
    assert torch.equal(got, torch.sort(s).values)


def test_float_specials_and_bit_range():
    x = torch.tensor([1.0, float("nan"), -0.0, 0.0, -float("inf"), 2.0, -1.0], device="cuda")
    got = scantune.sort(x)
    want = torch.tensor([-float("inf"), -1.0, -0.0, 0.0, 1.0, 2.0, float("nan")], device="cuda")
    assert torch.equal(got.view(torch.int32)[:-1], want.view(torch.int32)[:-1])
    assert torch.isnan(got[-1])
    # Only bits [0, 8): keys ordered by their low byte, ties in input order.
    y = torch.tensor([0x105, 0x003, 0x204, 0x103], device="cuda", dtype=torch.int32)
    assert scantune.sort(y, end_bit=8).tolist() == [0x003, 0x103, 0x204, 0x105]


def test_out_pair_and_stream():
    x = keys(5000, "float32", seed=7)
    ko, vo = torch.empty_like(x), torch.empty(5000, device="cuda", dtype=torch.int64)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        k, v = scantune.sort(x, torch.arange(5000, device="cuda"), out=(ko, vo))
    s.synchronize()
    assert k is ko and v is vo
    assert torch.equal(v, torch.sort(x, stable=True).indices)

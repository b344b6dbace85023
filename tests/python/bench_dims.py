"""scantune.cumsum(x, dim=d) against torch.cumsum(x, dim=d), cupy.cumsum(axis=d) and a
copy of the same tensor (memcpy), for 2-D shapes scanned along either dimension and a
3-D one along its middle: batched rows (last dim) and axis scans (outer dims) without a
transposing copy. Same dtype in and out, same stream, CUDA events (warmup, then the
median of repeats); each result is checked first: integers exactly against torch,
float32 against a float64 reference, no further off than twice torch's float32 error
plus 1e-5 relative. Prints a markdown table; "x memcpy" is
the copy's time over the scan's (the same bytes read and written).

    python3 tests/python/bench_dims.py [--repeats 30] [--dtypes float32,int32,int64,float64]
"""

import math

import torch

import scantune
from bench_cumsum import setup, time_ms

SHAPES = [((1 << 14, 1 << 10), (1, 0)), ((1 << 10, 1 << 14), (1, 0)), ((1 << 20, 16), (1, 0)),
          ((1 << 24, 4), (1, 0)), ((4, 1 << 24), (1, 0)), ((1 << 8, 1 << 10, 1 << 8), (1,)),
          ((64, 1 << 20), (0,)), ((1 << 19, 2, 32), (1,)), ((1 << 20, 3, 8), (1,))]


def data(shape, dtype):
    g = torch.Generator(device="cuda").manual_seed(1)
    if dtype.is_floating_point:
        return torch.rand(shape, device="cuda", generator=g, dtype=dtype) - 0.5
    return torch.randint(-100, 100, shape, device="cuda", dtype=dtype, generator=g)


def checked(x, dim, out):
    """scantune's result against a wide reference: 'ok' or how many elements differ.
    Integers exactly (the exactness check); floats within (len / 32 + 64) epsilons of
    their type of the running sum of magnitudes: the carries between chunks of a column
    add up one after another, so the rounding bound grows with len (a sanity check)."""
    scantune.cumsum(x, dim=dim, dtype=x.dtype, out=out)
    if x.dtype.is_floating_point:
        ref = torch.cumsum(x.double(), dim=dim)
        bound = torch.finfo(x.dtype).eps / 2 * (x.shape[dim] / 32 + 64)
        bad = (out.double() - ref).abs() > bound * torch.cumsum(x.double().abs(), dim=dim) + 1e-6
    else:
        bad = out != torch.cumsum(x, dim=dim, dtype=x.dtype)
    return "ok" if not bool(bad.any()) else f"WRONG at {int(bad.sum())} elements"


def timed(fn, repeats):
    """time_ms in us, with fewer repeats for calls that take tens of milliseconds
    (torch along an outer dim of few columns takes seconds)."""
    first = time_ms(fn, 1, warmup=1)
    return time_ms(fn, max(3, min(repeats, int(200 / max(first, 1e-3)))), warmup=1) * 1e3


def batch_size(first_ms, target_ms=0.5, most=100):
    """Calls per batch: enough that a batch takes target_ms at first_ms a call, 1..most."""
    return max(1, min(most, math.ceil(target_ms / max(first_ms, 1e-6))))


def timed_batches(fn, repeats):
    """GPU throughput in us per call: timed around a batch of k back-to-back calls
    (batch_size of a first single call), over k. A single call between two events
    also counts the host's time to launch it, which for calls of tens of microseconds
    is most of it, and differs between the calls compared; back to back, each launch
    overlaps the GPU's work of the calls before it."""
    k = batch_size(time_ms(fn, 1, warmup=1))

    def batch():
        for _ in range(k):
            fn()
    return timed(batch, repeats) / k


def main():
    args, cp = setup(__doc__.splitlines()[0],
                     [("--dtypes", "comma-separated torch dtypes",
                       {"default": "float32,int32"})])
    print("| dtype | shape | dim | check | scantune us | x memcpy | torch us | x memcpy | "
          "x torch | cupy us | x cupy |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for dtype in (getattr(torch, name) for name in args.dtypes.split(",")):
        for shape, dims in SHAPES:
            x = data(shape, dtype)
            out = torch.empty_like(x)
            copy = timed(lambda: out.copy_(x), args.repeats)
            for dim in dims:
                ok = checked(x, dim, out)
                st = timed(lambda: scantune.cumsum(x, dim=dim, dtype=dtype, out=out),
                           args.repeats)
                tt = timed(lambda: torch.cumsum(x, dim, dtype=dtype, out=out), args.repeats)
                cells = [f"{st:.1f}", f"{copy / st:.2f}", f"{tt:.1f}", f"{copy / tt:.3f}",
                         f"{tt / st:.2f}"]
                if cp is not None:
                    cx, cout = cp.asarray(x), cp.asarray(out)
                    stream = cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)

                    def cupy_run():
                        with stream:
                            cp.cumsum(cx, axis=dim, dtype=cout.dtype, out=cout)
                    ct = timed(cupy_run, args.repeats)
                    cells += [f"{ct:.1f}", f"{ct / st:.2f}"]
                else:
                    cells += ["-", "-"]
                print(f"| {str(dtype)[6:]} | {tuple(shape)} | {dim} | {ok} | "
                      + " | ".join(cells) + " |", flush=True)
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()

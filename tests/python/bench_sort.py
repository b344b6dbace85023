"""scantune.sort against torch.sort(stable=True) and cupy.sort, on random keys, on the
same stream, timed with CUDA events (warmup, then the median of repeats). Keys only,
and keys with their int64 indices (what torch.sort returns beside the values:
scantune.sort(x, return_indices=True), the indices made by the sort as torch makes
them); results are checked against torch first. Prints a markdown table; ratio > 1
means scantune is faster.

    python3 tests/python/bench_sort.py [--repeats 50] [--sizes 16,20,24,28] [--key-bits N]

--key-bits N: integer keys in [0, 2^N) (int32 and int64 only), such as indices or
labels; both libraries still sort every bit, and scantune's passes over bits that every
key shares do not run.
"""

import torch

import scantune
from bench_cumsum import setup, time_ms


def cupy_time(cp, x, repeats):
    """cupy.sort (keys only) on x's memory, on torch's current stream."""
    cx = cp.asarray(x)
    stream = cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)

    def run():
        with stream:
            return cp.sort(cx)
    return time_ms(run, repeats)


def main():
    args, cp = setup(__doc__.splitlines()[0],
                     [("--key-bits", "integer keys in [0, 2^N)", {"type": int, "default": 0})])
    if args.key_bits:
        print(f"keys: integers in [0, 2^{args.key_bits})")
    print("| dtype | n | payload | scantune ms | torch ms | torch/scantune | cupy ms "
          "| cupy/scantune |")
    print("|---|---|---|---|---|---|---|---|")
    dtypes = (torch.int32, torch.int64) if args.key_bits else (torch.int32, torch.float32,
                                                                   torch.int64)
    for dtype in dtypes:
        for log_n in (int(s) for s in args.sizes.split(",")):
            n = 1 << log_n
            if args.key_bits:
                x = torch.randint(0, 1 << args.key_bits, (n,), device="cuda", dtype=dtype)
            else:
                x = (torch.randn(n, device="cuda") * 1e6).to(dtype)
            k, v = scantune.sort(x, return_indices=True)
            want = torch.sort(x, stable=True)
            assert torch.equal(k, want.values) and torch.equal(v, want.indices)
            for payload in ("keys", "int64 indices"):
                if payload == "keys":
                    st = time_ms(lambda: scantune.sort(x), args.repeats)
                    tt = time_ms(lambda: torch.sort(x, stable=True).values, args.repeats)
                    ct = cupy_time(cp, x, args.repeats) if cp is not None else None
                else:
                    st = time_ms(lambda: scantune.sort(x, return_indices=True), args.repeats)
                    tt = time_ms(lambda: torch.sort(x, stable=True), args.repeats)
                    ct = None
                cupy = f"{ct:.4f} | {ct / st:.2f}" if ct is not None else "- | -"
                print(f"| {str(dtype)[6:]} | 2^{log_n} | {payload} | {st:.4f} | {tt:.4f} | "
                      f"{tt / st:.2f} | {cupy} |")
            del x, k, v, want
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()

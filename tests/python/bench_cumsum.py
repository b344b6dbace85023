"""scantune.cumsum against torch.cumsum and cupy.cumsum at the same output dtype,
on the same stream, timed with CUDA events (warmup, then the median of repeats).
Prints a markdown table; ratio > 1 means scantune is faster.

    python3 tests/python/bench_cumsum.py [--repeats 50] [--sizes 16,20,24,28] [--narrow]
                                         [--logcumsumexp]

--narrow times narrow inputs at torch's result types instead: int8 -> int64 (which
scantune widens inside the kernel) and float16 -> float16 (accumulated in float).
"""

import argparse
import statistics

import torch

import scantune


def time_ms(fn, repeats, warmup=5):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def cupy_case(cp, x, out):
    """cupy.cumsum on x's memory, writing out, on torch's current stream."""
    cx, cout = cp.asarray(x), cp.asarray(out)
    stream = cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)

    def run():
        with stream:
            cp.cumsum(cx, dtype=cout.dtype, out=cout)
    return run


def setup(description, options=()):
    """The options every benchmark here takes (and `options`: (flag, help) pairs of
    boolean flags, or (flag, help, add_argument's keywords) for options with a value),
    and cupy (None where it is missing)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--repeats", type=int, default=50)
    p.add_argument("--sizes", default="16,20,24,28", help="log2 of n")
    for flag, text, *keywords in options:
        p.add_argument(flag, help=text, **(keywords[0] if keywords else {"action": "store_true"}))
    args = p.parse_args()
    try:
        import cupy as cp
    except ImportError:
        cp = None
    print(f"device: {torch.cuda.get_device_name()}")
    return args, cp


# (input dtype, result dtype): same-type scans, or narrow inputs at torch's result type.
CASES = [(t, t) for t in (torch.float32, torch.int32, torch.int64)]
NARROW = [(torch.int8, torch.int64), (torch.float16, torch.float16)]


def logcumsumexp_rows(args):
    """scantune.logcumsumexp against torch.logcumsumexp (cupy has none)."""
    print("| dtype | n | scantune ms | torch ms | torch/scantune |")
    print("|---|---|---|---|---|")
    for dtype in (torch.float32, torch.float16):
        for log_n in (int(s) for s in args.sizes.split(",")):
            x = torch.rand(1 << log_n, device="cuda").to(dtype) * 10 - 5
            out = torch.empty_like(x)
            st = time_ms(lambda: scantune.logcumsumexp(x, out=out), args.repeats)
            tt = time_ms(lambda: torch.logcumsumexp(x, 0, out=out), args.repeats)
            print(f"| {str(dtype)[6:]} | 2^{log_n} | {st:.4f} | {tt:.4f} | {tt / st:.2f} |")


def main():
    args, cp = setup(__doc__.splitlines()[0], [("--narrow", "int8 -> int64 and float16 sums"),
                                               ("--logcumsumexp", "against torch's")])
    if args.logcumsumexp:
        return logcumsumexp_rows(args)
    print("| dtype | n | scantune ms | torch ms | torch/scantune | cupy ms | cupy/scantune |")
    print("|---|---|---|---|---|---|---|")
    for dtype, result in NARROW if args.narrow else CASES:
        for log_n in (int(s) for s in args.sizes.split(",")):
            n = 1 << log_n
            x = torch.randint(-100, 100, (n,), device="cuda").to(dtype)
            out = torch.empty(n, device="cuda", dtype=result)
            st = time_ms(lambda: scantune.cumsum(x, dtype=result, out=out), args.repeats)
            tt = time_ms(lambda: torch.cumsum(x, 0, dtype=result, out=out), args.repeats)
            cells = [f"{st:.4f}", f"{tt:.4f}", f"{tt / st:.2f}"]
            if cp is not None:
                ct = time_ms(cupy_case(cp, x, out), args.repeats)
                cells += [f"{ct:.4f}", f"{ct / st:.2f}"]
            else:
                cells += ["-", "-"]
            name = str(dtype)[6:] if dtype == result else f"{str(dtype)[6:]}->{str(result)[6:]}"
            print(f"| {name} | 2^{log_n} | " + " | ".join(cells) + " |")
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()

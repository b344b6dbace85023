"""scantune.masked_select against torch.masked_select and cupy's x[mask], on random
nonzero values with random masks, on the same stream, timed with CUDA events (warmup,
then the median of repeats). Every call allocates its result and synchronizes to
learn the count, as all three do. Prints a markdown table; ratio > 1 means scantune
is faster.

    python3 tests/python/bench_select.py [--repeats 50] [--sizes 16,20,24,28]
"""

import torch

import scantune
from bench_cumsum import setup, time_ms


def cupy_case(cp, x, mask):
    """cupy's boolean indexing on x's and mask's memory, on torch's current stream."""
    cx, cm = cp.asarray(x), cp.asarray(mask)
    stream = cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)

    def run():
        with stream:
            return cx[cm]
    return run


def row(cp, x, mask, repeats):
    st = time_ms(lambda: scantune.masked_select(x, mask), repeats)
    tt = time_ms(lambda: torch.masked_select(x, mask), repeats)
    cells = [f"{st:.4f}", f"{tt:.4f}", f"{tt / st:.2f}"]
    if cp is not None:
        ct = time_ms(cupy_case(cp, x, mask), repeats)
        cells += [f"{ct:.4f}", f"{ct / st:.2f}"]
    else:
        cells += ["-", "-"]
    return cells


def main():
    args, cp = setup(__doc__.splitlines()[0])
    print("| dtype | n | selected | scantune ms | torch ms | torch/scantune | cupy ms "
          "| cupy/scantune |")
    print("|---|---|---|---|---|---|---|---|")
    for dtype in (torch.int32, torch.int64, torch.int8, torch.float16):
        high = 1 << 30 if dtype.itemsize >= 4 else 100
        for log_n in (int(s) for s in args.sizes.split(",")):
            n = 1 << log_n
            x = torch.randint(1, high, (n,), device="cuda").to(dtype)  # no zeros
            for share in (0.5, 0.05):
                mask = torch.rand(n, device="cuda") < share
                assert torch.equal(scantune.masked_select(x, mask), torch.masked_select(x, mask))
                cells = row(cp, x, mask, args.repeats)
                print(f"| {str(dtype)[6:]} | 2^{log_n} | {share:.0%} | " + " | ".join(cells)
                      + " |")
                del mask
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()

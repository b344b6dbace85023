"""Host time per call of small scans and sorts: scantune.cumsum against torch.cumsum
and scantune.sort against torch.sort(stable=True) at n = 2^16 int32 (the same dtype,
out= and stream), a loop of calls between two synchronizations, so the host path, not
the GPU, sets the time (unless the GPU time is longer: then both show it). Also the
bare C calls underneath (the library's dispatch and the launch) and torch.empty_like,
for scale; the host time to enqueue a call (a short loop that never waits); and one
call from an idle GPU timed by CUDA events, as the benchmarks time it (the host's
enqueueing shows there wherever it outlasts the GPU's start).

    python3 tests/python/bench_call.py [--calls 3000] [--log2n 16]
"""

import argparse
import time

import torch

import scantune
from bench_cumsum import time_ms
from scantune import _dtypes, _loader


def us_per_call(fn, calls):
    for _ in range(calls // 10):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e6


def enqueue_us(fn, calls=100):
    """Host time per call of a loop short enough that the launch queue never fills."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=3000)
    p.add_argument("--log2n", type=int, default=16)
    args = p.parse_args()
    n = 1 << args.log2n
    x = torch.randint(-100, 100, (n,), dtype=torch.int32, device="cuda")
    out = torch.empty_like(x)
    assert torch.equal(scantune.cumsum(x, dtype=torch.int32), torch.cumsum(x, 0, dtype=torch.int32))
    lib, scanner = _loader.library(), _loader.scanner(x.get_device())
    stream = torch.cuda.current_stream().cuda_stream
    code, xp, op = _dtypes.scan_code("int32"), x.data_ptr(), out.data_ptr()
    sort_code = _dtypes.code("int32")
    assert torch.equal(scantune.sort(x), torch.sort(x, stable=True).values)
    rows = [
        ("torch.cumsum(x, 0, dtype=, out=)", lambda: torch.cumsum(x, 0, dtype=torch.int32, out=out)),
        ("scantune.cumsum(x, dtype=, out=)", lambda: scantune.cumsum(x, dtype=torch.int32, out=out)),
        ("torch.cumsum(x, 0, dtype=)", lambda: torch.cumsum(x, 0, dtype=torch.int32)),
        ("scantune.cumsum(x, dtype=)", lambda: scantune.cumsum(x, dtype=torch.int32)),
        ("bare C call (scantune_inclusive_scan)",
         lambda: lib.scantune_inclusive_scan(scanner, code, 0, xp, op, n, stream)),
        ("torch.empty_like(x)", lambda: torch.empty_like(x)),
        ("torch.sort(x, stable=True)", lambda: torch.sort(x, stable=True)),
        ("scantune.sort(x, out=)", lambda: scantune.sort(x, out=out)),
        ("scantune.sort(x)", lambda: scantune.sort(x)),
        ("bare C call (scantune_sort)",
         lambda: lib.scantune_sort(scanner, sort_code, xp, op, None, None, 0, n, 0, 0, 32,
                                   stream)),
    ]
    print(f"device: {torch.cuda.get_device_name()}, n = 2^{args.log2n} int32")
    print("| call | us per call | us to enqueue | us one call, events |\n|---|---:|---:|---:|")
    for name, fn in rows:
        print(f"| {name} | {us_per_call(fn, args.calls):.2f} | {enqueue_us(fn):.2f} | "
              f"{time_ms(fn, 50) * 1e3:.2f} |")


if __name__ == "__main__":
    main()

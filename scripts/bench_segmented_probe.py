# Segmented scans (rows of a batched scan, head flags) against torch.cumsum and memcpy on
# this GPU, in one process, through the C API (ctypes): CUDA events, 3 warm-up calls,
# medians of 20. Usage: python3 scripts/bench_segmented_probe.py path/to/libscantune.so.0
# (docs/performance.md, "Segmented and batched scans").
import ctypes, sys, statistics, torch
lib = ctypes.CDLL(sys.argv[1])
S = ctypes.c_void_p()
assert lib.scantune_scanner_create(ctypes.byref(S), -1, b"off", None) == 0, lib.scantune_last_error
f = lib.scantune_segmented_scan
f.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
              ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p]
lib.scantune_last_error.restype = ctypes.c_char_p
DT = {torch.float32: 4, torch.int32: 0}
def seg(x, y, flags=None, row=0):
    st = torch.cuda.current_stream().cuda_stream
    r = f(S, DT[x.dtype], 0, 0, x.data_ptr(), y.data_ptr(), x.numel(),
          flags.data_ptr() if flags is not None else None, row, None, st)
    if r: raise RuntimeError(lib.scantune_last_error())
def timeit(fn, reps=20):
    for _ in range(3): fn()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(True), torch.cuda.Event(True)
        a.record(); fn(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b) * 1e3)
    return statistics.median(ts)
def data(shape, dt):
    g = torch.Generator(device="cuda").manual_seed(1)
    if dt == torch.float32: return torch.rand(shape, device="cuda", generator=g) - 0.5
    return torch.randint(-100, 100, shape, device="cuda", dtype=dt, generator=g)
print("| problem | dtype | scantune us | x memcpy | torch us | x memcpy | scantune/torch |")
print(flush=True, end=""); print("|---|---|---|---|---|---|---|")
for dt in (torch.float32, torch.int32):
    for rows, length in ((1 << 14, 1 << 10), (1 << 10, 1 << 14), (1 << 20, 16), (1 << 24, 4), (1 << 18, 1 << 10), (4, 1 << 26), (1 << 28, 1)):
        x = data((rows, length), dt); y = torch.empty_like(x); z = torch.empty_like(x)
        seg(x, y, row=length)
        ref = torch.cumsum(x.double() if dt == torch.float32 else x.long(), dim=1)
        ok = torch.allclose(y.double(), ref.double(), atol=1e-2, rtol=1e-4) if dt == torch.float32 else torch.equal(y.long(), ref)
        tm = timeit(lambda: z.copy_(x)); ts = timeit(lambda: seg(x, y, row=length))
        tt = timeit(lambda: torch.cumsum(x, dim=1, dtype=dt, out=z)) if rows * length <= 1 << 26 or length > 4 else float("nan")
        print(flush=True, end=""); print(f"| rows ({rows}, {length}) dim -1 {'ok' if ok else 'WRONG'} | {dt} | {ts:.1f} | {tm/ts:.3f} | {tt:.1f} | {tm/tt:.3f} | {tt/ts:.2f} |")
        del x, y, z, ref
    n = 1 << 28
    for name in ("fixed 32", "fixed 1024", "fixed 2^20", "random"):
        x = data((n,), dt); y = torch.empty_like(x); z = torch.empty_like(x)
        if name == "random":
            g = torch.Generator(device="cuda").manual_seed(2)
            heads = (torch.rand(n, device="cuda", generator=g) < 1 / 300).to(torch.uint8)
        else:
            L = {"fixed 32": 32, "fixed 1024": 1024, "fixed 2^20": 1 << 20}[name]
            heads = torch.zeros(n, dtype=torch.uint8, device="cuda"); heads[::L] = 1
        tm = timeit(lambda: z.copy_(x)); ts = timeit(lambda: seg(x, y, flags=heads))
        # effective bytes: values in and out + flags; memcpy moves 2 x values
        eff = (2 * 4 * n + n) / (2 * 4 * n)
        print(flush=True, end=""); print(f"| flags n=2^28 {name} | {dt} | {ts:.1f} | {eff * tm / ts:.3f} | - | - | - |")
        del x, y, z, heads

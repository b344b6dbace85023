"""Tuned scans from Python: install with scripts/python_install.sh, then

    python3 examples/python_cumsum.py
"""

import torch

import scantune

x = torch.randint(0, 10, (1 << 20,), device="cuda", dtype=torch.int32)

y = scantune.cumsum(x)  # int64, as torch.cumsum gives for int32 input
assert torch.equal(y, torch.cumsum(x, 0))

z = scantune.cumsum(x, dtype=torch.int32)  # stays int32: no widening copy
running_max = scantune.cummax(x.float())  # values only (torch.cummax also returns indices)
offsets = scantune.scan(x, exclusive=True, init=0, dtype=torch.int32)  # 0, x0, x0+x1, ...

m = torch.rand(256, 4096, device="cuda")
rows = scantune.cumsum(m, dim=1)  # along the last dim of a contiguous tensor: in place
cols = scantune.cumsum(m, dim=0)  # other dims: a transposed copy, then back

absmax = scantune.scan(m[0], custom=("absmax", "return fabsf(a) > fabsf(b) ? a : b;", "0.0f"))

print("cumsum:", y[:8].tolist(), "... last", int(y[-1]))
print("exclusive offsets:", offsets[:8].tolist())

"""Times PyTorch eager training steps (forward, backward, AdamW) of the same
model as seqpar's, from test/e2e/reference.py's independent implementation
run in float32 on one thread. Prints the median step time in seconds."""
import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test", "e2e"))
import reference as ref  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("config")
p.add_argument("--seq", type=int, default=128)
p.add_argument("--batch", type=int, default=8)
p.add_argument("--steps", type=int, default=20)
args = p.parse_args()

torch.set_num_threads(1)
model = ref.load_config(args.config)
params = {k: torch.tensor(v, dtype=torch.float32, requires_grad=True)
          for k, v in ref.init_params(model, 0).items()}
opt = torch.optim.AdamW(params.values(), lr=1e-3)
g = torch.Generator().manual_seed(0)
times = []
for step in range(args.steps):
    ids = torch.randint(0, 256, (args.batch, args.seq + 1), generator=g)
    start = time.perf_counter()
    logits = model.logits(params, ids[:, :-1])
    loss = torch.nn.functional.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    times.append(time.perf_counter() - start)
print(f"{statistics.median(times[2:]):.6f}")

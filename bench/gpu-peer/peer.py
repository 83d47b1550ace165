"""The PyTorch peer of bench/gpu-peer: Hugging Face transformers' own model
(GPT2LMHeadModel, LlamaForCausalLM, ... whatever AutoModelForCausalLM makes
of the config.json seqpar's program was imported from), trained with AdamW
on the same batch and sequence shape.

    peer.py device --out device.json
    peer.py bench  --model-dir D --seq S --batch B --precision fp32|bf16
                   --steps N --out result.json [--modes eager,compile]
    peer.py curve  --model-dir D --seq S --batch B --precision bf16 --steps N
                   --data TOKENS --data-seed K --init-out init.safetensors
                   --log losses.jsonl

Numerics: TF32 off (fp32_precision "ieee" from PyTorch 2.9 on, before it
allow_tf32 = False and float32 matmul precision "highest"), as in seqpar's
cuBLAS GEMMs; bf16 runs use torch.autocast(bfloat16) over fp32
parameters (PyTorch's usual mixed precision; seqpar keeps bf16 parameters
and fp32 master weights). Attention is the model's SDPA implementation where
this transformers has one for the model (the eager one otherwise; the result
says which). The loss is the mean cross entropy of all B x S positions
against the labels (the next tokens), computed in fp32, as seqpar's is.
AdamW is torch.optim.AdamW over every parameter (one group, weight decay on
all, as seqpar's sp-optimizer does), fused on CUDA; the global gradient norm
is clipped with clip_grad_norm_.

bench: random tokens (torch.randint on the device), each step timed between
two device synchronisations (forward, backward, clipping, AdamW, zeroing the
gradients); eager first (--warmup then --steps timed), then
torch.compile(model) from a fresh model (--compile-warmup, the first of
which compiles, then --compile-steps timed). The
result file is rewritten after each mode (and after the compiled mode's
first step, which compiles), so a run cut short keeps what it measured.

curve: the model drawn from --seed (transformers' initialisation) is saved
first as F32 safetensors under its Hugging Face names (seqpar's program
loads it with --init-from), then trained on the tokens seqpar reads: the
batches of seqdata.TokenData (seqpar's sample order), the learning rate of
seqpar's schedule (linear warm-up from 0 over --warmup-steps, then
constant).
"""

import argparse
import contextlib
import gc
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seqdata  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
import transformers  # noqa: E402


def device_of():
    return "cuda" if torch.cuda.is_available() else "cpu"


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def versions():
    return {"torch": torch.__version__, "transformers": transformers.__version__,
            "cuda": torch.version.cuda, "device": device_of(),
            "device_name": torch.cuda.get_device_name(0) if device_of() == "cuda" else "cpu"}


def numerics():
    """fp32 without TF32 (seqpar's GEMMs use none); returns the setting.
    PyTorch 2.9 and later have the fp32_precision API, and refuse a mix of
    it and the legacy flags: only one of the two is used."""
    if hasattr(torch.backends, "fp32_precision"):
        torch.backends.fp32_precision = "ieee"
        torch.backends.cuda.matmul.fp32_precision = "ieee"
        torch.backends.cudnn.fp32_precision = "ieee"
        return f"cuda.matmul.fp32_precision={torch.backends.cuda.matmul.fp32_precision}"
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if hasattr(torch, "set_float32_matmul_precision"):
        torch.set_float32_matmul_precision("highest")
    return f"cuda.matmul.allow_tf32={torch.backends.cuda.matmul.allow_tf32}"


def build_model(model_dir, seed, device):
    """transformers' model of model_dir/config.json, drawn from `seed`, in
    fp32 on `device`; (model, the attention implementation used)."""
    config = transformers.AutoConfig.from_pretrained(model_dir)
    torch.manual_seed(seed)
    # Drawn on the device where torch can (a 1B model drawn on the host
    # takes tens of seconds).
    where = torch.device(device) if hasattr(torch.device, "__enter__") \
        else contextlib.nullcontext()
    model = None
    for attn in ("sdpa", "eager"):
        try:
            with where:
                model = transformers.AutoModelForCausalLM.from_config(
                    config, attn_implementation=attn)
            break
        except (ValueError, ImportError, TypeError) as e:
            # This transformers has no SDPA attention for the model.
            print(f"peer: attn_implementation={attn}: {e}", file=sys.stderr)
    if model is None:
        raise SystemExit("peer: transformers cannot build the model")
    model = model.to(device=device, dtype=torch.float32)
    model.train()
    used = getattr(model.config, "_attn_implementation", None) or "eager"
    return model, used


def unique_params(model):
    return [p for _, p in model.named_parameters()]


def make_adamw(params, device, a):
    kw = dict(lr=a.lr, betas=(a.beta1, a.beta2), eps=a.adam_eps,
              weight_decay=a.weight_decay)
    if device == "cuda":
        try:
            return torch.optim.AdamW(params, fused=True, **kw), "AdamW (fused)"
        except (TypeError, RuntimeError):
            pass
    return torch.optim.AdamW(params, **kw), "AdamW"


def autocast(device, precision):
    if precision == "bf16":
        return torch.autocast(device, dtype=torch.bfloat16)
    return contextlib.nullcontext()


def train_step(forward, params, opt, ids, labels, device, precision, clip):
    """One step; returns (loss, gradient norm before clipping) as tensors."""
    with autocast(device, precision):
        logits = forward(input_ids=ids, use_cache=False).logits
    loss = torch.nn.functional.cross_entropy(
        logits.float().reshape(-1, logits.shape[-1]), labels.reshape(-1))
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(params, clip if clip > 0 else float("inf"))
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss.detach(), norm.detach()


def memory_reset(device):
    gc.collect()
    if device == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


def memory_peaks(device):
    if device != "cuda":
        return {}
    return {"peak_allocated_bytes": torch.cuda.max_memory_allocated(),
            "peak_reserved_bytes": torch.cuda.max_memory_reserved()}


def cmd_device(a):
    out = versions()
    if out["device"] == "cuda":
        p = torch.cuda.get_device_properties(0)
        out.update(total_memory_bytes=p.total_memory, sm_count=p.multi_processor_count,
                   capability=f"{p.major}.{p.minor}")
        n = 256 << 20  # floats: 1 GiB
        x = torch.empty(n, device="cuda")
        y = torch.empty_like(x)
        y.copy_(x)
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(5):
            y.copy_(x)
        torch.cuda.synchronize()
        # A copy reads and writes every byte.
        out["d2d_copy_GBps"] = 2 * 5 * 4 * n / (time.perf_counter() - t) / 1e9
        del x, y
        h = torch.empty(64 << 20, pin_memory=True)  # 256 MiB
        d = torch.empty(64 << 20, device="cuda")
        d.copy_(h)
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(5):
            d.copy_(h, non_blocking=True)
        torch.cuda.synchronize()
        out["h2d_copy_GBps"] = 5 * 4 * h.numel() / (time.perf_counter() - t) / 1e9
    write_json(a.out, out)
    print(json.dumps(out))


def bench_mode(a, mode, device, result):
    """Times one mode (eager or compile) on a fresh model; fills
    result["modes"][mode] as it goes."""
    model, attn = build_model(a.model_dir, a.seed, device)
    result["attn_implementation"] = attn
    params = unique_params(model)
    result["num_params"] = sum(p.numel() for p in params)
    opt, result["optimizer"] = make_adamw(params, device, a)
    forward = torch.compile(model) if mode == "compile" else model
    warmup = a.compile_warmup if mode == "compile" else a.warmup
    steps = a.compile_steps if mode == "compile" else a.steps
    vocab = model.config.vocab_size
    gen = torch.Generator(device=device)
    gen.manual_seed(0)
    m = result["modes"][mode]
    m.update(warmup_steps=warmup, step_times_s=[], losses=[])
    for i in range(warmup + steps):
        tokens = torch.randint(0, vocab, (a.batch, a.seq + 1), device=device, generator=gen)
        ids, labels = tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()
        sync(device)
        start = time.perf_counter()
        loss, _ = train_step(forward, params, opt, ids, labels, device, a.precision,
                             a.grad_clip)
        sync(device)
        m["step_times_s"].append(time.perf_counter() - start)
        m["losses"].append(float(loss))
        if i == 0:
            # The first step (with torch.compile: the compilation).
            m["first_step_s"] = m["step_times_s"][0]
            write_json(a.out, result)
    timed = m["step_times_s"][warmup:]
    m.update(status="ok", median_step_s=statistics.median(timed),
             tokens_per_s=a.batch * a.seq / statistics.median(timed), **memory_peaks(device))


def cmd_bench(a):
    device = device_of()
    result = dict(versions(), precision=a.precision, seq=a.seq, batch=a.batch,
                  tf32=numerics(), modes={})
    write_json(a.out, result)
    for mode in a.modes.split(","):
        if mode == "compile" and not hasattr(torch, "compile"):
            result["modes"][mode] = {"status": f"skipped: torch {torch.__version__} "
                                               "has no torch.compile"}
            write_json(a.out, result)
            continue
        left = a.deadline - time.time() if a.deadline else None
        if mode == "compile" and left is not None and left < a.compile_min_s:
            # Its first step compiles for a minute or more: not begun where
            # it cannot end, so the stages after this one keep their time.
            result["modes"][mode] = {"status": f"skipped: {left:.0f} s left, under the "
                                               f"{a.compile_min_s:.0f} s a compile takes"}
            write_json(a.out, result)
            print(f"peer {mode}: {result['modes'][mode]['status']}", flush=True)
            continue
        memory_reset(device)
        result["modes"][mode] = {"status": "running"}
        write_json(a.out, result)
        try:
            bench_mode(a, mode, device, result)
        except Exception as e:  # e.g. out of memory: the next mode still runs
            result["modes"][mode]["status"] = f"failed: {type(e).__name__}: {str(e)[:300]}"
        write_json(a.out, result)
        m = result["modes"][mode]
        if m["status"] == "ok":
            print(f"peer {mode}: median step {m['median_step_s']:.4f} s over "
                  f"{len(m['step_times_s']) - m['warmup_steps']} steps, first step "
                  f"{m['first_step_s']:.1f} s, losses {m['losses'][0]:.4f} .. "
                  f"{m['losses'][-1]:.4f}", flush=True)
        else:
            print(f"peer {mode}: {m['status']}", flush=True)
    memory_reset(device)


def lr_at(a, completed):
    """seqpar's Schedule::lrAt with a constant decay: Megatron-LM's linear
    warm-up from 0."""
    if a.warmup_steps > 0 and completed <= a.warmup_steps:
        return a.lr * completed / a.warmup_steps
    return a.lr


def cmd_curve(a):
    device = device_of()
    tf32 = numerics()
    model, attn = build_model(a.model_dir, a.seed, device)
    params = unique_params(model)
    # The initial weights, F32, under their Hugging Face names (a tied
    # lm_head is the embedding's: named_parameters lists it once).
    tensors = {n: ("F32", tuple(p.shape), p.detach().float().cpu().contiguous().numpy().tobytes())
               for n, p in model.named_parameters()}
    # Renamed into place when complete: the driver starts seqpar on it.
    seqdata.write_safetensors(a.init_out + ".tmp", tensors)
    os.replace(a.init_out + ".tmp", a.init_out)
    print(f"peer: wrote {len(tensors)} initial tensors to {a.init_out}", flush=True)
    opt, opt_name = make_adamw(params, device, a)
    data = seqdata.TokenData(a.data, a.seq, a.data_seed)
    meta = dict(versions(), attn_implementation=attn, optimizer=opt_name,
                windows=data.windows, precision=a.precision, tf32=tf32)
    with open(a.log, "w") as log:
        log.write(json.dumps({"meta": meta}) + "\n")
        for step in range(1, a.steps + 1):
            for g in opt.param_groups:
                g["lr"] = lr_at(a, step - 1)
            ids, labels = data.batch(step, a.batch)
            ids = torch.tensor(ids, dtype=torch.long, device=device)
            labels = torch.tensor(labels, dtype=torch.long, device=device)
            start = time.perf_counter()
            loss, norm = train_step(model, params, opt, ids, labels, device,
                                    a.precision, a.grad_clip)
            loss, norm = float(loss), float(norm)
            log.write(json.dumps({"step": step, "loss": loss, "grad_norm": norm,
                                  "lr": lr_at(a, step - 1),
                                  "step_time_s": time.perf_counter() - start}) + "\n")
            log.flush()
            if step % 10 == 0 or step == 1:
                print(f"peer step {step} loss {loss:.6f} grad_norm {norm:.4f}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("device")
    d.add_argument("--out", required=True)
    for name in ("bench", "curve"):
        s = sub.add_parser(name)
        s.add_argument("--model-dir", required=True)
        s.add_argument("--seq", type=int, required=True)
        s.add_argument("--batch", type=int, required=True)
        s.add_argument("--precision", choices=["fp32", "bf16"], required=True)
        s.add_argument("--steps", type=int, required=True)
        s.add_argument("--seed", type=int, default=1234)
        s.add_argument("--lr", type=float, default=6e-4)
        s.add_argument("--beta1", type=float, default=0.9)
        s.add_argument("--beta2", type=float, default=0.95)
        s.add_argument("--adam-eps", type=float, default=1e-8)
        s.add_argument("--weight-decay", type=float, default=0.1)
        s.add_argument("--grad-clip", type=float, default=1.0)
        if name == "bench":
            s.add_argument("--out", required=True)
            s.add_argument("--modes", default="eager,compile")
            s.add_argument("--warmup", type=int, default=2)
            s.add_argument("--compile-warmup", type=int, default=2)
            s.add_argument("--compile-steps", type=int, default=6)
            s.add_argument("--deadline", type=float, default=0.0,
                           help="the time (seconds since the epoch) the run "
                                "must end by; 0: none")
            s.add_argument("--compile-min-s", type=float, default=60.0,
                           help="torch.compile is not begun with less time "
                                "than this left before --deadline")
        else:
            s.add_argument("--data", required=True)
            s.add_argument("--data-seed", type=int, required=True)
            s.add_argument("--warmup-steps", type=int, default=0)
            s.add_argument("--init-out", required=True)
            s.add_argument("--log", required=True)
    a = p.parse_args()
    {"device": cmd_device, "bench": cmd_bench, "curve": cmd_curve}[a.cmd](a)


if __name__ == "__main__":
    main()

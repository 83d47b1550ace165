"""The stages of a bundle's run (run.sh starts this after unpacking the
bundle and Open MPI). Standard library only: where python3 has no torch
the PyTorch halves are reported skipped and everything else runs.

    driver.py BUNDLE PAYLOAD OUTDIR DEADLINE_EPOCH_S

Stages, in order of value (manifest.json lists them with their limits):
  device       the device's name, memory and measured copy bandwidth
  MODEL-PREC   one shape and precision (gpt2-124m-bf16, ...): seqpar timed
               (--log), seqpar traced with CUDA_LAUNCH_BLOCKING=1 (the per-op
               table), the PyTorch peer (peer.py) eager then torch.compile
  curve        100 bf16 steps of both from PyTorch's initial weights on the
               same tokens (seqdata.py's order, checked against seqpar's
               --dump-outputs), dropout 0
  attention    cuDNN's fused attention against the native kernels: the
               conformance suite's CudnnAttention tests, then the bf16 GPT-2
               step with SEQPAR_ATTENTION_KERNEL=native and =cudnn, their
               median step times and the ratio
  kernels      the memory-bound kernels' microbenchmark (sprt_kernel_bench):
               each kernel's GB/s against a device-to-device copy of the
               same bytes, the new kernels and the ones they replaced
  conformance  the backend's conformance suite and the nvcc gtests
  tiny         the tiny configs at one rank, fp32 and bf16, against the same
               programs compiled for the cpu target and run when the bundle
               was made (ref/NAME): step 1's gradients and every step's loss
  multirank    the layouts whose ranks share the one GPU through --comm mpi
               (tp 2 + SP, cp 2 both variants, pp 2 with micro-batches,
               dp 2 + tp 2 + SP + ZeRO-1), fp32 and bf16, against their cpu
               references likewise
  calibrate    sp-calibrate on the device, one rank (the programs' backend:
               sp-calibrate-cuda): GEMMs, attention and the memory-bound
               kernels, against the device's published peaks; its
               measured.json is what `sp-plan --calibrate DIR --measured
               FILE` fits into the planner's cluster and calibration files
Each stage runs under min(its limit, the time left less the minimum times
of the stages after it); a stage that cannot have its minimum is skipped,
saying so. Every command has its own timeout (its process group is killed
at the end). results.json and results.md are rewritten after every stage.

FLOPs and MFU: model FLOPs per step = 6 N T + 12 L S W T (N parameters,
a tied embedding counted once, T = B S tokens, L layers, W the attention
width: heads x head size; the attention term counts the whole S x S score
matrix, as bench/gpu-step.sh does), the same count for both frameworks,
against the device's dense peak for the run's precision (PEAKS in
peerutil.py; fp32 runs have TF32 off, so fp32's non-tensor-core peak).
"""

import gzip
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402
import seqdata  # noqa: E402
from peerutil import *  # noqa: E402,F401,F403


class Runner:
    def __init__(self, bundle, payload, outdir, deadline):
        self.bundle, self.payload, self.outdir = bundle, payload, outdir
        self.deadline = deadline
        with open(os.path.join(bundle, "manifest.json")) as f:
            self.manifest = json.load(f)
        self.results = {"bundle": self.manifest["made"], "deadline_epoch_s": deadline,
                        "started_epoch_s": time.time(), "stages": {}}
        self.orterun = shutil.which("orterun") or shutil.which("mpirun")
        self.smi = shutil.which("nvidia-smi")
        self.python = sys.executable
        self.peer_ok = None  # the reason the peer cannot run, or ""

    # -- helpers ---------------------------------------------------------
    def left(self):
        return self.deadline - time.time()

    def path(self, *parts):
        return os.path.join(self.payload, *parts)

    @staticmethod
    def seqpar_env(env=None):
        """The environment of seqpar's programs and test binaries: run.sh's
        CUDA and NCCL directories first on the loader's path."""
        libs = [x for x in (os.environ.get("SEQPAR_PEER_LIBS"),
                            os.environ.get("LD_LIBRARY_PATH")) if x]
        return dict(env or {}, **({"LD_LIBRARY_PATH": ":".join(libs)} if libs else {}))

    def start(self, cmd, log, env=None, cwd=None):
        """Starts cmd in its own process group, its output appended to log."""
        f = open(log, "ab")
        f.write(("$ " + " ".join(cmd) + "\n").encode())
        f.flush()
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                             env=dict(os.environ, **(env or {})), cwd=cwd,
                             start_new_session=True)
        return p, f, time.time()

    @staticmethod
    def finish(started, timeout, least=1.0):
        """Waits for a start()ed command up to `timeout` seconds (at least
        `least`); returns its exit status, or "timeout" when its process
        group had to be killed."""
        p, f, begin = started
        try:
            rc = p.wait(timeout=max(least, timeout))
        except subprocess.TimeoutExpired:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    p.wait(timeout=5)
                    break
                except subprocess.TimeoutExpired:
                    continue
            rc = "timeout"
        f.write(f"# exit {rc} after {time.time() - begin:.1f} s\n".encode())
        f.close()
        return rc

    def run(self, cmd, log, timeout, env=None, cwd=None):
        """Runs cmd with a timeout (finish())."""
        return self.finish(self.start(cmd, log, env=env, cwd=cwd), timeout)

    def run_pool(self, jobs, end, width, env=None):
        """Runs jobs, (key, cmd, log, cwd) each, at most `width` at a time in
        the order given, until the time `end`: {key: exit status, "timeout"
        (killed at `end`) or "not started" (no time left)}."""
        rcs, running, queue = {}, [], list(jobs)
        while queue or running:
            while queue and len(running) < width and end - time.time() > 1:
                key, cmd, log, cwd = queue.pop(0)
                running.append((key, self.start(cmd, log, env=env, cwd=cwd)))
            if not running:
                break
            time.sleep(0.05)
            for item in list(running):
                key, started = item
                if started[0].poll() is not None or time.time() >= end:
                    rcs[key] = self.finish(started, end - time.time(), least=0.01)
                    running.remove(item)
        for key, *_ in queue:
            rcs[key] = "not started"
        return rcs

    def seqpar_cmd(self, program, args, ranks=1, shared=False):
        """A program's command line: under orterun where there is one (always
        for several ranks). `shared`: the job runs beside others, so its
        ranks are bound to no core (Open MPI binds a job of one or two ranks
        to cores 0 and 1, every job to the same ones) and may outnumber the
        cores."""
        cmd = [self.path(program)] + args
        if self.orterun:
            extra = ["--oversubscribe", "--bind-to", "none"] if shared or ranks > 1 else []
            cmd = [self.orterun, "--allow-run-as-root"] + extra + ["-np", str(ranks)] + cmd
        return cmd

    def seqpar(self, program, args, log, timeout, env=None, cwd=None):
        return self.run(self.seqpar_cmd(program, args), log, timeout,
                        env=self.seqpar_env(env), cwd=cwd)

    def gpu_memory_sampler(self, out):
        """nvidia-smi sampling the device's used memory every 100 ms into
        `out`, or None."""
        if not self.smi:
            return None
        f = open(out, "w")
        p = subprocess.Popen([self.smi, "--query-gpu=memory.used",
                              "--format=csv,noheader,nounits", "-lms", "100"],
                             stdout=f, stderr=subprocess.DEVNULL, start_new_session=True)
        return p, f

    @staticmethod
    def sampled_max_mib(sampler, out):
        """The largest sample (MiB) of a gpu_memory_sampler, which it stops."""
        if sampler is None:
            return None
        p, f = sampler
        p.terminate()
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
        f.close()
        values = []
        with open(out) as f:
            for line in f:
                try:
                    values.append(float(line.split(",")[0]))
                except ValueError:
                    pass
        return max(values) if values else None

    def hyper_flags(self):
        """AdamW's hyperparameters: seqpar's run-time flags, which peer.py
        takes under the same names."""
        h = self.manifest["hyper"]
        return ["--lr", str(h["lr"]), "--beta1", str(h["beta1"]), "--beta2", str(h["beta2"]),
                "--adam-eps", str(h["adam_eps"]), "--weight-decay", str(h["weight_decay"]),
                "--grad-clip", str(h["grad_clip"])]

    def save(self):
        self.results["elapsed_s"] = time.time() - self.results["started_epoch_s"]
        tmp = os.path.join(self.outdir, "results.json.tmp")
        with open(tmp, "w") as f:
            json.dump(self.results, f, indent=1)
            f.write("\n")
        os.replace(tmp, os.path.join(self.outdir, "results.json"))
        try:
            text = report.render(self.results)
        except Exception as e:  # the JSON holds the results still
            text = f"# results.md could not be rendered ({type(e).__name__}: {e}); see results.json\n"
        tmp = os.path.join(self.outdir, "results.md.tmp")
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, os.path.join(self.outdir, "results.md"))

    # -- stages ----------------------------------------------------------
    def stage_device(self, budget, d):
        end = time.time() + budget
        out = {}
        probe = self.path("bin", "sp-device-probe")
        # A cold machine may be slow to answer: a time-out is said, and the
        # stage goes on.
        if os.path.exists(probe):
            try:
                p = subprocess.run([probe], capture_output=True, text=True,
                                   env=dict(os.environ, **self.seqpar_env()),
                                   timeout=max(1, end - time.time()))
                out["probe"] = (p.stdout + p.stderr).strip()
            except subprocess.TimeoutExpired:
                out["probe"] = "sp-device-probe timed out"
        if self.smi:
            try:
                p = subprocess.run([self.smi, "--query-gpu=name,memory.total,memory.used,"
                                    "driver_version", "--format=csv,noheader,nounits"],
                                   capture_output=True, text=True,
                                   timeout=max(1, end - time.time()))
                out["nvidia_smi"] = p.stdout.strip()
                out["idle_memory_used_mib"] = float(p.stdout.split("\n")[0].split(",")[2])
            except (subprocess.TimeoutExpired, IndexError, ValueError):
                pass
        # The peer's device report, which is also the check that python3 has
        # torch and transformers.
        log = os.path.join(d, "peer-device.log")
        rc = self.run([self.python, os.path.join(HERE, "peer.py"), "device", "--out",
                       os.path.join(d, "device.json")], log, end - time.time())
        if rc == 0:
            self.peer_ok = ""
            with open(os.path.join(d, "device.json")) as f:
                out.update(json.load(f))
        elif rc == "timeout":
            # Slow (a cold import, CUDA's start-up), not missing: the later
            # stages still try the peer, under their own limits.
            self.peer_ok = ""
            out["peer_device"] = f"peer.py device timed out ({log})"
        else:
            with open(log) as f:
                text = f.read()
            missing = re.findall(r"No module named '?([\w.]+)'?", text)
            self.peer_ok = (f"no {missing[0]} in {self.python}" if missing
                            else f"peer.py device failed ({describe(rc)}, {log})")
        name = out.get("device_name")
        if (not name or name == "cpu") and out.get("nvidia_smi"):
            name = out["nvidia_smi"].split(",")[0].strip()
        if not name:
            name = "no GPU" + (" (cpu programs standing in)"
                               if self.manifest["made"]["target"] == "cpu" else "")
        out["name"] = name
        out["peaks_tflops"] = peaks_for(out["name"])
        out["peer"] = self.peer_ok or "available"
        bw = "".join(f", {k.split('_')[0]} copy {out[k]:.0f} GB/s" for k in
                     ("d2d_copy_GBps", "h2d_copy_GBps") if out.get(k))
        print(f"   device: {out['name']}{bw}; peer: {out['peer']}", flush=True)
        self.device = out
        self.results["device"] = out
        return "ok", {}

    def bench_seqpar(self, b, d, timeout, peak, tag="seqpar", extra=()):
        """The timed run; `extra` flags (--cuda-graph=false) under file
        names starting with `tag`."""
        args = ["--steps", str(b["steps"]), "--seed", "1234", "--log", tag + ".jsonl"]
        args += self.hyper_flags() + list(extra)
        if peak:
            args += ["--peak-flops", str(peak * 1e12)]
        sampler = self.gpu_memory_sampler(os.path.join(d, tag + "-smi.csv"))
        rc = self.seqpar(b["program"], args, os.path.join(d, tag + ".log"), timeout, cwd=d)
        smi = self.sampled_max_mib(sampler, os.path.join(d, tag + "-smi.csv"))
        out = {"exit": rc}
        if rc != 0:
            out["error"] = log_error(os.path.join(d, tag + ".log"))
        log = os.path.join(d, tag + ".jsonl")
        lines = []
        if os.path.exists(log):
            with open(log) as f:
                lines = [json.loads(x) for x in f if x.strip()]
        if lines:
            times = [x["step_time_s"] for x in lines]
            timed = times[b["skip"]:] or times
            med = statistics.median(timed)
            out.update(step_times_s=times, losses=[x["loss"] for x in lines],
                       median_step_s=med, tokens_per_s=b["seq"] * b["batch"] / med,
                       timed_steps=len(timed),
                       peak_bytes=max(x["memory"]["peak_bytes"] for x in lines),
                       max_rss_bytes=lines[-1]["memory"].get("max_rss_bytes"),
                       startup_s=lines[0].get("startup_s"),
                       init_params_s=lines[0].get("init_params_s"),
                       own_flops_per_step=statistics.median(
                           x["flops_per_s"] * x["step_time_s"] for x in lines))
            if "mfu" in lines[-1]:
                out["own_mfu"] = statistics.median(x["mfu"] for x in lines[b["skip"]:] or lines)
            # How the steps ran (--cuda-graph): "eager", "captured", "replayed".
            graph = [x.get("graph", "eager") for x in lines]
            out["graph_steps"] = {k: graph.count(k) for k in sorted(set(graph))}
        if out.get("startup_s") is None:
            # The start-up line comes on stderr before step 1 runs: there
            # even when the run ended (or was killed) before logging a step.
            up = startup_line(os.path.join(d, tag + ".log"))
            if up:
                out.update(up, startup_from=f"the start-up line of {tag}.log")
        graph_off = graph_line(os.path.join(d, tag + ".log"))
        if graph_off:
            out["graph_off"] = graph_off
        if smi is not None and "idle_memory_used_mib" in self.device:
            out["device_memory_used_mib"] = smi - self.device["idle_memory_used_mib"]
        return out

    def bench_trace(self, b, d, timeout):
        args = ["--steps", str(b["trace_steps"]), "--seed", "1234",
                "--trace", "trace.json"] + self.hyper_flags()
        rc = self.seqpar(b["program"], args, os.path.join(d, "trace.log"), timeout,
                         env={"CUDA_LAUNCH_BLOCKING": "1"}, cwd=d)
        out = {"exit": rc}
        if rc != 0:
            out["error"] = log_error(os.path.join(d, "trace.log"))
        path = os.path.join(d, "trace.rank0.json")
        if rc == 0 and os.path.exists(path):
            out.update(op_table(path, first_step=2))
        if os.path.exists(path):
            with open(path, "rb") as f, gzip.open(path + ".gz", "wb") as g:
                shutil.copyfileobj(f, g)
            os.remove(path)
        return out

    def stage_bench(self, budget, d, b):
        end = time.time() + budget
        peak = self.device["peaks_tflops"].get(b["precision"])
        with open(self.path(b["model_dir"], "config.json")) as f:
            config = json.load(f)
        info = {"model": b["model"], "precision": b["precision"], "seq": b["seq"],
                "batch": b["batch"], "peak_tflops": peak, **model_flops(config, b["seq"], b["batch"])}
        self.results["stages"][b["name"]] = dict(info, status="running")
        info["seqpar"] = self.bench_seqpar(b, d, min(0.35 * budget, end - time.time()), peak)
        self.save()
        # The same steps without the CUDA graph (--cuda-graph=false), side by side.
        if info["seqpar"]["exit"] == 0:
            info["seqpar_eager"] = self.bench_seqpar(
                b, d, min(0.2 * budget, end - time.time()), peak, tag="seqpar-eager",
                extra=["--cuda-graph=false"])
            g, e = (info[k].get("median_step_s") for k in ("seqpar", "seqpar_eager"))
            if g and e:
                info["graph_speedup"] = e / g
            self.save()
        if info["seqpar"]["exit"] == 0:
            info["seqpar_ops"] = self.bench_trace(b, d, min(0.2 * budget, end - time.time()))
        else:
            info["seqpar_ops"] = {"status": "skipped: the timed run did not finish ("
                                            f"{describe(info['seqpar']['exit'])})"}
        self.save()
        if self.peer_ok:
            info["torch"] = {"status": "skipped: " + self.peer_ok}
        else:
            out = os.path.join(d, "peer.json")
            cmd = [self.python, os.path.join(HERE, "peer.py"), "bench",
                   "--model-dir", self.path(b["model_dir"]), "--seq", str(b["seq"]),
                   "--batch", str(b["batch"]), "--precision", b["precision"],
                   "--steps", str(b["peer_steps"]), "--out", out,
                   "--deadline", f"{end:.0f}"] + self.hyper_flags()
            sampler = self.gpu_memory_sampler(os.path.join(d, "peer-smi.csv"))
            rc = self.run(cmd, os.path.join(d, "peer.log"), end - time.time(), cwd=d)
            smi = self.sampled_max_mib(sampler, os.path.join(d, "peer-smi.csv"))
            peer = {"exit": rc}
            if os.path.exists(out):
                with open(out) as f:
                    peer.update(json.load(f))
            for m in peer.get("modes", {}).values():
                if m.get("status") == "running":
                    m["status"] = "timed out" if rc == "timeout" else f"failed (exit {rc})"
            if rc != 0:
                peer["error"] = log_error(os.path.join(d, "peer.log"))
            if smi is not None and "idle_memory_used_mib" in self.device:
                peer["device_memory_used_mib"] = smi - self.device["idle_memory_used_mib"]
            info["torch"] = peer
        status = "ok"
        if info["seqpar"]["exit"] != 0:
            status = "seqpar: " + describe(info["seqpar"]["exit"])
        self.results["stages"][b["name"]] = info
        return status, info

    def stage_curve(self, budget, d, c):
        end = time.time() + budget
        info = {"model": c["model"], "precision": c["precision"], "seq": c["seq"],
                "batch": c["batch"], "steps": c["steps"], "warmup_steps": c["warmup_steps"],
                "hyper": self.manifest["hyper"], "data": c["data_note"]}
        self.results["stages"]["curve"] = dict(info, status="running")
        data = self.path(c["data"])
        # 0.5 GB for GPT-2 124M: in the scratch folder, not in OUTDIR.
        init = os.path.join(self.payload, "curve-init.safetensors")
        peer = None
        if self.peer_ok:
            info["torch"] = {"status": "skipped: " + self.peer_ok}
        else:
            cmd = [self.python, os.path.join(HERE, "peer.py"), "curve",
                   "--model-dir", self.path(c["model_dir"]), "--seq", str(c["seq"]),
                   "--batch", str(c["batch"]), "--precision", c["precision"],
                   "--steps", str(c["steps"]), "--seed", str(c["seed"]),
                   "--data", data, "--data-seed", str(c["data_seed"]),
                   "--warmup-steps", str(c["warmup_steps"]),
                   "--init-out", init, "--log", os.path.join(d, "peer.jsonl")] + self.hyper_flags()
            peer = self.start(cmd, os.path.join(d, "peer.log"), cwd=d)
            # seqpar starts once the peer has written its initial weights
            # (renamed into place when complete); the two then train side by
            # side (the curve is not timed).
            while not os.path.exists(init) and peer[0].poll() is None and time.time() < end:
                time.sleep(0.5)
        args = ["--steps", str(c["steps"]), "--seed", str(c["seed"]), "--data", data,
                "--data-seed", str(c["data_seed"]), "--warmup-steps", str(c["warmup_steps"]),
                "--log", "seqpar.jsonl", "--dump-outputs", "last.safetensors"] + self.hyper_flags()
        if os.path.exists(init):
            args += ["--init-from", init]
            info["init"] = "PyTorch's initial weights (--init-from)"
        else:
            info["init"] = "seqpar's own (no PyTorch initial weights: " + \
                (self.peer_ok or "the peer wrote none") + ")"
        rc = self.seqpar(c["program"], args, os.path.join(d, "seqpar.log"), end - time.time(), cwd=d)
        info["seqpar"] = {"exit": rc, "status": "ok" if rc == 0 else describe(rc)}
        if rc != 0:
            info["seqpar"]["error"] = log_error(os.path.join(d, "seqpar.log"))
        if peer is not None:
            prc = self.finish(peer, end - time.time())
            info["torch"] = {"exit": prc, "status": "ok" if prc == 0 else describe(prc)}
            if prc != 0:
                info["torch"]["error"] = log_error(os.path.join(d, "peer.log"))
        dump = os.path.join(d, "last.safetensors")
        if rc == 0 and os.path.exists(dump):
            problem = seqdata.check_batch(seqdata.TokenData(data, c["seq"], c["data_seed"]),
                                          dump, c["steps"], c["batch"])
            info["data_order_ok"] = not problem
            info["data_order"] = problem or (f"step {c['steps']}'s batch of the peer's order is "
                                             "the one seqpar read (its --dump-outputs)")
        curves = {}
        for who in ("seqpar", "peer"):
            path = os.path.join(d, who + ".jsonl")
            if os.path.exists(path):
                with open(path) as f:
                    rows = [json.loads(x) for x in f if x.strip()]
                curves[who] = {r["step"]: r for r in rows if "step" in r}
        info.update(curve_table(curves.get("seqpar", {}), curves.get("peer", {}), d))
        self.results["stages"]["curve"] = info
        status = "ok" if rc == 0 else "seqpar: " + describe(rc)
        if info.get("data_order_ok") is False:
            status = "data order differs: " + info["data_order"]
        return status, info

    def stage_attention(self, budget, d, a):
        end = time.time() + budget
        info = {"program": a["program"], "runs": {}}
        out, log = os.path.join(d, "cudnn-tests.json"), os.path.join(d, "cudnn-tests.log")
        rc = self.run([self.path(a["binary"]), "--gtest_filter=CudnnAttention*",
                       f"--gtest_output=json:{out}"], log, min(60, 0.3 * budget),
                      env=self.seqpar_env(), cwd=d)
        info["tests"] = dict(gtest_summary(out, log), exit=rc)
        for i, kernel in enumerate(("native", "cudnn")):
            left = end - time.time()
            if left < 5:
                info["runs"][kernel] = {"status": "skipped: out of time"}
                continue
            w = os.path.join(d, kernel)
            os.makedirs(w, exist_ok=True)
            args = ["--steps", str(a["steps"]), "--seed", "1234", "--log", "seqpar.jsonl"]
            rc = self.seqpar(a["program"], args + self.hyper_flags(),
                             os.path.join(w, "seqpar.log"), left / (2 - i),
                             env={"SEQPAR_ATTENTION_KERNEL": kernel}, cwd=w)
            r = {"exit": rc, "attention": attention_line(os.path.join(w, "seqpar.log"))}
            lines = []
            if os.path.exists(os.path.join(w, "seqpar.jsonl")):
                with open(os.path.join(w, "seqpar.jsonl")) as f:
                    lines = [json.loads(x) for x in f if x.strip()]
            times = [x["step_time_s"] for x in lines]
            if times:
                r.update(step_times_s=times, losses=[x["loss"] for x in lines],
                         median_step_s=statistics.median(times[a["skip"]:] or times),
                         peak_bytes=max(x["memory"]["peak_bytes"] for x in lines))
            elif rc != 0:
                r["error"] = log_error(os.path.join(w, "seqpar.log"))
            info["runs"][kernel] = r
        t = info["tests"]
        parts = [f"tests {t['tests'] - t['failed'] - t['skipped']} passed, {t['failed']} failed, "
                 f"{t['skipped']} skipped"]
        nat, cud = (info["runs"].get(k, {}).get("median_step_s") for k in ("native", "cudnn"))
        if nat and cud:
            info["native_over_cudnn"] = nat / cud
            parts.append(f"step native {nat:.4f} s, cudnn {cud:.4f} s: {nat / cud:.2f}x")
        for k in ("native", "cudnn"):
            line = info["runs"].get(k, {}).get("attention")
            if line:
                parts.append(f"{k} run said 'attention: {line}'")
        print("   " + "; ".join(parts), flush=True)
        failed = t["failed"] or t["exit"] not in (0,) or not (nat and cud)
        return ("failed: " if failed else "ok: ") + "; ".join(parts), info

    def stage_kernels(self, budget, d, k):
        """sprt_kernel_bench: per kernel, shape and path, the median time and
        GB/s over the copy's GB/s (the binary writes kernels.json)."""
        out, log = os.path.join(d, "kernels.json"), os.path.join(d, "kernels.log")
        rc = self.run([self.path(k["binary"]), "--json", out, "--reps", str(k["reps"])],
                      log, budget, env=self.seqpar_env(), cwd=d)
        info = {"exit": rc, "results": []}
        if os.path.exists(out):
            with open(out) as f:
                info.update(json.load(f))
        if rc != 0:
            return f"failed: {describe(rc)}: {log_error(log)}", info
        if info.get("status") != "ok":
            return f"{info.get('status')}: {info.get('device')}", info
        # The paths the backend runs, their ratio to the copy and their
        # speed-up over the kernels they replaced.
        rows = {}
        for x in info["results"]:
            rows.setdefault((x["kernel"], x["shape"]), {})[x["path"]] = x
        parts, low = [], []
        for (kernel, shape), paths in rows.items():
            new = (paths.get("fused") or paths.get("two-stage") or paths.get("vector")
                   or paths.get("sorted") or paths.get("stored") or paths.get("epilogue")
                   or paths.get("per-tensor") or paths.get("list"))
            if not new:
                continue
            old = paths.get("before") or paths.get("scalar")
            speedup = f", {old['median_us'] / new['median_us']:.2f}x before" if old else ""
            parts.append(f"{kernel} {shape} {new['ratio']:.2f}{speedup}")
            # Attention ("stored") and the GEMM with its GELU epilogue are
            # compute-bound: their speed-up is the figure, not their
            # bandwidth.
            if new["ratio"] < 0.7 and new["path"] not in ("stored", "epilogue"):
                low.append(f"{kernel} {shape}")
        print("   " + "; ".join(parts), flush=True)
        status = "ok" if not low else "below 0.7 of copy: " + ", ".join(low)
        return f"{status} ({info.get('device')}; ratio to copy: " + "; ".join(parts) + ")", info

    def stage_calibrate(self, budget, d, c):
        """sp-calibrate on one rank: the planner's rates on this device,
        against its published peaks (--peak) where they are known."""
        out, log = os.path.join(d, "measured.json"), os.path.join(d, "calibrate.log")
        cmd = [self.path(c["binary"])]
        for p in ("bf16", "fp32"):
            peak = self.device["peaks_tflops"].get(p)
            if peak:
                cmd += ["--peak", f"{p}={peak * 1e12:.6g}"]
        rc = self.run(cmd + [out], log, budget, env=self.seqpar_env(), cwd=d)
        if rc != 0 or not os.path.exists(out):
            return f"failed: {describe(rc)}: {log_error(log)}", {"exit": rc}
        with open(out) as f:
            m = json.load(f)
        info = {"exit": rc, "measured": os.path.relpath(out, self.outdir),
                "backend": m.get("backend"), "peak_flops": m.get("peak_flops", {})}
        # What the fit will read, summed up for the report: the fastest and
        # the median GEMM per precision, attention's rate, the copy's and
        # each kernel's bandwidth.
        rates = {}
        for g in m.get("gemm", []):
            rates.setdefault(g["dtype"], []).append(2 * g["m"] * g["k"] * g["n"] / g["seconds"])
        info["gemm_tflops"] = {p: {"fastest": max(r) / 1e12,
                                   "median": statistics.median(r) / 1e12}
                               for p, r in rates.items()}
        att = m.get("attention", [])
        if att:
            flops = sum(3.5 * 2 * a["b"] * a["heads"] * a["s"] ** 2 * a["head_dim"] for a in att)
            secs = sum(a["forward_seconds"] + a["backward_seconds"] for a in att)
            info["attention_tflops"] = flops / secs / 1e12
            info["attention_dtype"] = att[0].get("dtype")
            info["attention_kernel"] = m.get("attention_kernel", "")
        info["memory_gbps"] = {x["op"]: x["bytes"] / x["seconds"] / 1e9
                               for x in m.get("memory_bound", [])}
        parts = [f"{p} GEMM median {v['median']:.3g} / fastest {v['fastest']:.3g} TFLOP/s"
                 for p, v in info["gemm_tflops"].items()]
        if "attention_tflops" in info:
            parts.append(f"{info['attention_dtype']} attention {info['attention_tflops']:.3g} TFLOP/s"
                         f" ({info['attention_kernel'] or 'kernel not said'})")
        if "copy" in info["memory_gbps"]:
            parts.append(f"copy {info['memory_gbps']['copy']:.0f} GB/s")
        return "ok (" + "; ".join(parts) + ")", info

    def stage_conformance(self, budget, d, c):
        end = time.time() + budget
        info = {"binaries": {}}
        for binary in c["binaries"]:
            name = os.path.basename(binary)
            left = end - time.time()
            if left < 2:
                info["binaries"][name] = {"status": "skipped: out of time"}
                continue
            out = os.path.join(d, name + ".json")
            rc = self.run([self.path(binary), f"--gtest_output=json:{out}"],
                          os.path.join(d, name + ".log"), left, env=self.seqpar_env(), cwd=d)
            summary = gtest_summary(out, os.path.join(d, name + ".log"))
            status = "ok" if rc == 0 else describe(rc)
            if rc == 0 and summary.get("tests") and summary["skipped"] == summary["tests"]:
                status = "every test skipped"
            info["binaries"][name] = dict(summary, exit=rc, status=status)
            if rc != 0:
                info["binaries"][name]["error"] = log_error(os.path.join(d, name + ".log"))
        bad = [n for n, r in info["binaries"].items()
               if r["status"] != "ok" or r.get("failed")]
        skipped = sum(r.get("skipped", 0) for r in info["binaries"].values())
        status = "failed: " + ", ".join(bad) if bad else "ok"
        return status + (f" ({skipped} tests skipped)" if skipped else ""), info

    def stage_vs_cpu(self, budget, d, t):
        """The tiny and multirank stages: each case's program (cuda, or the
        cpu stand-in) runs as the reference ran when the bundle was made
        (manifest "reference": the same program compiled for the cpu target,
        the same arguments), one run dumping step 1's gradients and one
        logging every step's loss, several jobs at a time (their ranks share
        the one GPU), then both are compared with ref/NAME to the precision's
        tolerances."""
        end = time.time() + budget
        comm = t.get("comm")
        info = {"steps": t["steps"], "rtol": t["rtol"], "rtol_note": t["rtol_note"],
                "comm": comm, "what": t["what"], "reference": t["reference"], "cases": {}}
        # OpenBLAS on one thread per rank (cpu stand-ins); ranks that wait in
        # MPI yield the core (more ranks than cores in the stand-in runs).
        env = {"OPENBLAS_NUM_THREADS": "1", "OMPI_MCA_mpi_yield_when_idle": "1"}
        # Open MPI's shared-memory transport maps its segments in /dev/shm,
        # which a container may keep small: elsewhere then.
        try:
            st = os.statvfs("/dev/shm")
            shm_free = st.f_bavail * st.f_frsize
        except OSError:
            shm_free = 0
        if shm_free < 256 << 20:
            env["OMPI_MCA_btl_vader_backing_directory"] = self.payload
            info["shm"] = (f"/dev/shm has {shm_free >> 20} MiB free: Open MPI's shared memory "
                           f"in {self.payload}")
        ref_args = t["reference"]["runs"]
        extra = ["--comm", comm] if comm else []
        jobs = []
        for c in t["cases"]:
            w = os.path.join(d, c["name"])
            os.makedirs(w, exist_ok=True)
            for run in ("grads", "losses"):
                cmd = self.seqpar_cmd(c["program"], ref_args[run] + extra, ranks=c["ranks"],
                                      shared=True)
                jobs.append(((c["name"], run), cmd, os.path.join(w, run + ".log"), w))
        # Two jobs (a case's two runs) per four cores, at most `parallel`.
        width = max(1, min(t.get("parallel", 4), (os.cpu_count() or 1) // 2))
        info["parallel"] = width
        rcs = self.run_pool(jobs, end, width, env=self.seqpar_env(env))
        for c in t["cases"]:
            w = os.path.join(d, c["name"])
            r = compare_case(w, self.path(c["ref"]), rcs[(c["name"], "grads")],
                             rcs[(c["name"], "losses")], t["rtol"][c["precision"]], t["steps"])
            info["cases"][c["name"]] = dict(r, config=c["config"], layout=c["layout"],
                                            ranks=c["ranks"], precision=c["precision"])
        cases = info["cases"]
        skipped = [n for n, r in cases.items() if r["status"].startswith("skipped")]
        failed = [n for n, r in cases.items() if r["status"] != "OK" and n not in skipped]
        parts = []
        if failed:
            parts.append("failed: " + ", ".join(failed))
        if skipped:
            parts.append(f"{len(skipped)} of {len(cases)} cases not run to the end (out of time)")
        ok = len(cases) - len(failed) - len(skipped)
        return ("; ".join(parts) if parts else "ok") + f" ({ok} of {len(cases)} OK)", info

    # -- the run ---------------------------------------------------------
    def stages(self):
        m = self.manifest
        out = [("device", m["device"], self.stage_device, None)]
        for b in m["benchmarks"]:
            out.append((b["name"], b, self.stage_bench, b))
        out.append(("curve", m["curve"], self.stage_curve, m["curve"]))
        if m.get("attention"):
            out.append(("attention", m["attention"], self.stage_attention, m["attention"]))
        if m.get("kernels"):
            out.append(("kernels", m["kernels"], self.stage_kernels, m["kernels"]))
        out.append(("conformance", m["conformance"], self.stage_conformance, m["conformance"]))
        out.append(("tiny", m["tiny"], self.stage_vs_cpu, m["tiny"]))
        out.append(("multirank", m["multirank"], self.stage_vs_cpu, m["multirank"]))
        if m.get("calibrate"):
            out.append(("calibrate", m["calibrate"], self.stage_calibrate, m["calibrate"]))
        return out

    def main(self):
        stages = self.stages()
        self.device = {"peaks_tflops": peaks_for(None)}
        self.results["plan"] = [{"stage": n, "limit_s": s["limit_s"], "min_s": s["min_s"]}
                                for n, s, _, _ in stages]
        self.save()
        for i, (name, spec, fn, arg) in enumerate(stages):
            reserve = sum(s["min_s"] for _, s, _, _ in stages[i + 1:])
            budget = min(spec["limit_s"], self.left() - reserve - 2)
            d = os.path.join(self.outdir, name)
            os.makedirs(d, exist_ok=True)
            start = time.time()
            if budget < spec["min_s"]:
                status, info = (f"skipped: out of time ({self.left():.0f} s left, {reserve} s "
                                "kept for the later stages)"), {}
                if name == "device":
                    status, info = self.stage_device(max(5, self.left() - reserve), d)
            else:
                print(f"== {name} (up to {budget:.0f} s)", flush=True)
                try:
                    # The commands end early: killing a process group (an
                    # orterun job, a GPU context of tens of GB) and reading
                    # its results take time too, which the next stage's
                    # minimum must not pay.
                    early = 8 if budget >= 60 else 3
                    status, info = (fn(budget - early, d, arg) if arg is not None
                                    else fn(budget - early, d))
                except Exception as e:  # a stage's bug costs that stage only
                    status, info = f"error: {type(e).__name__}: {e}", \
                        self.results["stages"].get(name, {})
            entry = self.results["stages"].get(name, {})
            entry.update(info)
            entry.update(status=status, seconds=time.time() - start,
                         budget_s=max(0, budget))
            self.results["stages"][name] = entry
            self.save()
            print(f"   {name}: {status} ({time.time() - start:.0f} s; "
                  f"{self.left():.0f} s left)", flush=True)
        print(report.summary_lines(self.results), flush=True)


if __name__ == "__main__":
    bundle, payload, outdir, deadline = sys.argv[1:5]
    os.makedirs(outdir, exist_ok=True)
    Runner(os.path.abspath(bundle), os.path.abspath(payload), os.path.abspath(outdir),
           float(deadline)).main()

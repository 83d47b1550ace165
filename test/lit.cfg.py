# -*- Python -*-
import os
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "SEQPAR"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "seqpar_lit.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.seqpar_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%cxx", config.seqpar_cxx))
config.substitutions.append(("%{seqpar_src}", config.seqpar_src_root))
config.substitutions.append(("%{seqpar_obj}", config.seqpar_obj_root))
config.substitutions.append(("%examples", os.path.join(config.seqpar_src_root, "examples")))
config.substitutions.append(("%scripts", os.path.join(config.seqpar_src_root, "scripts")))
config.environment["FILECHECK_OPTS"] = "-enable-var-scope"
config.environment["SEQPAR_BIN"] = config.seqpar_tools_dir
config.environment["OPENBLAS_NUM_THREADS"] = "1"
# Debian's python3 has torch and numpy (the PyTorch reference runs on it).
import subprocess
if subprocess.run(["/usr/bin/python3", "-c", "import torch, numpy"],
                  capture_output=True).returncode == 0:
    config.available_features.add("torch")
if subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"],
                  capture_output=True).returncode == 0:
    config.available_features.add("matplotlib")
# transformers in the test-only virtualenv scripts/hf-venv.sh makes in the
# build tree (scripts/test.sh runs it; without network it cannot, and the
# tests that need it are reported UNSUPPORTED): "hf-transformers".
config.hf_venv_python = os.path.join(config.seqpar_obj_root, "test-venv", "bin", "python")
if os.path.exists(config.hf_venv_python) and subprocess.run(
        [config.hf_venv_python, "-c", "import transformers, safetensors, torch"],
        capture_output=True).returncode == 0:
    config.available_features.add("hf-transformers")
config.substitutions.append(("%hf_python", config.hf_venv_python))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.seqpar_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["sp-compile", "sp-opt", "sp-import", "sp-plan"], tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# mpirun with a session directory of its own (test/e2e/mpirun-wrapper/mpirun
# says why), first on PATH for RUN lines and the scripts the tests run.
llvm_config.with_environment(
    "PATH", os.path.join(config.test_source_root, "e2e", "mpirun-wrapper"),
    append_path=True)

# An ASan + UBSan build (scripts/build-sanitized.sh): "asan". The ASan pass
# (scripts/test.sh's asan-lit) must fit CI's 90 minutes on 2 cores beside the
# rest, so the tests marked "UNSUPPORTED: asan" are left out of it (and run
# in the plain build): the 300-step convergence runs, the sweeps of many
# layouts (grads, cp-grads, pp-grads, ...) and the planner's exhaustive
# searches, 3/4 of its time. Every runtime path they run is run under ASan
# by a shorter test: each layout (tp + SP, dp + ZeRO-1, cp all-gather and
# ring, pp with micro-batches, recompute, bf16 / fp16) in attention-stats,
# comm-staged, nccl-p2p-model, storage-gemms, grad-reduce-bf16, pp-tied and
# overlap; the emulated cuda program in test/e2e/cuda; the compiler's
# passes in every lit test outside e2e/. Not run under ASan any more:
# sp-plan's --max-seq search and its exhaustive search (--bound=false).
if config.seqpar_sanitize:
    config.available_features.add("asan")

# The CUDA backend: "cuda-toolkit" when this build has it, "cuda-gpu" when
# sp-device-probe (built with it) also finds a usable GPU; otherwise the
# probe's message (the CUDA error) is the reason the GPU tests are skipped.
config.cuda_probe_message = "this build has no CUDA backend"
config.cuda_devices = 0
probe = os.path.join(config.seqpar_tools_dir, "sp-device-probe")
if config.seqpar_have_cuda and os.path.exists(probe):
    config.available_features.add("cuda-toolkit")
    result = subprocess.run([probe], capture_output=True, text=True, timeout=60)
    config.cuda_probe_message = " ".join((result.stdout + result.stderr).split())
    if result.returncode == 0:
        config.available_features.add("cuda-gpu")
        import re
        found = re.search(r"(\d+) device", result.stdout)
        config.cuda_devices = int(found.group(1)) if found else 1

# The CUDA backend's sources on the CPU emulator (runtime/cuda-emu,
# sp-compile --target cuda-emu): "cuda-emu"; "cuda-emu-nccl" where its
# programs communicate over the emulator's NCCL (the build found nccl.h).
if config.seqpar_have_cuda_emu:
    config.available_features.add("cuda-emu")
if config.seqpar_have_cuda_emu_nccl:
    config.available_features.add("cuda-emu-nccl")
# "cuda-emu-cudnn": its cuDNN graphs are checked deviceless (the build found
# cudnn-frontend) against a libcudnn.so.9 that loads here.
if config.seqpar_have_cuda_emu_cudnn:
    import ctypes
    try:
        ctypes.CDLL("libcudnn.so.9")
        config.available_features.add("cuda-emu-cudnn")
    except OSError:
        pass

# The runtime backend the end-to-end tests compile for (lit --param
# target=cuda, or cuda-emu for the cuda program on the emulator): the drivers
# pass it to sp-compile as --target.
config.seqpar_target = lit_config.params.get("target", "cpu")
if config.seqpar_target not in ("cpu", "cuda", "cuda-emu"):
    lit_config.fatal("--param target must be cpu, cuda or cuda-emu")
config.environment["SEQPAR_TARGET"] = config.seqpar_target
config.available_features.add("target-" + config.seqpar_target)

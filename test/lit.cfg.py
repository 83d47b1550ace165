# -*- Python -*-
import os
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "SEQPAR"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.seqpar_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%{seqpar_src}", config.seqpar_src_root))
config.substitutions.append(("%{seqpar_obj}", config.seqpar_obj_root))
config.substitutions.append(("%examples", os.path.join(config.seqpar_src_root, "examples")))
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

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.seqpar_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["sp-compile", "sp-opt", "sp-import"], tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

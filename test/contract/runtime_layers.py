"""Checks that no file of the runtime's ABI core, communication layers or
backends includes a header of the driver (runtime/driver).

Usage: runtime_layers.py SEQPAR_SRC. Prints one line per offending include
and exits 1, or a summary line and exits 0.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
LOWER = ["core", "comm", "cpu", "cuda"]


def main():
    root = os.path.join(sys.argv[1], "runtime")
    driver = os.path.join(root, "driver")
    headers = {f for f in os.listdir(driver) if f.endswith(".h")}
    files = [f for f in os.listdir(driver) if f.endswith((".h", ".cpp"))]
    bad = []
    for layer in LOWER:
        for dirpath, _, names in os.walk(os.path.join(root, layer)):
            for name in sorted(names):
                if not name.endswith((".h", ".cpp", ".cu", ".cuh")):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for inc in INCLUDE.findall(text):
                    target = os.path.normpath(os.path.join(dirpath, inc))
                    if (target.startswith(driver + os.sep) or
                            "driver/" in inc or
                            os.path.basename(inc) in headers and
                            not os.path.exists(target)):
                        rel = os.path.relpath(path, sys.argv[1])
                        bad.append(f"{rel} includes {inc}, a header of the driver")
    for line in bad:
        print(line)
    if bad:
        return 1
    print(f"runtime/driver: {len(files)} files; included by "
          f"{', '.join(LOWER)}: none")
    return 0


if __name__ == "__main__":
    sys.exit(main())

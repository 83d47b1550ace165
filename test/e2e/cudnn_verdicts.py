"""Reads a cuda-emu program's output (cudnn-deviceless-emu.test) and checks
the deviceless cuDNN verdicts in it: at least MIN lines name an attention
shape ("sprt cuda: attention on the native kernel: <direction> <shape>:
<verdict>"), each says that cuDNN accepts the graph for sm_90, and none says
that a call's shape was not readied at start-up. Prints the verdicts; exits
1 naming the first line that fails."""

import sys

PREFIX = "sprt cuda: attention on the native kernel: "


def main():
    path, least = sys.argv[1], int(sys.argv[2])
    with open(path) as f:
        verdicts = [l.rstrip("\n")[len(PREFIX):] for l in f if l.startswith(PREFIX)]
    for v in verdicts:
        print(v)
    bad = [v for v in verdicts if "accepts the graph for sm_90" not in v]
    if bad:
        sys.exit(f"{path}: not accepted: {bad[0]}")
    if len(verdicts) < least:
        sys.exit(f"{path}: {len(verdicts)} verdicts, expected at least {least}")
    print(f"{len(verdicts)} verdicts, all accepted")


if __name__ == "__main__":
    main()

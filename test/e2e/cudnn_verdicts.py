"""Reads a cuda-emu program's output (cudnn-deviceless-emu.test) and checks
the deviceless cuDNN verdicts in it: at least MIN graphs accepted ("sprt
cuda: cuDNN <version> accepts the graph for sm_90 (no GPU here): <direction>
<shape>: ..."), no call left on the native kernel ("sprt cuda: attention on
the native kernel: ...", cuDNN's reason for a refusal) and none whose shape
was not readied at start-up. Prints the verdicts; exits 1 naming the first
line that fails."""

import sys

ACCEPTED = "accepts the graph for sm_90 (no GPU here): "
FAILURES = ("sprt cuda: attention on the native kernel: ", "was not readied at start-up")


def main():
    path, least = sys.argv[1], int(sys.argv[2])
    with open(path) as f:
        lines = [l.rstrip("\n") for l in f]
    accepted = [l.split(ACCEPTED, 1)[1] for l in lines if ACCEPTED in l]
    for a in accepted:
        print(a)
    bad = [l for l in lines if any(f in l for f in FAILURES)]
    if bad:
        sys.exit(f"{path}: {bad[0]}")
    if len(accepted) < least:
        sys.exit(f"{path}: {len(accepted)} graphs accepted, expected at least {least}")
    print(f"{len(accepted)} graphs accepted; no call native or not readied")


if __name__ == "__main__":
    main()

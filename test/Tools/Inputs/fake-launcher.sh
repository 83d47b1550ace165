#!/bin/sh
# Stands in for mpirun in sp-plan-calibrate.test: called as
# "fake-launcher.sh -np N WORKER OUT", it writes the figures sp-calibrate
# measured once on 2 ranks (sp-calibrate-measured.json) to OUT, or fails
# as mpirun does when the worker fails (FAKE_LAUNCHER_FAIL set).
if [ -n "$FAKE_LAUNCHER_FAIL" ]; then
  echo "fake-launcher: a rank exited with status 1" >&2
  exit 1
fi
[ "$1" = "-np" ] || { echo "fake-launcher: expected -np, got $1" >&2; exit 2; }
cp "$(dirname "$0")/sp-calibrate-measured.json" "$4"

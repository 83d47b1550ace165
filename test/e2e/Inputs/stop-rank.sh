#!/bin/sh
# mpirun -np N stop-rank.sh RANK SECONDS PROGRAM ARGS...: runs PROGRAM on every
# rank; the one whose world rank is RANK stops itself (SIGSTOP) after SECONDS,
# as a rank does that hangs or is suspended.
rank=$1 seconds=$2
shift 2
if [ "${OMPI_COMM_WORLD_RANK:-0}" = "$rank" ]; then
  (sleep "$seconds"; kill -STOP $$) &
fi
exec "$@"

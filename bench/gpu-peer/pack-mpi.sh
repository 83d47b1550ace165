#!/usr/bin/env bash
# Puts Debian 12's Open MPI runtime and what it loads (and OpenBLAS, for the
# cpu programs), as Debian packages (about 15 MB), into DIR/debs, and
# setup-mpi.sh into DIR: the recipe of ../shared/gpu/pack-mpi.sh, verified
# on an H200. Needs apt's package lists (apt-get update once).
#   bench/gpu-peer/pack-mpi.sh DIR
set -euo pipefail
dir=${1:?usage: pack-mpi.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir/debs"
cp "$here/setup-mpi.sh" "$dir/"
cd "$dir/debs"
apt-get -o APT::Sandbox::User=root download openmpi-bin openmpi-common libopenmpi3 libpmix2 libhwloc15 libevent-core-2.1-7 \
  libevent-pthreads-2.1-7 libfabric1 libucx0 libpsm2-2 libpsm-infinipath1 libibverbs1 libnl-3-200 \
  libnl-route-3-200 librdmacm1 libltdl7 libnuma1 libmunge2 libatomic1 libxxhash0 \
  libopenblas0-pthread libopenblas0 libgfortran5 libquadmath0 >/dev/null
find . -name '*.deb' | wc -l

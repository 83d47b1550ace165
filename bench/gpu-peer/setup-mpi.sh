#!/usr/bin/env bash
# Unpacks Debian 12's Open MPI (and OpenBLAS, xxhash, what they load) from
# the .deb files in DEBS (default: debs/ beside this script) into /opt/dbn
# and exposes it at Debian's own absolute paths where those are free, so no
# relocation is needed; then ldconfig. Run as root on the GPU machine (no
# apt, no Open MPI there). The recipe of ../shared/gpu/setup-mpi.sh, which ran
# seqpar's cuda programs on an H200; where dpkg is missing the packages are
# unpacked by Python (ar archive, data.tar.*).
#   bash setup-mpi.sh [DEBS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
debs=${1:-$here/debs}
mkdir -p /opt/dbn
for f in "$debs"/*.deb; do
  if command -v dpkg >/dev/null 2>&1; then
    dpkg -x "$f" /opt/dbn
  else
    python3 - "$f" /opt/dbn <<'PY'
import io, sys, tarfile
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"!<arch>\n", sys.argv[1] + ": not an ar archive"
at = 8
while at < len(data):
    name = data[at:at + 16].decode().strip().rstrip("/")
    size = int(data[at + 48:at + 58])
    body = data[at + 60:at + 60 + size]
    at += 60 + size + (size & 1)
    if name.startswith("data.tar"):
        kw = {"filter": "fully_trusted"} if hasattr(tarfile, "data_filter") else {}
        with tarfile.open(fileobj=io.BytesIO(body)) as t:
            t.extractall(sys.argv[2], **kw)
        break
else:
    sys.exit(sys.argv[1] + ": no data.tar member")
PY
  fi
done
for d in usr/lib/x86_64-linux-gnu/openmpi usr/lib/x86_64-linux-gnu/pmix2 usr/share/openmpi \
    usr/share/pmix etc/openmpi usr/lib/x86_64-linux-gnu/libfabric usr/lib/x86_64-linux-gnu/ucx \
    usr/lib/x86_64-linux-gnu/openblas-pthread; do
  if [ -e "/opt/dbn/$d" ] && [ ! -e "/$d" ]; then
    mkdir -p "$(dirname "/$d")"
    ln -s "/opt/dbn/$d" "/$d"
  fi
done
for b in orted orterun mpirun ompi_info; do
  if [ -e "/opt/dbn/usr/bin/$b" ] && [ ! -e "/usr/bin/$b" ]; then
    ln -s "/opt/dbn/usr/bin/$b" "/usr/bin/$b"
  fi
done
# The libraries: Debian's multiarch directories, searched after the system's own.
printf "%s\n" /opt/dbn/usr/lib/x86_64-linux-gnu /opt/dbn/lib/x86_64-linux-gnu \
  /opt/dbn/usr/lib/x86_64-linux-gnu/openblas-pthread > /etc/ld.so.conf.d/zz-dbn.conf
ldconfig

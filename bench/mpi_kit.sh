#!/usr/bin/env bash
# mpi_kit.sh [OUT.tar.xz]: an offline MPI runtime for machines without MPI
# or a network (the lent GPU machines), made on a Debian 12 (bookworm) amd64
# machine with apt: MPICH's Debian packages (mpich, libmpich12, the headers
# of libmpich-dev) and their libraries that are not in a base system (hwloc,
# UCX, numactl, rdma-core's verbs and rdmacm, Slurm's libslurm for Hydra,
# udev), downloaded with `apt-get download` (nothing installed), unpacked
# into one folder mpich/ (usr/bin, usr/lib/x86_64-linux-gnu, usr/include/
# mpich), the static archives, Fortran and C++ bindings and docs left out,
# and tarred (xz). Default OUT: ./mpich-kit.tar.xz. The kit is < 20 MB.
#
# Use (bench/device_run.sh step `mpi` does this; MPIKIT=OUT.tar.xz):
#   tar -xJf mpich-kit.tar.xz -C DIR
#   . DIR/mpich/env.sh     # PATH, LD_LIBRARY_PATH, MPI_HOME for CMake
#   cmake -S . -B build-mpi -DCISPARSE_MPI=ON "${MPICH_KIT_CMAKE[@]}"
#   mpirun -np 2 build-mpi/cisparse ci FILE --mpi --device gpu
# Its binaries need glibc 2.34 or newer (Debian 12, Ubuntu 22.04, RHEL 9).
set -eu
OUT=${1:-$PWD/mpich-kit.tar.xz}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
mkdir -p "$(dirname "$OUT")"
PKGS="mpich libmpich12 libmpich-dev libhwloc15 libucx0 libnuma1 libibverbs1 librdmacm1 libslurm38 libudev1"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/debs" "$WORK/root" "$WORK/mpich"
(cd "$WORK/debs" && apt-get download $PKGS >/dev/null 2>"$WORK/apt.err") ||
  { echo "mpi_kit.sh: apt-get download failed: $(tail -1 "$WORK/apt.err")" >&2; exit 1; }
for d in "$WORK"/debs/*.deb; do dpkg-deb -x "$d" "$WORK/root"; done
R=$WORK/root K=$WORK/mpich
L=usr/lib/x86_64-linux-gnu
mkdir -p "$K/usr/bin" "$K/$L" "$K/usr/include"
# Hydra (the launcher) and its proxy; mpirun/mpiexec as links to it
for b in mpiexec.hydra hydra_pmi_proxy hydra_nameserver hydra_persist mpichversion; do cp -a "$R/usr/bin/$b" "$K/usr/bin/"; done
ln -s mpiexec.hydra "$K/usr/bin/mpiexec"
ln -s mpiexec.hydra "$K/usr/bin/mpirun"
# the C library (no static archive, no Fortran / C++ bindings) and its dependencies
cp -a "$R/$L"/libmpich.so.12* "$K/$L/"
ln -s libmpich.so.12 "$K/$L/libmpich.so"
ln -s libmpich.so.12 "$K/$L/libmpi.so"
for lib in libhwloc.so.15 libucm.so.0 libucp.so.0 libucs.so.0 libucs_signal.so.0 libuct.so.0 libnuma.so.1 \
           libibverbs.so.1 librdmacm.so.1 libslurm.so.38 libudev.so.1; do
  cp -a "$R/$L/$lib"* "$K/$L/" 2>/dev/null || cp -a "$R/lib/x86_64-linux-gnu/$lib"* "$K/$L/"
done
cp -a "$R/$L/ucx" "$K/$L/"
[ -d "$R/$L/libibverbs" ] && cp -a "$R/$L/libibverbs" "$K/$L/"
# the headers (mpi.h, mpio.h, mpi_proto.h, ...)
cp -a "$R/usr/include/x86_64-linux-gnu/mpich" "$K/usr/include/mpich"
cat > "$K/env.sh" <<'EOF'
# env.sh: source it (. DIR/mpich/env.sh) to use this MPICH kit: its mpirun on
# the PATH, its libraries found, and MPICH_KIT_CMAKE (an array) for CMake's
# FindMPI (the kit has no compiler wrapper: the header folder and library given).
MPICH_KIT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PATH=$MPICH_KIT/usr/bin:$PATH
export LD_LIBRARY_PATH=$MPICH_KIT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export UCX_MODULE_DIR=$MPICH_KIT/usr/lib/x86_64-linux-gnu/ucx
export MPI_HOME=$MPICH_KIT/usr
MPICH_KIT_CMAKE=(-DMPI_C_COMPILER=MPI_C_COMPILER-NOTFOUND -DMPI_C_HEADER_DIR=$MPICH_KIT/usr/include/mpich
  -DMPI_C_LIB_NAMES=mpich -DMPI_mpich_LIBRARY=$MPICH_KIT/usr/lib/x86_64-linux-gnu/libmpich.so)
EOF
{ echo "MPICH kit made $(date -u +%F) on $(. /etc/os-release; echo "$PRETTY_NAME") from:"
  for d in "$WORK"/debs/*.deb; do dpkg-deb -f "$d" Package Version | paste -sd' '; done; } > "$K/VERSIONS"
tar -C "$WORK" -cJf "$OUT" mpich
bytes=$(stat -c %s "$OUT")
echo "mpi_kit.sh: $OUT, $((bytes / 1024 / 1024)) MiB ($bytes bytes)"
[ "$bytes" -lt $((20 * 1024 * 1024)) ] || { echo "mpi_kit.sh: the kit is 20 MiB or more" >&2; exit 1; }

#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for pyasc: system packages (apt-get, as root
# or through sudo) and a Python virtual environment in .venv with the exact
# package versions of requirements/lock.txt (the ranges are requirements/dev.in;
# `make lock` rewrites the lock). Safe to re-run: installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

SYSTEM_PACKAGES=(
  build-essential   # g++ / make
  cmake             # >= 3.18
  ccache            # second compile of libasc (wheel build) hits the cache
  pkg-config
  libhwy-dev        # Google Highway: SIMD with dynamic dispatch
  libgtest-dev      # GoogleTest
  libopenblas-dev   # BLAS/LAPACK: matmul, Mmad, asc.linalg
  libdnnl-dev       # oneDNN: convolution, pooling, normalisation primitives (asc.ops, src/nn)
  openmpi-bin libopenmpi-dev   # OpenMPI: asc.distributed collectives (mpi4py), mpirun in the tests
  libjpeg62-turbo-dev libpng-dev   # asc.image: JPEG (libjpeg-turbo) and PNG decode/encode
  # gRPC C++ + protobuf: pyasc-serve's native gRPC front end (pyasc._serve_native; without them
  # the module is not built and pyasc-serve uses its grpcio front end)
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  python3-dev python3-venv
)

missing=()
for pkg in "${SYSTEM_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing Debian packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

PYTHON="${PYTHON:-python3}"
VENV="${PYASC_VENV:-.venv}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "bootstrap: creating $VENV with $($PYTHON --version)"
  "$PYTHON" -m venv "$VENV"
fi

if [ "${PYASC_LATEST:-0}" = 1 ]; then
  # make test-latest: the newest releases requirements/dev.in allows, every time.
  echo "bootstrap: upgrading $VENV to the newest releases (requirements/dev.in)"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q --upgrade --upgrade-strategy eager -r requirements/dev.in
  "$VENV/bin/python" -m pip check
  "$VENV/bin/python" -m pip freeze --all | LC_ALL=C sort -f | diff requirements/lock.txt - \
    | sed -n 's/^> /bootstrap: newer than the lock: /p' || true
  echo "bootstrap: ready ($("$VENV/bin/python" --version), $(cmake --version | head -1))"
  exit 0
fi
LOCK="${PYASC_LOCK:-requirements/lock.txt}"
stamp="$VENV/.requirements-stamp"
if [ ! -f "$stamp" ] || ! cmp -s "$LOCK" "$stamp"; then
  echo "bootstrap: installing Python packages ($LOCK)"
  pip_pin=$(grep -E '^pip==' "$LOCK" || true)
  "$VENV/bin/python" -m pip install -q ${pip_pin:-pip}
  # --no-deps: exactly the lock, nothing resolved on this machine; pip check
  # then proves the lock is complete and consistent.
  "$VENV/bin/python" -m pip install -q --no-deps -r "$LOCK"
  "$VENV/bin/python" -m pip check
  cp "$LOCK" "$stamp"
fi
echo "bootstrap: ready ($("$VENV/bin/python" --version), $(cmake --version | head -1))"

#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for pyasc: system packages (apt-get, as root
# or through sudo) and a Python virtual environment in .venv with the packages
# from requirements-dev.txt. Safe to re-run: installs only what is missing.
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
if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.requirements-stamp
if [ ! -f "$stamp" ] || ! cmp -s requirements-dev.txt "$stamp"; then
  echo "bootstrap: installing Python packages (requirements-dev.txt)"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -r requirements-dev.txt
  cp requirements-dev.txt "$stamp"
fi
echo "bootstrap: ready ($(.venv/bin/python --version), $(cmake --version | head -1))"

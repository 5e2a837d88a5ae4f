#!/usr/bin/env bash
# A fast edit-and-test loop for developers (not used by CI):
#   scripts/dev_install.sh [NAME]     -> prints PYTHONPATH=.../build/dev/NAME/site
# builds the package with its own scikit-build tree (build/dev/NAME/wheel, ccache
# shares objects with `make build`), installs it into build/dev/NAME/site and
# replaces the installed .py files by symlinks to python/pyasc, so Python edits
# are live. Rerun after C++ edits; after adding a .py file,
#   scripts/dev_install.sh NAME --relink
# only refreshes the symlinks (seconds, no build). Several NAMEs can exist side
# by side (one per work area).
set -euo pipefail
cd "$(dirname "$0")/.."
name="${1:-default}"
relink="${2:-}"
root="build/dev/$name"
site="$PWD/$root/site"
launcher=""
if command -v ccache >/dev/null; then
  launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
fi
if [ "$relink" != "--relink" ]; then
CMAKE_ARGS="$launcher -DASC_WERROR=ON" CMAKE_BUILD_PARALLEL_LEVEL="${JOBS:-$(nproc)}" \
  .venv/bin/python -m pip install --no-build-isolation --no-deps -q --upgrade \
  --target "$site" -C build-dir="$root/wheel" . >&2
elif [ ! -d "$site/pyasc" ]; then
  echo "dev_install: $site has no installed package yet; run without --relink first" >&2
  exit 2
fi
find python/pyasc python/asc -name '*.py' | while read -r f; do
  mkdir -p "$site/$(dirname "${f#python/}")"
  ln -sf "$PWD/$f" "$site/${f#python/}"
done
echo "PYTHONPATH=$site"

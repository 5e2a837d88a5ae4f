"""Helpers of the custom-operator tests (imported by name: `from ext_helpers import ...`; a
module of its own rather than conftest, whose name several test directories share)."""
import contextlib
import os
import shutil
from pathlib import Path

KERNELS = Path(__file__).parent / "kernels"

@contextlib.contextmanager
def build_env(cache_dir):
    """PYASC_EXTENSIONS_DIR=cache_dir and, when ccache exists and CXX is unset, CXX="ccache g++" and
    CCACHE_BASEDIR=cache_dir while building (all restored after)."""
    saved = {k: os.environ.get(k) for k in ("CXX", "PYASC_EXTENSIONS_DIR", "CCACHE_BASEDIR")}
    os.environ["PYASC_EXTENSIONS_DIR"] = str(cache_dir)
    if saved["CXX"] is None and shutil.which("ccache"):
        os.environ["CXX"] = "ccache g++"
        # paths under the (per-session) cache root become relative: later sessions hit ccache
        os.environ["CCACHE_BASEDIR"] = str(cache_dir)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

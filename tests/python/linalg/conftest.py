import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from linalg_harness import run_both  # noqa: E402


@pytest.fixture
def check():
    return run_both

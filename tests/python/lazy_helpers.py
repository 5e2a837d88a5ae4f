"""Shared by the lazy-graph tests: `from lazy_helpers import lazy_mode, groups_of`
(importing the autouse fixture runs every test of the module in lazy mode)."""

import pytest

import pyasc as asc


@pytest.fixture(autouse=True)
def lazy_mode():
    """Lazy (graph) mode for the test; the previous mode is restored after."""
    previous = asc.is_eager()
    asc.set_eager(False)
    yield
    asc.set_eager(previous)


def groups_of(fn):
    """(fn(), number of fused groups that ran while it did)."""
    before = asc.lazy.graph_stats()["groups_run"]
    out = fn()
    return out, asc.lazy.graph_stats()["groups_run"] - before

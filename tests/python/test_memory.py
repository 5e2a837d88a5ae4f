import pytest

import pyasc as asc
from pyasc import _C
from pyasc.errors import ErrorCode

MiB = 1 << 20

STAT_KEYS = {
    "allocated_bytes",
    "peak_allocated_bytes",
    "reserved_bytes",
    "peak_reserved_bytes",
    "allocation_count",
    "free_count",
    "cache_hits",
    "cache_misses",
    "os_allocations",
    "os_frees",
    "retries",
    "oom_count",
    "active_blocks",
    "cached_blocks",
    "segments",
    "limit_bytes",
}


@pytest.fixture(autouse=True)
def no_limit():
    asc.set_memory_limit(None)
    yield
    asc.set_memory_limit(None)


class Blocks:
    """Raw pool blocks through the testing hook, freed at teardown."""

    def __init__(self):
        self.ptrs = []

    def alloc(self, nbytes):
        p = _C._testing_allocate(nbytes)
        self.ptrs.append(p)
        return p

    def free(self, p):
        self.ptrs.remove(p)
        _C._testing_free(p)

    def free_all(self):
        for p in list(self.ptrs):
            self.free(p)


@pytest.fixture
def blocks():
    b = Blocks()
    yield b
    b.free_all()


def test_stats_keys_and_types():
    stats = asc.memory_stats()
    assert STAT_KEYS <= set(stats)
    assert all(isinstance(v, int) and v >= 0 for v in stats.values())
    assert stats["reserved_bytes"] >= stats["allocated_bytes"]


def test_allocate_and_free_update_stats(blocks):
    before = asc.memory_stats()
    p = blocks.alloc(3 * MiB)
    assert p % 64 == 0
    mid = asc.memory_stats()
    assert asc.memory_allocated() - before["allocated_bytes"] >= 3 * MiB
    assert asc.memory_reserved() >= asc.memory_allocated()
    assert mid["allocation_count"] == before["allocation_count"] + 1
    assert mid["active_blocks"] == before["active_blocks"] + 1
    assert asc.max_memory_allocated() >= asc.memory_allocated()
    assert asc.max_memory_reserved() >= asc.memory_reserved()
    blocks.free(p)
    after = asc.memory_stats()
    assert after["allocated_bytes"] == before["allocated_bytes"]
    assert after["free_count"] == before["free_count"] + 1


def test_cache_reuse_and_empty_cache(blocks):
    p = blocks.alloc(4 * MiB)
    blocks.free(p)
    reserved = asc.memory_reserved()
    hits = asc.memory_stats()["cache_hits"]
    q = blocks.alloc(4 * MiB)  # served from the cache
    assert asc.memory_stats()["cache_hits"] == hits + 1
    assert asc.memory_reserved() == reserved
    blocks.free(q)
    asc.empty_cache()
    assert asc.memory_reserved() < reserved
    assert asc.memory_reserved() >= asc.memory_allocated()


def test_reset_peak_memory_stats(blocks):
    p = blocks.alloc(8 * MiB)
    blocks.free(p)
    assert asc.max_memory_allocated() >= 8 * MiB + asc.memory_allocated() - 1
    asc.reset_peak_memory_stats()
    assert asc.max_memory_allocated() == asc.memory_allocated()
    assert asc.max_memory_reserved() == asc.memory_reserved()
    assert asc.memory_stats()["cache_hits"] == 0


def test_set_memory_limit(blocks):
    asc.empty_cache()
    base = asc.memory_reserved()
    asc.set_memory_limit(base + 4 * MiB)
    assert asc.get_memory_limit() == base + 4 * MiB
    assert asc.memory_stats()["limit_bytes"] == base + 4 * MiB
    assert asc.get_device_properties().memory_limit == base + 4 * MiB
    ooms = asc.memory_stats()["oom_count"]
    p = blocks.alloc(2 * MiB)  # fits
    with pytest.raises(asc.AscendMemoryError) as info:
        blocks.alloc(16 * MiB)
    err = info.value
    assert isinstance(err, MemoryError)
    assert err.code == ErrorCode.RT_MEMORY_ALLOCATION
    assert err.message.startswith("[")
    assert asc.memory_stats()["oom_count"] == ooms + 1
    blocks.free(p)
    asc.set_memory_limit(None)
    assert asc.get_memory_limit() is None
    assert asc.memory_stats()["limit_bytes"] == 0
    q = blocks.alloc(16 * MiB)  # fine without the limit
    blocks.free(q)
    asc.set_memory_limit(base + 1)
    asc.set_memory_limit(0)
    assert asc.get_memory_limit() is None


def test_limit_retries_after_emptying_cache(blocks):
    asc.empty_cache()
    base = asc.memory_reserved()
    p = blocks.alloc(12 * MiB)
    blocks.free(p)  # 12 MiB stay cached
    asc.set_memory_limit(base + 14 * MiB)
    retries = asc.memory_stats()["retries"]
    q = blocks.alloc(13 * MiB)  # needs the cached segment returned first
    assert asc.memory_stats()["retries"] == retries + 1
    blocks.free(q)


def test_set_memory_limit_validation():
    with pytest.raises(asc.AscendValueError):
        asc.set_memory_limit(-5)
    with pytest.raises(ValueError):
        asc.set_memory_limit("lots")


def test_memory_allocator_object(blocks):
    alloc = asc.memory_allocator
    assert isinstance(alloc, asc.MemoryAllocator)
    p = blocks.alloc(MiB)
    assert alloc.memory_allocated() == asc.memory_allocated() == alloc.allocated_bytes
    assert alloc.memory_reserved() == asc.memory_reserved() == alloc.reserved_bytes
    assert alloc.max_memory_allocated() == alloc.peak_allocated_bytes
    assert alloc.max_memory_reserved() == alloc.peak_reserved_bytes
    assert STAT_KEYS <= set(alloc.memory_stats()) and STAT_KEYS <= set(alloc.stats)
    alloc.limit = 1 << 40
    assert alloc.limit == asc.get_memory_limit() == 1 << 40
    alloc.limit = None
    assert alloc.get_memory_limit() is None
    assert "allocated=" in repr(alloc)
    blocks.free(p)
    alloc.empty_cache()
    alloc.reset_peak_memory_stats()


def test_memory_summary():
    text = asc.memory_summary()
    assert "allocated_bytes" in text and "cache_hits" in text


def test_free_unknown_pointer():
    with pytest.raises(asc.AscendError) as info:
        _C._testing_free(12345)
    assert info.value.code == ErrorCode.RT_MEMORY_FREE


def test_memory_limit_from_environment(run_python):
    r = run_python(
        "import pyasc as asc; print(asc.get_memory_limit())",
        env={"ASC_MEMORY_LIMIT": "64M"},
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(64 << 20)


def test_limit_counts_only_returnable_cache(blocks):
    # Issue 20 item 13: with 40 MiB live under a 64 MiB budget, a 16 MiB request
    # fits (live + request <= limit) and must succeed once the cache is emptied:
    # the cached 50 MiB segment is not split (a 10 MiB remainder beside the live
    # block could never be returned); the 40 MiB get a segment of their own.
    asc.empty_cache()
    base = asc.memory_allocated()
    asc.set_memory_limit(asc.memory_reserved() + 64 * MiB)
    limit = asc.get_memory_limit()
    p = blocks.alloc(50 * MiB)
    blocks.free(p)
    live = blocks.alloc(40 * MiB)
    assert asc.memory_reserved() <= limit
    q = blocks.alloc(16 * MiB)
    stats = asc.memory_stats()
    assert stats["allocated_bytes"] == base + 56 * MiB
    assert stats["reserved_bytes"] <= limit
    with pytest.raises(asc.AscendMemoryError):
        blocks.alloc(limit - stats["allocated_bytes"] + 2 * MiB)
    assert asc.memory_reserved() <= limit
    blocks.free(q)
    blocks.free(live)


def test_set_memory_limit_below_reserved_returns_cache(blocks):
    asc.empty_cache()
    reserved = asc.memory_reserved()
    p = blocks.alloc(24 * MiB)
    blocks.free(p)
    assert asc.memory_reserved() == reserved + 24 * MiB
    asc.set_memory_limit(reserved + 16 * MiB)
    assert asc.memory_reserved() == reserved
    q = blocks.alloc(12 * MiB)
    assert asc.memory_reserved() <= asc.get_memory_limit()
    blocks.free(q)


def test_memory_limit_from_environment_is_exact(run_python):
    code = """
import pyasc as asc
from pyasc import _C
MiB = 1 << 20
asc.empty_cache()
base = asc.memory_reserved()
assert base <= 8 * MiB, base
p = _C._testing_allocate(50 * MiB)
_C._testing_free(p)
live = _C._testing_allocate(40 * MiB)
q = _C._testing_allocate(64 * MiB - base - 40 * MiB - 2 * MiB)
s = asc.memory_stats()
assert s["reserved_bytes"] <= 64 * MiB, s
try:
    _C._testing_allocate(64 * MiB - s["allocated_bytes"] + 2 * MiB)
    raise SystemExit("over the limit")
except asc.AscendMemoryError:
    pass
_C._testing_free(q)
_C._testing_free(live)
print("ok", s["limit_bytes"])
"""
    r = run_python(code, env={"ASC_MEMORY_LIMIT": "64M"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["ok", str(64 << 20)]

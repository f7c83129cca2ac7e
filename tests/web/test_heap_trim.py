"""Freed memory handed back after maintenance passes (web/heap_trim.py)."""

from __future__ import annotations

import ctypes

import pytest

from web.heap_trim import HeapTrim


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_trims_at_most_once_an_interval():
    clock = Clock()
    trim = HeapTrim(interval_s=60.0, clock=clock)
    calls: list[int] = []
    trim._fn = lambda pad: calls.append(pad) or 1
    assert trim.maybe([("A", 3)]) is True
    clock.now += 59.9
    assert trim.maybe() is False
    clock.now += 0.1
    assert trim.maybe() is True
    assert calls == [0, 0] and trim.trims == 2


def test_without_malloc_trim_nothing_happens():
    trim = HeapTrim()
    trim._fn = None
    assert not trim.available and trim.maybe() is False and trim.trims == 0


def test_on_glibc_a_trim_gives_freed_pages_back():
    """After 64 MB of 64 KB blocks (below the mmap threshold: in the heap) are allocated and all but
    every 16th freed, the free pages stay resident until the trim returns them."""
    trim = HeapTrim(interval_s=0.0)
    if not trim.available:
        pytest.skip("no malloc_trim in this C library")
    libc = ctypes.CDLL("libc.so.6")
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]

    def rss_kb() -> int:
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError

    blocks = []
    for _ in range(1024):
        p = libc.malloc(64 * 1024)
        libc.memset(p, 1, 64 * 1024)
        blocks.append(p)
    for i, p in enumerate(blocks):
        if i % 16:
            libc.free(p)
    before = rss_kb()
    assert trim.maybe() is True
    after = rss_kb()
    for p in blocks[::16]:
        libc.free(p)
    assert before - after > 40 * 1024, (before, after)


def test_the_service_trims_after_its_maintenance_passes(tmp_path):
    from web.service import Service
    from web.stores.sqlite import SqliteStore

    service = Service(SqliteStore(tmp_path / "roads.sqlite3"))
    try:
        assert service.maintenance is not None and service.maintenance.idle()
        assert service.heap_trim.trims == (1 if service.heap_trim.available else 0)
    finally:
        service.close()

"""What a memory soak counts inside the service's process (issue 23), shared by
``bench/soak_history.py`` (the app in its own process) and ``bench/soak_serving.py`` (the gunicorn
worker, through ``bench/gunicorn_hooks.py``): resident memory, glibc's heap (``mallinfo2``), the
pixels of live Pillow images, live objects by type and the fill of every bounded cache of ``web``
and ``roads``. Standard library (and Pillow, which the service imports anyway); nothing here
changes the service.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import sys
import time
import types
from collections import Counter
from pathlib import Path
from typing import Any


def rss_mb(pid: int | str = "self", field: str = "VmRSS") -> float:
    """``VmRSS`` (or another kB ``field`` of ``/proc/<pid>/status``: ``RssAnon``, ``RssFile``) of
    ``pid`` (default this process) in MB; 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def caches(limits: bool = False) -> dict[str, int]:
    """Entries held by each ``functools.lru_cache`` function of ``web`` and ``roads`` (KB for the
    pixel caches of ``web/render/pixel_cache.py``), and by the
    renderer's cell memo: the bounded caches that fill during a soak (``limits``: each one's
    ``maxsize`` instead, -1 for an unbounded ``lru_cache``, -2 for the memo, bounded its own way)."""
    out: dict[str, int] = {}
    for name, mod in list(sys.modules.items()):
        if not (name.startswith("web") or name.startswith("roads")) or not isinstance(mod, types.ModuleType):
            continue
        for attr, obj in list(vars(mod).items()):
            if isinstance(obj, functools._lru_cache_wrapper) and getattr(obj, "__module__", None) == name:
                info = obj.cache_info()
                out[f"{name}.{attr}"] = (-1 if info.maxsize is None else info.maxsize) if limits else info.currsize
            elif getattr(obj, "__module__", None) == name and hasattr(getattr(obj, "cache", None), "currsize"):
                cache = obj.cache  # a pixel cache (web/render/pixel_cache.py): KB of pixels, not entries
                out[f"{name}.{attr} (KB)"] = (cache.maxsize if limits else cache.currsize) // 1024
            elif type(obj).__name__ == "PixelCache":
                out[f"{name}.{attr} (KB)"] = (obj.cache.maxsize if limits else obj.cache.currsize) // 1024
    cells = sys.modules.get("web.render.cells")
    if cells is not None and hasattr(cells, "_MEMO"):
        out["web.render.cells._MEMO"] = -2 if limits else len(cells._MEMO)
    return out


class _MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                "fsmblks", "uordblks", "fordblks", "keepcost")]


def malloc_mb() -> tuple[float, float]:
    """MB: glibc's bytes in use (``mallinfo2``: small blocks + mmapped) and free inside its arenas."""
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = _MallInfo2
    m = libc.mallinfo2()
    return (m.uordblks + m.hblkhd) / 2**20, m.fordblks / 2**20


def _pixels(objects: list[Any]) -> float:
    from PIL import Image

    return sum(o.width * o.height * len(o.getbands()) for o in objects if isinstance(o, Image.Image)) / 2**20


def heap() -> tuple[float, float, float]:
    """MB: glibc's bytes in use, free inside its arenas, and the pixel bytes of every live Pillow
    image (after a full collection)."""
    gc.collect()
    used, free = malloc_mb()
    return used, free, _pixels(gc.get_objects())


def census() -> Counter[str]:
    """Live objects by type name (after a full collection)."""
    gc.collect()
    return Counter(type(o).__name__ for o in gc.get_objects())


def sizes(objects: list[Any]) -> dict[str, list[int]]:
    """``{type name: [count, bytes]}`` of ``objects`` (gc-tracked) and of every object reachable from
    them through objects the collector does not track (``str``, ``bytes``, ``int``, ``float``, and
    the dicts and tuples holding only such), each counted once; bytes by ``sys.getsizeof`` (an
    object's own memory, not what it refers to). What ``gc.get_objects()`` alone misses; costs a
    walk of every reference."""
    seen: set[int] = set()
    out: dict[str, list[int]] = {}

    def add(o: Any) -> None:
        entry = out.setdefault(type(o).__name__, [0, 0])
        entry[0] += 1
        try:
            entry[1] += sys.getsizeof(o)
        except TypeError:
            pass

    for o in objects:
        seen.add(id(o))
    for o in objects:
        add(o)
    todo = [r for o in objects for r in gc.get_referents(o) if not gc.is_tracked(r)]
    while todo:
        o = todo.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        add(o)
        todo.extend(r for r in gc.get_referents(o) if not gc.is_tracked(r))
    return out


def traced(limit: int = 200) -> dict[str, Any]:
    """With tracemalloc tracing: the traced total and the ``limit`` source lines holding most of it
    (``[[file:line, bytes, blocks], ...]``), paths shortened to the repository or site-packages."""
    import tracemalloc

    snap = tracemalloc.take_snapshot()
    stats = snap.statistics("lineno")
    root = str(Path(__file__).resolve().parent.parent) + "/"

    def short(name: str) -> str:
        name = name.replace(root, "")
        return name.split("site-packages/", 1)[-1]

    top = [[f"{short(st.traceback[0].filename)}:{st.traceback[0].lineno}", st.size, st.count] for st in stats[:limit]]
    del snap, stats
    return {"traced_mb": round(tracemalloc.get_traced_memory()[0] / 2**20, 1), "lines": top}


def snapshot(collect: bool = False, deep: bool = False, pid: int | str = "self") -> dict[str, Any]:
    """Everything above in one pass over the heap, as one JSON-ready dict: ``rss_mb`` (and its
    ``rss_anon_mb`` part), ``malloc_used_mb``, ``malloc_free_mb`` (glibc's heap: Python's small
    objects live in its own mmapped arenas, which are not in it), ``py_blocks`` (blocks Python's
    allocator holds, ``sys.getallocatedblocks``), ``image_mb``, ``objects`` (every type's count), ``functions`` (the 300 commonest function objects by qualified name),
    ``caches`` (and their ``cache_max``), ``gc`` (collections per generation) and ``census_s`` (how long this took).
    ``collect``: a full collection first (a serving worker's own collector runs the oldest
    generation rarely, ``web.gc_tuning``; collecting here every minute would hide growth made of
    cycles waiting for it). Objects moved to the permanent generation (``gc.freeze()`` at worker
    start) are not counted. ``deep``: also ``sizes`` (:func:`sizes`: untracked objects too, with
    bytes); with tracemalloc tracing, ``traced`` (:func:`traced`). ``pid``: whose RSS (a forked
    child counting its parent's heap gives the parent's pid)."""
    t0 = time.perf_counter()
    used, free = malloc_mb()   # before the census allocates anything
    if collect:
        gc.collect()
    objects = gc.get_objects()
    counts = Counter(type(o).__name__ for o in objects)
    functions = Counter(f"{o.__module__}.{o.__qualname__}" for o in objects if isinstance(o, types.FunctionType))
    pixels = _pixels(objects)
    extra: dict[str, Any] = {}
    if deep:
        extra["sizes"] = sizes(objects)
    del objects
    import tracemalloc

    if tracemalloc.is_tracing():
        extra["traced"] = traced()
    return {**extra, "rss_mb": round(rss_mb(pid), 1), "rss_anon_mb": round(rss_mb(pid, field="RssAnon"), 1),
            "py_blocks": sys.getallocatedblocks(), "malloc_used_mb": round(used, 1), "malloc_free_mb": round(free, 1),
            "image_mb": round(pixels, 2), "objects": dict(counts),
            "functions": dict(functions.most_common(300)), "caches": caches(),
            "cache_max": caches(limits=True),
            "gc": [s["collections"] for s in gc.get_stats()], "census_s": round(time.perf_counter() - t0, 3)}


def images_by_shape() -> None:
    """Print the live Pillow images grouped by mode and size (the 8 largest groups by pixel bytes),
    each with what holds one of them (the referrers' types, two levels up)."""
    import gc
    from collections import defaultdict

    from PIL import Image

    gc.collect()
    groups: dict[tuple[str, tuple[int, int]], list[Image.Image]] = defaultdict(list)
    for o in gc.get_objects():
        if isinstance(o, Image.Image):
            groups[(o.mode, o.size)].append(o)
    ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]) * kv[1][0].width * kv[1][0].height)
    print("live images by mode and size (count, MB, held by):")
    for (mode, size), imgs in ranked[:8]:
        mb = len(imgs) * size[0] * size[1] * Image.getmodebands(mode) / 2**20
        held = [type(r).__name__ for r in gc.get_referrers(imgs[-1]) if r is not imgs]
        up = [type(r).__name__ for h in gc.get_referrers(imgs[-1]) if h is not imgs for r in gc.get_referrers(h)
              if r is not imgs][:6]
        print(f"  {len(imgs):6d} {mb:7.1f}  {mode} {size}  <- {held} <- {up}")

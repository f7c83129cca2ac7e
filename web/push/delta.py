"""Deltas between two versions of one JSON document: what a live screen gets after the first frame.

A delta is a list of operations that turns the previous document (``old``) into the new one
(``new``); :func:`diff` computes it, :func:`apply` applies it, and ``static/js/delta.js``
applies the same operations in the page. A *path* is a list of dict keys (str) and list
indices (int) from the document's root; ``[]`` is the root itself.

Operations (JSON arrays, compact on the wire)::

    ["s", path, value]   set: the value at path becomes value (a list element is replaced;
                         path [] replaces the whole document)
    ["m", path, {k: v}]  merge: each key k of the object at path gets the value v (added or
                         replaced); the changed numbers and words of one panel in one op
    ["a", path, items]   append: the list at path is extended by items (new cells of a road)
    ["t", path, n]       truncate: the list at path keeps its first n elements (a void)
    ["d", path]          delete: the dict key at path is removed
    ["w", path, n, {f: d}]  window: the list at path loses its first n elements, then field f
                         of every element left (an object holding an integer there) grows by
                         the integer d (a road's cells when its window scrolled a column)
    ["p", path, i, n, items]  splice: the list at path has its n elements from index i replaced
                         by items (a panel whose middle items changed number: a good-road
                         badge came, the legend after it stays)
    ["@", path, ops]     scope: ops apply to the value at path, their paths relative to it
                         (each is the op with path + its path; saves repeating long paths)

Operations apply in order; every path names something that exists when its operation runs.
:func:`diff` groups consecutive operations under a common path into scopes, and a list of
objects keyed by ``"k"`` (:data:`KEY`, the board model's cells) whose window moved is sent as a
window operation plus what differs after it, when that encodes shorter; a list whose length
changed has its elements inserted or removed by a splice where that makes the rest patch
shortest (a badge inserted before items that only changed text).
The diff walks both documents together and compares subtrees with ``==`` first (C speed), so
unchanged parts cost a pointer check or one comparison: a round that adds a few cells to
the roads of a long shoe gives a delta of a few hundred bytes, whatever the shoe's length.

Equality is Python's (``1 == 1.0 == True``): a value that changes only between a number
and a bool of equal value is not noticed. The documents served here (snapshots, the lobby,
the board model) never put a bool where a number was.
"""

from __future__ import annotations

from typing import Any

import orjson

SET, MERGE, APPEND, TRUNCATE, DELETE, WINDOW, SPLICE, SCOPE = "s", "m", "a", "t", "d", "w", "p", "@"

KEY = "k"
"""The key of objects that identify themselves in a list (cells of a road: :mod:`web.render.cells`)."""

MAX_PATCHED_ELEMENTS = 4
"""A list whose overlapping elements differ in more than this many places (and in more than
half of them) is sent whole instead of element by element (e.g. a window that scrolled),
unless its element-by-element operations encode shorter than the whole list (the panels of a
board model: most change a little each round)."""

MAX_REALIGNED = 24
"""Elements (of the shorter list, between the head and tail two lists of different lengths
share) among which :func:`_realigned` seeks where elements were inserted or removed; lists of
at most this many elements are realigned whatever their last elements (a panel's items), but
for keyed cells (:data:`KEY`: a road grows at its end or scrolls, a window)."""


def diff(old: Any, new: Any) -> list[list[Any]]:
    """The operations that turn ``old`` into ``new`` (both JSON-able: dict, list, str, int,
    float, bool, None). ``[]`` when they are equal. Neither argument is changed; the values in
    the operations are shared with ``new`` (encode them, do not mutate them)."""
    ops: list[list[Any]] = []
    if old is not new and not (type(old) is type(new) and old == new):
        _diff(old, new, [], ops)
    return _scoped(ops, 0)


def _scoped(ops: list[list[Any]], depth: int) -> list[list[Any]]:
    """``ops`` (absolute paths whose first ``depth`` steps are shared) with paths made
    relative to that prefix and consecutive runs under one longer prefix grouped in scopes."""
    out: list[list[Any]] = []
    i, n = 0, len(ops)
    while i < n:
        op = ops[i]
        path = op[1]
        if len(path) <= depth:
            out.append([op[0], path[depth:], *op[2:]])
            i += 1
            continue
        step = path[depth]
        j = i + 1
        while j < n and len(ops[j][1]) > depth and ops[j][1][depth] == step and type(ops[j][1][depth]) is type(step):
            j += 1
        if j - i == 1:
            out.append([op[0], path[depth:], *op[2:]])
        else:
            inner = _scoped(ops[i:j], depth + 1)
            if len(inner) == 1 and inner[0][0] == SCOPE:
                out.append([SCOPE, [step, *inner[0][1]], inner[0][2]])
            else:
                out.append([SCOPE, [step], inner])
        i = j
    return out


def _diff(old: Any, new: Any, path: list[Any], ops: list[list[Any]]) -> None:
    # Caller has checked that old and new differ.
    if type(old) is dict and type(new) is dict:
        merge: dict[str, Any] = {}
        for key, value in new.items():
            if key in old:
                before = old[key]
                if before is value or (type(before) is type(value) and before == value):
                    continue
                if type(before) is type(value) and type(value) in (dict, list):
                    _diff(before, value, [*path, key], ops)
                    continue
            merge[key] = value
        if merge:
            ops.append([MERGE, path, merge])
        for key in old:
            if key not in new:
                ops.append([DELETE, [*path, key]])
        return
    if type(old) is list and type(new) is list:
        n_old, n_new = len(old), len(new)
        if n_old != n_new and n_old and n_new and (_same(old[-1], new[-1]) or (
                n_old + n_new <= 2 * MAX_REALIGNED and not (type(new[0]) is dict and KEY in new[0]))):
            plain: list[list[Any]] = []
            _diff_list(old, new, path, plain)
            ops.extend(_realigned(old, new, path, plain))
            return
        _diff_list(old, new, path, ops)
        return
    ops.append([SET, path, new])


def _diff_list(old: list[Any], new: list[Any], path: list[Any], ops: list[list[Any]]) -> None:
    """The operations turning list ``old`` into list ``new`` (which differ) element by element
    over their common length, then an append or a truncate; or a window, or ``new`` whole, when
    most elements changed and that encodes shorter."""
    n_old, n_new = len(old), len(new)
    common = min(n_old, n_new)
    head_old = old if n_old == common else old[:common]
    head_new = new if n_new == common else new[:common]
    changed = [] if head_old == head_new else [
        i for i in range(_first_difference(old, new, common), common)
        if not (old[i] is new[i] or (type(old[i]) is type(new[i]) and old[i] == new[i]))]
    if len(changed) > MAX_PATCHED_ELEMENTS and 2 * len(changed) > common:
        moved = _window(old, new, path)
        if moved is not None:
            ops.extend(moved)
            return
        patch: list[list[Any]] = []
        for i in changed:
            _diff(old[i], new[i], [*path, i], patch)
        if not _encodes_longer(new, len(orjson.dumps(patch))):
            ops.append([SET, path, new])
            return
        ops.extend(patch)
    else:
        for i in changed:
            _diff(old[i], new[i], [*path, i], ops)
    if n_new > n_old:
        ops.append([APPEND, path, new[n_old:]])
    elif n_new < n_old:
        ops.append([TRUNCATE, path, n_new])
    return


def _first_difference(old: list[Any], new: list[Any], common: int) -> int:
    """An index <= the first at which ``old`` and ``new`` (whose first ``common`` elements
    differ somewhere) differ: the longest equal prefix found by halving (list ``==`` runs in C
    and passes shared elements by identity; a new round changes a road's cells at its end)."""
    lo, hi = 0, common  # old[:lo] == new[:lo]; old[:hi] != new[:hi]
    if common < 16:
        return 0
    while hi - lo > 8:
        mid = (lo + hi) // 2
        if old[:mid] == new[:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def _encodes_longer(items: list[Any], limit: int) -> bool:
    """Whether ``orjson.dumps(items)`` is longer than ``limit`` bytes, encoding the elements
    one by one only until it is known (a road's cells or a model's roads are long; the
    operations they are weighed against are short). ``[a,b]`` is 1 + each element + 1."""
    if not items:
        return 2 > limit
    total = 1
    dumps = orjson.dumps
    for item in items:
        total += len(dumps(item)) + 1
        if total > limit:
            return True
    return False


def _same(a: Any, b: Any) -> bool:
    return a is b or (type(a) is type(b) and a == b)


def _realigned(old: list[Any], new: list[Any], path: list[Any], plain: list[list[Any]]) -> list[list[Any]]:
    """The shortest-encoding operations turning ``old`` into ``new`` (lists of different
    lengths) of: ``plain`` (from :func:`_diff_list`), a splice of the middle between their
    common head and tail, and a splice that only inserts or removes the ``|len(new) - len(old)|``
    elements at some index i of that middle, the elements either side of it then patched in
    place (a panel that gained a badge at its index 1 while its other items changed text: the
    badge sent, the others merged; the splice comes first, the patches' indices are ``new``'s).

    Either side of a gap at i the elements pair up alike (before i: same index; after it:
    shifted by the difference), so the patches of the two pairings are computed once per
    element and every i costs a sum. The gap is sought only in a middle of at most
    :data:`MAX_REALIGNED` elements."""
    n_old, n_new = len(old), len(new)
    most = min(n_old, n_new)
    head = 0
    while head < most and _same(old[head], new[head]):
        head += 1
    tail = 0
    while tail < most - head and _same(old[n_old - 1 - tail], new[n_new - 1 - tail]):
        tail += 1
    best, best_size = plain, _size(plain)
    middle = [[SPLICE, path, head, n_old - head - tail, new[head:n_new - tail]]]
    size = _size(middle)
    if size < best_size:
        best, best_size = middle, size
    end = most - tail  # gaps at head..end; the elements in head..end-1 of the shorter list pair up
    if end == head or end - head > MAX_REALIGNED:  # end == head: the middle splice only inserts or removes
        return best
    shift = n_new - n_old
    grow = shift > 0
    before: list[tuple[list[list[Any]], int]] = []  # element j paired with the same index
    after: list[tuple[list[list[Any]], int]] = []  # element j (of the shorter list) paired across the gap
    for j in range(head, end):
        for pairing, (a, b, at) in ((before, (old[j], new[j], j)),
                                    (after, (old[j], new[j + shift], j + shift) if grow else (old[j - shift], new[j], j))):
            patch: list[list[Any]] = []
            if not _same(a, b):
                _diff(a, b, [*path, at], patch)
            pairing.append((patch, len(orjson.dumps(patch)) - 1 if patch else 0))  # its ops, a comma each
    for i in range(head, end + 1):
        gap = [SPLICE, path, i, 0, new[i:i + shift]] if grow else [SPLICE, path, i, -shift, []]
        k = i - head
        size = 1 + len(orjson.dumps(gap)) + 1 + sum(c for _, c in before[:k]) + sum(c for _, c in after[k:])
        if size < best_size:
            best, best_size = [gap, *(op for patch, _ in before[:k] for op in patch),
                               *(op for patch, _ in after[k:] for op in patch)], size
    return best


def _size(ops: list[list[Any]]) -> int:
    """Bytes of ``ops`` encoded (orjson) as a list: ``[a,b]`` is 1 + (each + 1)."""
    return len(orjson.dumps(ops))


def _window(old: list[Any], new: list[Any], path: list[Any]) -> list[list[Any]] | None:
    """A window operation and what differs after it, when ``new`` is ``old`` scrolled: its
    first element's :data:`KEY` is found at index n of ``old`` and the integer fields that
    differ between those two are offset alike in every element of ``old[n:]``; else ``None``.
    Taken only when shorter than sending ``new`` whole."""
    first = new[0] if new else None
    if type(first) is not dict or KEY not in first:
        return None
    key = first[KEY]
    n = next((i for i, cell in enumerate(old) if type(cell) is dict and cell.get(KEY) == key), None)
    if n is None:
        return None
    then = old[n]
    offsets = {f: v - then[f] for f, v in first.items()
               if type(v) is int and type(then.get(f)) is int and v != then[f]}
    if not n and not offsets:
        return None
    moved = []
    shifts = list(offsets.items())
    for i in range(n, len(old)):
        cell = old[i]
        if type(cell) is not dict:
            return None
        if shifts:
            cell = cell.copy()
            for f, d in shifts:
                v = cell.get(f)
                if type(v) is not int:
                    return None
                cell[f] = v + d
        moved.append(cell)
    rest: list[list[Any]] = []
    n_moved = len(moved)
    common = min(n_moved, len(new))
    for i in range(common):
        a, b = moved[i], new[i]
        if not (type(a) is type(b) and a == b):
            _diff(a, b, [*path, i], rest)
    if len(new) > n_moved:
        rest.append([APPEND, path, new[n_moved:]])
    elif len(new) < n_moved:
        rest.append([TRUNCATE, path, len(new)])
    ops = [[WINDOW, path, n, offsets], *rest]
    if not _encodes_longer(new, len(orjson.dumps(ops))):
        return None
    return ops


def apply(doc: Any, ops: list[list[Any]]) -> Any:
    """Apply ``ops`` (from :func:`diff`) to ``doc`` **in place** and return the result (a
    different object only when an operation replaces the root). Raises ``ValueError`` for an
    operation that does not fit the document (unknown op, missing key, bad index)."""
    for op in flatten(ops):
        kind, path = op[0], op[1]
        if kind == SET and not path:
            doc = op[2]
            continue
        try:
            parent = doc
            for step in path[:-1] if kind in (SET, DELETE) else path:
                parent = parent[step]
            if kind == MERGE:
                if type(parent) is not dict or type(op[2]) is not dict:
                    raise TypeError("merge into a non-object")
                parent.update(op[2])
            elif kind == SET:
                key = path[-1]
                if type(parent) is list and not 0 <= key < len(parent):
                    raise IndexError(key)
                parent[key] = op[2]
            elif kind == APPEND:
                if type(parent) is not list:
                    raise TypeError("append to a non-list")
                parent.extend(op[2])
            elif kind == TRUNCATE:
                if type(parent) is not list or not 0 <= op[2] <= len(parent):
                    raise TypeError("bad truncate")
                del parent[op[2]:]
            elif kind == DELETE:
                del parent[path[-1]]
            elif kind == SPLICE:
                i, n, items = op[2], op[3], op[4]
                if (type(parent) is not list or type(i) is not int or type(n) is not int or type(items) is not list
                        or not 0 <= i <= len(parent) or not 0 <= n <= len(parent) - i):
                    raise TypeError("bad splice")
                parent[i:i + n] = items
            elif kind == WINDOW:
                n, offsets = op[2], op[3]
                if type(parent) is not list or type(n) is not int or not 0 <= n <= len(parent) or type(offsets) is not dict:
                    raise TypeError("bad window")
                del parent[:n]
                for i, cell in enumerate(parent):
                    if offsets:
                        if type(cell) is not dict or any(type(cell.get(f)) is not int or type(d) is not int
                                                         for f, d in offsets.items()):
                            raise TypeError("window over an element without those integer fields")
                        parent[i] = {**cell, **{f: cell[f] + d for f, d in offsets.items()}}
            else:
                raise ValueError(f"unknown delta operation {kind!r}")
        except (KeyError, IndexError, TypeError) as exc:
            raise ValueError(f"delta operation {op[:2]!r} does not fit the document: {exc}") from None
    return doc


def flatten(ops: list[list[Any]], prefix: list[Any] | None = None) -> Any:
    """Yield ``ops`` with scopes expanded: each operation with its whole path from the root
    (``prefix`` + its own). Raises ``ValueError`` for a malformed operation."""
    prefix = prefix or []
    if type(ops) is not list:
        raise ValueError("delta operations must be a list")
    for op in ops:
        if type(op) is not list or len(op) < 2 or type(op[1]) is not list:
            raise ValueError(f"malformed delta operation {op!r:.60}")
        if op[0] == SCOPE:
            if len(op) != 3:
                raise ValueError("a scope holds a path and a list of operations")
            yield from flatten(op[2], [*prefix, *op[1]])
        elif prefix:
            yield [op[0], [*prefix, *op[1]], *op[2:]]
        else:
            yield op

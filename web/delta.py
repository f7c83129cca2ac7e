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

Operations apply in order; every path names something that exists when its operation runs.
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

SET, MERGE, APPEND, TRUNCATE, DELETE = "s", "m", "a", "t", "d"

MAX_PATCHED_ELEMENTS = 4
"""A list whose overlapping elements differ in more than this many places (and in more than
half of them) is sent whole instead of element by element (e.g. a window that scrolled),
unless its element-by-element operations encode shorter than the whole list (the panels of a
board model: most change a little each round)."""


def diff(old: Any, new: Any) -> list[list[Any]]:
    """The operations that turn ``old`` into ``new`` (both JSON-able: dict, list, str, int,
    float, bool, None). ``[]`` when they are equal. Neither argument is changed; the values in
    the operations are shared with ``new`` (encode them, do not mutate them)."""
    ops: list[list[Any]] = []
    if old is not new and not (type(old) is type(new) and old == new):
        _diff(old, new, [], ops)
    return ops


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
        common = min(n_old, n_new)
        head_old = old if n_old == common else old[:common]
        head_new = new if n_new == common else new[:common]
        changed = [] if head_old == head_new else [
            i for i in range(common)
            if not (old[i] is new[i] or (type(old[i]) is type(new[i]) and old[i] == new[i]))]
        if len(changed) > MAX_PATCHED_ELEMENTS and 2 * len(changed) > common:
            patch: list[list[Any]] = []
            for i in changed:
                _diff(old[i], new[i], [*path, i], patch)
            if len(orjson.dumps(patch)) >= len(orjson.dumps(new)):
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
    ops.append([SET, path, new])


def apply(doc: Any, ops: list[list[Any]]) -> Any:
    """Apply ``ops`` (from :func:`diff`) to ``doc`` **in place** and return the result (a
    different object only when an operation replaces the root). Raises ``ValueError`` for an
    operation that does not fit the document (unknown op, missing key, bad index)."""
    for op in ops:
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
            else:
                raise ValueError(f"unknown delta operation {kind!r}")
        except (KeyError, IndexError, TypeError) as exc:
            raise ValueError(f"delta operation {op[:2]!r} does not fit the document: {exc}") from None
    return doc

"""Shoe types: the ``roads.shoes`` entry-point group, so a casino adds its own shoe protocol by
installing a package (docs/shoes.md "Adding a shoe type").

An entry point names a :class:`ShoeType` object::

    [project.entry-points."roads.shoes"]
    my-shoe = "my_package.my_shoe:SHOE_TYPE"

``roads shoe --help`` lists every installed type; ``roads shoe <name>`` runs its command.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Callable

GROUP = "roads.shoes"
"""The entry-point group of shoe types."""


@dataclass(frozen=True, slots=True)
class ShoeType:
    """A shoe protocol: ``name`` (the command), ``summary`` (one line for ``--help``) and
    ``command`` (makes its ``click.Command``; called only when the command is run or helped)."""

    name: str
    summary: str
    command: Callable[[], Any]


def installed() -> dict[str, EntryPoint]:
    """The installed shoe types by name (entry points of :data:`GROUP`, not loaded)."""
    return {ep.name: ep for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name)}


def load(name: str) -> ShoeType:
    """The shoe type ``name``. Raises ``KeyError`` when none is installed under that name and
    ``TypeError`` when its entry point names something else than a :class:`ShoeType`."""
    value = installed()[name].load()
    if not isinstance(value, ShoeType):
        raise TypeError(f"entry point {name!r} of {GROUP!r} is {value!r}, not a shoes.plugins.ShoeType")
    return value

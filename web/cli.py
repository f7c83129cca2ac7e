"""The ``roads`` command line (click, as Flask ships it)."""

from __future__ import annotations

import click


@click.group()
def main() -> None:
    """Baccarat road-map and scoreboard service."""

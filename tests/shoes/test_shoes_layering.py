"""The adapters' package stands apart from the service: ``shoes/`` imports the standard library,
``roads``, itself, click and pyserial only (never Flask, never ``web``), pyserial is declared in
the ``shoe`` extra (and the ``test`` extra that CI installs), and every shoe type in
pyproject.toml's entry-point group loads."""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

import pytest

from shoes import plugins

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
ALLOWED = {"roads", "shoes", "click", "serial", "__future__"}


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("path", sorted((ROOT / "shoes").glob("*.py")), ids=lambda p: p.name)
def test_shoes_imports_neither_flask_nor_the_service(path):
    outside = {m for m in _imports(path) if m not in sys.stdlib_module_names and m not in ALLOWED}
    assert outside == set()


def test_pyserial_is_declared_where_it_is_imported():
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert any(r.startswith("pyserial") for r in extras["shoe"])
    assert any(r.startswith("pyserial") for r in extras["test"])
    users = {p.name for p in (ROOT / "shoes").glob("*.py") if "serial" in _imports(p)}
    assert users == {"serial_port.py"}   # imported only when a serial port is read


def test_every_declared_shoe_type_is_installed_and_loads():
    declared = PYPROJECT["project"]["entry-points"][plugins.GROUP]
    assert set(plugins.installed()) >= set(declared)
    for name in declared:
        shoe_type = plugins.load(name)
        assert shoe_type.name == name and shoe_type.command().name == name


def test_roads_shoe_help_lists_every_installed_shoe_type_and_the_built_in_commands():
    from click.testing import CliRunner

    from web.cli import main

    result = CliRunner().invoke(main, ["shoe", "--help"], prog_name="roads")
    assert result.exit_code == 0, result.output
    listed = [line.split()[0] for line in result.output.split("Commands:")[1].splitlines() if line.strip()]
    assert listed == sorted(set(plugins.installed()) | {"record", "status"})

"""The domain core stays pure: importing every module of ``roads`` pulls in no web or imaging code."""

import subprocess
import sys


def test_importing_roads_pulls_in_no_flask_pil_jinja_redis_or_web():
    code = (
        "import pkgutil, importlib, sys, roads\n"
        "for m in pkgutil.walk_packages(roads.__path__, 'roads.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in {'flask', 'PIL', 'jinja2', 'redis', 'web', 'werkzeug', 'pydantic'})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_only_the_table_reads_its_private_members():
    """The record's rules live in modules of their own (roads.dealing, roads.table_state) that
    read the record's types and return what the table applies: no module but roads/table.py
    reaches for a private member of a Table (``table._place``, ``table._event`` ...)."""
    import ast
    from pathlib import Path

    from roads.table import Table

    private = {name for name in vars(Table) if name.startswith("_") and not name.startswith("__")}
    root = Path(__file__).resolve().parents[2]
    found = []
    for folder in ("roads", "web"):
        for path in sorted((root / folder).rglob("*.py")):
            if path == root / "roads" / "table.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Attribute) and node.attr in private
                        and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
                    found.append(f"{path.relative_to(root)}:{node.lineno} .{node.attr}")
    assert private >= {"_place", "_event", "_open_shoe"} and found == []

"""The shape of the code base: the import graph has no circle, ``roads/`` imports only the
standard library and itself, ``web/render`` draws what it is given without Flask or the
settings, no module of ``web/`` outgrows one idea, and every package says what lives in it.

The graph is read from the source (every ``import`` statement, at module level or inside a
function: a lazy import that closes a circle is still a circle), so no module is imported
(the one run-time check imports ``web.render`` in a child process).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("roads", "web")
MAX_WEB_MODULE_LINES = 520
"""~500 lines: past that a module of the service holds more than one idea (docs/frontend.md,
README "What is in the box")."""


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _runtime_nodes(tree: ast.AST):
    """Every node of ``tree`` except those under ``if TYPE_CHECKING:`` (annotations only: no
    import happens when the program runs)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                todo.extend(child.orelse)
                continue
            todo.append(child)


def _imports(name: str, path: Path) -> set[str]:
    """Every module ``name`` imports (absolute names; ``from a import b`` counts ``a.b`` when
    ``a.b`` is a module of ours, else ``a``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                found.add(sub if sub in MODULES else module)
    return found


def _project_edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        targets = set()
        for imported in _imports(name, path):
            # importing a.b.c imports the packages a and a.b too
            parts = imported.split(".")
            for i in range(1, len(parts) + 1):
                candidate = ".".join(parts[:i])
                if candidate in MODULES and candidate != name and not name.startswith(candidate + "."):
                    targets.add(candidate)
        edges[name] = targets
    return edges


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import circle as a list of module names (first == last), or ``None``."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = dict.fromkeys(edges, WHITE)
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        colour[node] = GREY
        stack.append(node)
        for nxt in sorted(edges[node]):
            if colour[nxt] == GREY:
                return stack[stack.index(nxt):] + [nxt]
            if colour[nxt] == WHITE:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        colour[node] = BLACK
        return None

    for node in sorted(edges):
        if colour[node] == WHITE:
            found = visit(node)
            if found:
                return found
    return None


def test_the_cycle_finder_finds_a_circle_and_accepts_a_tree():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_import_graph_has_no_circle():
    assert _cycle(_project_edges()) is None


def test_roads_imports_only_the_standard_library_and_itself():
    outside = {}
    for name, path in MODULES.items():
        if name.split(".")[0] != "roads":
            continue
        bad = {m for m in _imports(name, path)
               if m.split(".")[0] not in sys.stdlib_module_names and m.split(".")[0] not in ("roads", "__future__")}
        if bad:
            outside[name] = sorted(bad)
    assert outside == {}


def test_render_imports_neither_flask_nor_the_settings():
    """``web/render`` is given its options (:class:`web.render.pieces.BoardOptions`, the board
    model; the font folder by :func:`web.render.fonts.set_font_dir`), so a renderer runs without
    an app: no module of it imports Flask, nor ``web.settings`` (which imports Flask)."""
    found = {}
    for name, path in MODULES.items():
        if not name.startswith("web.render"):
            continue
        bad = {m for m in _imports(name, path)
               if m.split(".")[0] == "flask" or m == "web.settings" or m.startswith("web.settings.")}
        if bad:
            found[name] = sorted(bad)
    assert found == {}


def test_importing_the_renderers_imports_no_flask():
    """At run time too: the ``web`` package does not import its Flask app until asked for it."""
    code = ("import sys, web.render.board, web.render.model, web.render.tiles; "
            "print(sorted(m for m in ('flask', 'web.settings', 'web.app') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert (out.returncode, out.stdout.strip()) == (0, "[]"), out.stderr


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("web")))
def test_no_web_module_outgrows_one_idea(name):
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_WEB_MODULE_LINES, f"{MODULES[name].relative_to(ROOT)} has {lines} lines"


@pytest.mark.parametrize("name", sorted(n for n, p in MODULES.items() if p.name == "__init__.py"))
def test_every_package_says_what_lives_in_it(name):
    doc = ast.get_docstring(ast.parse(MODULES[name].read_text(encoding="utf-8")))
    assert doc and len(doc.split()) >= 8, f"{name}/__init__.py needs a docstring saying what lives there"

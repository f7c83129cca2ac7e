"""The shape of the code base: the import graph has no circle, imports only go down the layers
(:data:`LAYERS`: domain, leaves, drawing, settings, stores, push wing, service core, HTTP,
entry points), ``roads/`` imports only the standard library and itself, the Flask-free parts
(:data:`FLASK_FREE`: the renderers, the push wing, the stores' backends, the service core)
import no Flask nor the settings, the stores' backends import only their interface, and every
module and package says in its docstring the one idea it holds.

The graph is read from the source (every ``import`` statement, at module level or inside a
function: a lazy import that closes a circle is still a circle), so no module is imported
(the run-time checks import ``web.render`` and ``web.push`` in a child process).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("roads", "web")

LAYERS: tuple[tuple[str, ...], ...] = (
    ("roads",),                                                        # the domain: standard library only
    ("web.paths", "web.i18n", "web.release", "web.gc_tuning", "web.heap_trim", "web.display_text"),  # leaves
    ("web.render",),                                                   # drawing: model -> pixels
    ("web.settings", "web.setting_entries", "web.extensions"),         # the settings and the app's extension keys
    ("web.stores",),                                                   # durable events
    ("web.push",),                                                     # the push wing
    ("web.tables", "web.snapshots", "web.read_model", "web.service", "web.day_stats", "web.day_cache", "web.round_export", "web.integrity"),  # the service core
    ("web.http",),                                                     # routes
    ("web.app", "web.cli", "web"),                                     # entry points
)
"""Every module of ours, by package or module prefix, lowest layer first: a module imports only
modules of its own layer or of lower ones (the README's "What is in the box")."""

FLASK_FREE = ("web.render", "web.push", "web.stores.base", "web.stores.sqlite", "web.stores.sqlite_schema",
              "web.stores.sqlite_history", "web.stores.codec", "web.stores.redis", "web.tables", "web.snapshots",
              "web.read_model", "web.day_stats", "web.day_cache", "web.round_export", "web.integrity", "web.paths", "web.i18n", "web.release", "web.heap_trim", "web.display_text", "web.setting_entries")
"""Modules (and packages) that run without an app: they import neither Flask nor the settings."""

STORE_BACKENDS: dict[str, tuple[str, ...]] = {
    "web.stores.base": (),
    "web.stores.codec": (),
    "web.stores.sqlite": ("web.stores.sqlite_schema", "web.stores.sqlite_history"),
    "web.stores.redis": (),
    "web.stores.postgres": (),
    "web.stores.redis_history": ("web.stores.redis_scripts", "web.stores.redis_mover"),
}
"""The stores' interface, the blob encoding the history stores share, and the backends, each with
the modules only it is made of (the SQLite store's schema and history operations; the Redis +
PostgreSQL store's scripts and mover)."""

STORE_BUILT_ON: dict[str, tuple[str, ...]] = {
    "web.stores.redis_history": ("web.stores.redis", "web.stores.postgres"),
}
"""Backends made of other backends: Redis as the live stream over a PostgreSQL history."""


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


def _runtime_nodes(tree: ast.AST, typing_too: bool = False):
    """Every node of ``tree`` except those under ``if TYPE_CHECKING:`` (annotations only: no
    import happens when the program runs); with ``typing_too``, those as well."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not typing_too and isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                todo.extend(child.orelse)
                continue
            todo.append(child)


def _imports(name: str, path: Path, typing_too: bool = False) -> set[str]:
    """Every module ``name`` imports (absolute names; ``from a import b`` counts ``a.b`` when
    ``a.b`` is a module of ours, else ``a``); with ``typing_too``, also under ``TYPE_CHECKING``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in _runtime_nodes(tree, typing_too):
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


def _project_edges(typing_too: bool = False) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        targets = set()
        for imported in _imports(name, path, typing_too):
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


def test_the_import_graph_has_no_circle_through_type_checking_imports_either():
    """An import only for annotations that closes a circle still ties the two modules into one
    idea (``roads/table.py`` and the card-by-card rules were such a pair)."""
    assert _cycle(_project_edges(typing_too=True)) is None


def test_type_checking_imports_count_only_when_asked(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("from typing import TYPE_CHECKING\nimport json\nif TYPE_CHECKING:\n    import roads.table\n")
    assert _imports("m", path) == {"typing", "json"}
    assert _imports("m", path, typing_too=True) == {"typing", "json", "roads.table"}


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


def layer(name: str) -> int:
    """The index in :data:`LAYERS` of module ``name`` (the longest prefix that names it)."""
    best, found = -1, None
    for i, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
                best, found = len(prefix), i
    assert found is not None, f"{name} is in no layer of LAYERS"
    return found


def test_every_module_is_in_a_layer():
    assert {name: layer(name) for name in MODULES} and all(layer(n) >= 0 for n in MODULES)


def test_the_layer_check_refuses_an_import_going_up():
    assert layer("web.push.hub") < layer("web.http.ws") and layer("web.render.model") < layer("web.push.documents")
    assert _upward({"web.push.hub": {"web.http.ws"}, "web.http.ws": {"web.push.hub"}}) == ["web.push.hub -> web.http.ws"]


def _upward(edges: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} -> {b}" for a, targets in edges.items() for b in targets if layer(b) > layer(a))


def test_imports_only_go_down_the_layers():
    """No exceptions: the push wing imports nothing from web.http nor the service core, the
    stores nothing from the service, the renderers nothing above them."""
    assert _upward(_project_edges()) == []


def _third_party(name: str) -> set[str]:
    return {m.split(".")[0] for m in _imports(name, MODULES[name])}


def test_the_flask_free_parts_import_neither_flask_nor_the_settings():
    """The renderers are given their options (:class:`web.render.pieces.BoardOptions`; the font
    folder by :func:`web.render.fonts.set_font_dir`), the push wing and the service core their
    collaborators and plain values (the app factory wires them), the stores' backends their
    settings' values: none imports Flask (nor ``web.settings``, which imports Flask)."""
    found = {}
    for name, path in MODULES.items():
        if not any(name == p or name.startswith(p + ".") for p in FLASK_FREE):
            continue
        bad = {m for m in _imports(name, path)
               if m.split(".")[0] in ("flask", "werkzeug", "flask_sock") or m == "web.settings"
               or m.startswith("web.settings.") or m == "web.extensions"}
        if bad:
            found[name] = sorted(bad)
    assert found == {}


def test_the_push_wing_imports_nothing_from_web_http():
    found = {name: sorted(m for m in _imports(name, path) if m == "web.http" or m.startswith("web.http."))
             for name, path in MODULES.items() if name.startswith("web.push")}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_stores_backends_import_only_their_interface():
    """``web/stores/__init__.py`` picks a backend from the settings; the backends (with their own
    parts, :data:`STORE_BACKENDS`) import only ``web.stores.base`` of the service (and the
    domain), as encode/broadcaster's backends import only its base."""
    assert {n for n in MODULES if n.startswith("web.stores.")} == {
        m for backend, parts in STORE_BACKENDS.items() for m in (backend, *parts)}
    found = {}
    for backend, parts in STORE_BACKENDS.items():
        allowed = {"web.stores.base", "web.stores.codec", backend, *parts, *STORE_BUILT_ON.get(backend, ())}
        for name in (backend, *parts):
            ours = {m for m in _imports(name, MODULES[name]) if m.split(".")[0] == "web"}
            if ours - allowed:
                found[name] = sorted(ours - allowed)
    assert found == {}


def test_importing_the_renderers_and_the_push_wing_imports_no_flask():
    """At run time too: the ``web`` package does not import its Flask app until asked for it."""
    code = ("import sys, web.render.board, web.render.model, web.render.tiles, web.push.wing, web.push.documents, "
            "web.read_model; print(sorted(m for m in ('flask', 'web.settings', 'web.app', 'web.http') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert (out.returncode, out.stdout.strip()) == (0, "[]"), out.stderr


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_module_says_the_one_idea_it_holds(name):
    """A module holds one idea, and its docstring's first paragraph says which (what the old
    line cap stood for: a module that needs two paragraphs to say what it is holds two)."""
    doc = ast.get_docstring(ast.parse(MODULES[name].read_text(encoding="utf-8")))
    first = (doc or "").split("\n\n")[0]
    assert len(first.split()) >= 6, f"{MODULES[name].relative_to(ROOT)} needs a docstring saying what it is"
    assert first.rstrip().endswith((".", ":", ")")), f"{name}: its first paragraph is one statement, ended"


@pytest.mark.parametrize("name", sorted(n for n, p in MODULES.items() if p.name == "__init__.py"))
def test_every_package_says_what_lives_in_it(name):
    doc = ast.get_docstring(ast.parse(MODULES[name].read_text(encoding="utf-8")))
    assert doc and len(doc.split()) >= 8, f"{name}/__init__.py needs a docstring saying what lives there"

"""pyproject.toml declares what the code imports: every third-party module ``web/`` imports is
a declared dependency and every dependency is imported, the Redis client and psycopg only extras (imported by the
Redis and PostgreSQL stores alone), and the Redis store asked for without it says which extra to install."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
OWN = {"roads", "web", "shoes"}


def requirement_names(requirements):
    """Normalised distribution names of PEP 508 ``requirements`` (``"flask>=3.0"`` -> ``"flask"``)."""
    return {re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0].lower().replace("_", "-") for r in requirements}


def imports_by_file(folder):
    """``{path: {top-level module}}`` of the third-party modules each ``.py`` file imports."""
    out = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
        out[path.relative_to(ROOT).as_posix()] = {n for n in names - OWN if n not in sys.stdlib_module_names}
    return out


def distributions(module):
    """The installed distributions that provide top-level ``module`` (normalised names)."""
    return {d.lower().replace("_", "-") for d in importlib.metadata.packages_distributions().get(module, ())}


def test_every_module_the_service_imports_is_a_declared_dependency():
    core = requirement_names(PYPROJECT["project"]["dependencies"])
    extras = PYPROJECT["project"]["optional-dependencies"]
    redis_extra, postgres_extra = requirement_names(extras["redis"]), requirement_names(extras["postgres"])
    only_in = {"web/stores/redis.py": redis_extra, "web/stores/redis_history.py": redis_extra | postgres_extra,
               "web/stores/postgres.py": postgres_extra | {"psycopg-pool"}}
    for path, modules in imports_by_file("web").items():
        allowed = core | only_in.get(path, set())
        for module in modules:
            assert distributions(module) & allowed, f"{path} imports {module!r}, not declared for it in pyproject.toml"


def test_every_declared_dependency_is_imported_by_the_service():
    """The other way round: no core dependency the service does not import (fontTools, for one,
    is read by web/render/fonts.py for the fonts' character maps)."""
    imported = set().union(*imports_by_file("web").values())
    provided = set().union(*(distributions(module) for module in imported))
    assert requirement_names(PYPROJECT["project"]["dependencies"]) - provided == set()


def test_optional_packages_stay_optional():
    core = requirement_names(PYPROJECT["project"]["dependencies"])
    assert not core & {"redis", "gunicorn", "requests", "tqdm"}
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert "redis" in requirement_names(extras["redis"]) and "gunicorn" in requirement_names(extras["gunicorn"])
    assert {"redis", "requests"} <= requirement_names(extras["test"])  # what the tests import


def test_the_redis_store_without_the_redis_package_names_the_extra(tmp_path, monkeypatch):
    from web.stores import StoreError, open_store

    monkeypatch.setitem(sys.modules, "redis", None)  # `import redis` fails as on a plain install
    monkeypatch.delitem(sys.modules, "web.stores.redis", raising=False)
    with pytest.raises(StoreError, match=re.escape("install the redis extra: pip install 'baccarat-roads[redis]'")):
        open_store({"ROADS_DATA_DIR": str(tmp_path), "ROADS_REDIS_URL": "redis://127.0.0.1:6379/0"})

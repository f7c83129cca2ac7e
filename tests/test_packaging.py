"""The wheel carries every file the service reads at run time (static files, templates, catalogues)."""

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _package_dir(package: str, mapping: dict[str, str]) -> Path:
    for prefix, folder in mapping.items():
        if package == prefix or package.startswith(prefix + "."):
            rest = package[len(prefix):].lstrip(".")
            return ROOT / folder / Path(*rest.split(".")) if rest else ROOT / folder
    return ROOT / Path(*package.split("."))


def test_every_data_file_is_in_a_listed_package_and_matched_by_package_data():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    packages, mapping, data = conf["packages"], conf.get("package-dir", {}), conf["package-data"]
    covered: set[Path] = set()
    for package in packages:
        folder = _package_dir(package, mapping)
        assert folder.is_dir(), f"package {package!r} has no folder {folder}"
        for pattern in data.get(package, []):
            covered |= {p for p in folder.iterdir() if p.is_file() and fnmatch.fnmatch(p.name, pattern)}
    needed = [p for d in ("static", "web/templates", "web/i18n", "roads/schema") for p in (ROOT / d).rglob("*")
              if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".py"]
    missing = sorted(str(p.relative_to(ROOT)) for p in needed if p not in covered)
    assert needed and missing == []

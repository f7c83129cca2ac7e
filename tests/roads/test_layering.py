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

"""``python -m web.cli``: the ``roads`` command."""

from web.cli import main

main()

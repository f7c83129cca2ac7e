"""Drawing boards: one board model (``model``; lobby ``tiles``; ``status_panel``, ``bets``, ``pieces``, ``panels``,
``cells``, ``prims``, ``countdown``, ``layout``) painted by Pillow (``paint_png``; ``board`` in one call) with one
palette (``theme``) and bundled ``fonts``, and notice images (``notice``); no Flask."""

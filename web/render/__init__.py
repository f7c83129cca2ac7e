"""Drawing boards: one board model (``model``, ``screen``, ``pieces``, ``panels``, ``cells``, ``prims``, ``layout``)
painted by Pillow (``paint_png``; ``board`` in one call) with one palette (``theme``) and bundled ``fonts``; no Flask."""

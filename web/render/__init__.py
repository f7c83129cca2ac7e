"""Drawing boards: the palette (``theme``), the geometry (``layout``), bundled fonts (``fonts``)
and the Pillow painter (``board``). No Flask here: pure functions from snapshot to image."""

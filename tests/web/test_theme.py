"""One palette: the CSS custom properties served to the pages are the colours the PNG painter uses."""

from __future__ import annotations

import re

from web.render.theme import COLOUR_NAMES, THEMES


def test_served_css_custom_properties_are_the_pillow_palette(client):
    css = client.get("/theme.css").get_data(as_text=True)
    for theme, colours in THEMES.items():
        rule = re.search(r"\.theme-%s \{([^}]*)\}" % theme, css).group(1)
        served = {k: (int(v[0:2], 16), int(v[2:4], 16), int(v[4:6], 16))
                  for k, v in re.findall(r"--([a-z-]+): #([0-9a-f]{6});", rule)}
        assert {k.replace("-", "_"): v for k, v in served.items()} == {k: colours[k] for k in COLOUR_NAMES}


def test_the_page_stylesheet_declares_no_palette_colour_of_its_own(client):
    css = client.get("/static/css/roads.css").get_data(as_text=True)
    for name in ("banker", "player", "tie", "background", "panel", "repeat", "break"):
        assert not re.search(r"--%s\s*:" % name, css), name

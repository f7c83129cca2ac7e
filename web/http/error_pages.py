"""Error pages for browsers: the one error of :mod:`web.http.errors` as a themed, translated page.

A browser asking for HTML outside ``/api/`` (:func:`web.http.errors.error_response` decides)
gets this page instead of the JSON body, with the same status: a title for the status, a
sentence for the error ``code`` where there is one (unknown table, unknown shoe, bad query
option, unknown address), the service's own message as technical details (English), a link
back to the lobby (and to the table, or its shoe list, when the table exists), and the
language and theme links. JSON clients and ``/api/`` keep the JSON error shape.

The page follows the ``lang`` query option or Accept-Language (:func:`web.i18n.pick_language`)
and the ``theme`` option (``dark`` | ``light``; a value that is neither, the very error of a
``?theme=x`` request, gives the default: light for ``/embed/``, dark elsewhere). No inline
script or style: the page loads only stylesheets.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from flask import render_template, request, url_for
from werkzeug.routing import BuildError

from web import i18n

THEMES: tuple[str, ...] = ("dark", "light")
"""Themes an error page can take (the pages' ``?theme=`` values)."""

TITLED_STATUSES: frozenset[int] = frozenset({400, 404, 405, 413})
"""Statuses with a title of their own (``error.title_<status>``); others get ``error.title_other``."""


def page_theme() -> str:
    """The theme of the error page: a valid ``?theme=``, else the page's default."""
    chosen = request.args.get("theme")
    if chosen in THEMES:
        return chosen
    return "light" if request.path.startswith("/embed/") else "dark"


def _url(endpoint: str, fallback: str, **values: Any) -> str:
    try:
        return url_for(endpoint, **values)
    except BuildError:  # an app without that blueprint
        return fallback


def _here(err: Any, **changes: str) -> str:
    """This address with query options changed (for the language and theme links), without
    the option a 400 is about (so the links lead to pages that work)."""
    args = {**request.args.to_dict(), **changes}
    if err.code == "bad_parameter" and err.field not in changes:
        args.pop(err.field, None)
    return request.path + ("?" + urlencode(args) if args else "")


def explanation(err: Any, lang: str) -> str | None:
    """The translated sentence for ``err.code`` (``None`` when the code has none)."""
    view_args = request.view_args or {}
    table = view_args.get("table_id", "")
    if err.code == "unknown_table":
        return i18n.translate("error.unknown_table", lang, table=table)
    if err.code == "unknown_shoe":
        return i18n.translate("error.unknown_shoe", lang, table=table, shoe=view_args.get("shoe", ""))
    if err.code == "bad_parameter" and err.field:
        return i18n.translate("error.bad_parameter", lang, field=err.field, value=request.args.get(err.field, ""))
    if err.status == 404:
        return i18n.translate("error.not_found", lang)
    return None


def _table_links(err: Any, keep: dict[str, str], lang: str) -> list[tuple[str, str, str]]:
    """``(href, words, data-link)`` back to the table of the address, when it exists."""
    table_id = (request.view_args or {}).get("table_id")
    if not table_id or err.code == "unknown_table":
        return []
    try:
        from web.service import get_service

        info = get_service().read.table(table_id)
    except Exception:  # noqa: BLE001 - an unknown table (or no service): no link, never a second error
        return []
    links = [(_url("pages.table", f"/tables/{table_id}", table_id=table_id, **keep),
              i18n.translate("error.back_to_table", lang, table=info["name"]), "table")]
    if err.code == "unknown_shoe":
        links.append((_url("shoes_pages.shoes", f"/tables/{table_id}/shoes", table_id=table_id, **keep),
                      i18n.translate("ui.past_shoes", lang), "shoes"))
    return links


def render_error_page(err: Any) -> str:
    """The HTML of the error page for ``err`` (a :class:`web.http.errors.ApiError`)."""
    lang = i18n.pick_language(request)
    theme = page_theme()
    keep = {}
    if request.args.get("lang") and i18n.normalize_language(request.args.get("lang")):
        keep["lang"] = lang
    if request.args.get("theme") in THEMES:
        keep["theme"] = theme
    status = err.status
    title_key = f"error.title_{status}" if status in TITLED_STATUSES else "error.title_other"
    return render_template(
        "error.html",
        err=err,
        lang=lang,
        theme=theme,
        title=i18n.translate(title_key, lang),
        explanation=explanation(err, lang),
        lobby_url=_url("pages.lobby", "/lobby", **keep),
        table_links=_table_links(err, keep, lang),
        t=lambda key, **values: i18n.translate(key, lang, **values),
        languages=[(code, i18n.translate("lang.name", code), _here(err, lang=code)) for code in i18n.LANGUAGES],
        themes=[(name, _here(err, theme=name)) for name in THEMES],
        api_url=None,
    )

"""Baccarat domain core: cards, shoe and rules engine, round outcomes, road maps.

Standard library only: no Flask, no Pillow, no I/O. The web service (``web``) and the
renderers build on this package; this package never imports them.
"""

from roads.cards import Card, CardError, parse_cards
from roads.outcome import ResultError, RoundResult, Winner
from roads.tableau import TableauError

__all__ = ["Card", "CardError", "parse_cards", "ResultError", "RoundResult", "Winner", "TableauError"]

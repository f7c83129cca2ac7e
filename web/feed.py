"""Placeholder blueprint (to be built)."""

from flask import Blueprint

bp = Blueprint("feed", __name__)

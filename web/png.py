"""Placeholder blueprint (to be built)."""

from flask import Blueprint

bp = Blueprint("png", __name__)

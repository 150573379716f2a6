"""Argument checks shared by the helpers, with messages that name the argument."""

from __future__ import annotations


def positive_int(name: str, value: object) -> int:
    """``value`` if it is an ``int`` (not a ``bool``) of at least 1; else a ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def positive_float(name: str, value: object, unit: str = "seconds") -> float:
    """``value`` as a float if it is a number above 0; else a ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ValueError(f"{name} must be a positive number of {unit}, got {value!r}")
    return float(value)

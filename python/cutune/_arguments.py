"""Checks of the public functions' arguments, done in Python before any C++ runs: a wrong type or
value is an ArgumentError naming the call, the argument and what it takes, never the binding's
TypeError with a C++ signature, and never taken silently (budget="7")."""
import operator
import os

from .errors import ArgumentError


def _fail(call, name, expected, value):
    raise ArgumentError(f"{call}: {name} must be {expected}, got {type(value).__name__} {value!r}")


def integer(call, name, value, minimum=0):
    """An int (or anything with __index__, such as numpy's), not a bool, at least `minimum`."""
    if isinstance(value, bool):
        _fail(call, name, "an int", value)
    try:
        value = operator.index(value)
    except TypeError:
        _fail(call, name, "an int", value)
    if value < minimum:
        _fail(call, name, f"an int >= {minimum}", value)
    return value


def number(call, name, value, minimum=0.0):
    """An int or a float, not a bool, finite and at least `minimum`."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        _fail(call, name, "a number", value)
    if not value >= minimum or value == float("inf"):
        _fail(call, name, f"a finite number >= {minimum}", value)
    return float(value)


def text(call, name, value, choices=None):
    """A str; one of `choices` when given."""
    if not isinstance(value, str):
        _fail(call, name, "a str", value)
    if choices is not None and value not in choices:
        _fail(call, name, "one of " + ", ".join(repr(c) for c in choices), value)
    return value


def path(call, name, value):
    """A str or an os.PathLike, as a str."""
    if not isinstance(value, (str, os.PathLike)):
        _fail(call, name, "a str or a path", value)
    return os.fspath(value)


def flag(call, name, value):
    if not isinstance(value, bool):
        _fail(call, name, "True or False", value)
    return value

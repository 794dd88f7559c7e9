"""JSON out for the per-turn commands without importing ``json`` (``re``, ``enum``) or
``orjson`` (``dataclasses``, ``uuid``, ``json``): the standard library's C encoder, for a
handful of lines. :func:`dumps` is ``json.dumps(obj, ensure_ascii=False, separators=(",",
":"))``; for a value :func:`plain` accepts it is also what ``orjson.dumps`` writes, so a command
can print the same bytes whichever it used."""

from __future__ import annotations

import sys

_encode = None
PAGE = 200  # above this many lines orjson's chunked writer is the faster one


def _encoder():
    try:
        import _json

        encode = _json.make_encoder(None, None, _json.encode_basestring, None, ":", ",",
                                    False, False, True)
        return lambda obj: "".join(encode(obj, 0))
    except (ImportError, AttributeError, TypeError):  # not CPython: the plain module
        import json

        return lambda obj: json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def dumps(obj) -> str:
    """``obj`` as compact JSON, non-ASCII characters as they are (no circular check: the
    values printed here are read from JSON)."""
    global _encode
    if _encode is None:
        _encode = _encoder()
    return _encode(obj)


_INT = 1 << 63


def plain(obj, depth: int = 0) -> bool:
    """Whether ``obj`` holds only what both encoders write alike: strings without lone
    surrogates, booleans, None, 64-bit integers, finite floats that print without an exponent
    (``1e-07``: ``1e-7`` for orjson), lists and dicts with string keys."""
    if obj is None or obj is True or obj is False:
        return True
    kind = type(obj)
    if kind is str:
        return obj.isascii() or not any(0xD800 <= ord(c) <= 0xDFFF for c in obj)
    if kind is int:
        return -_INT <= obj < _INT
    if kind is float:
        text = repr(obj)
        return "e" not in text and "n" not in text  # no exponent, nan nor inf
    if depth > 32:
        return False
    if kind is list:
        return all(plain(item, depth + 1) for item in obj)
    if kind is dict:
        return all(type(key) is str and plain(key) and plain(value, depth + 1)
                   for key, value in obj.items())
    return False


def write_lines(items: list) -> None:
    """``items`` as JSON Lines on stdout: a page of plain values by :func:`dumps`, anything
    longer or not plain by orjson (:func:`zettelclaw.render.emit_json_lines`): the same bytes."""
    if len(items) > PAGE or not all(plain(item, 1) for item in items):
        from .render import emit_json_lines

        emit_json_lines(items)
        return
    sys.stdout.write("".join(dumps(item) + "\n" for item in items))
    sys.stdout.flush()

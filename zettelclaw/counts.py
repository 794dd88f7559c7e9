"""Counted nouns in what people read: "1 session", "2 sessions", never "1 session(s)"."""

from __future__ import annotations

_IRREGULAR = {"entry": "entries", "entries": "entries"}


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun`` agreeing: ``count(1, "session")`` is "1 session", ``count(2,
    "open question")`` "2 open questions". ``noun`` may be given in the plural ("open tasks"):
    its last word loses its s for one. ``plural`` overrides the English guess."""
    return f"{n} {plural_of(noun, plural) if n != 1 else singular_of(noun)}"


def plural_of(noun: str, plural: str | None = None) -> str:
    if plural:
        return plural
    head, _, last = noun.rpartition(" ")
    if last in _IRREGULAR:
        last = _IRREGULAR[last]
    elif last.endswith("y") and last[-2:-1] not in "aeiou":
        last = last[:-1] + "ies"
    elif not last.endswith("s"):
        last += "s"
    return f"{head} {last}" if head else last


def singular_of(noun: str) -> str:
    head, _, last = noun.rpartition(" ")
    if last.endswith("ies"):
        last = last[:-3] + "y"
    elif last.endswith("s") and not last.endswith("ss"):
        last = last[:-1]
    return f"{head} {last}" if head else last

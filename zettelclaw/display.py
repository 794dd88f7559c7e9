"""Text from the log is data: what it looks like on a terminal or in MEMORY.md.

An entry's content is whatever a model or a person wrote, so it may hold terminal control
sequences (ESC ... to recolour, move the cursor, set the window title or hide text), a carriage
return that overwrites the line, or bidi overrides that reorder what a reader sees. For display
they are shown as escapes (``\\x1b``, ``\\u202e``), so they reach the reader as visible text.
JSON output keeps the stored bytes; only what is printed for people (and MEMORY.md) changes.
"""

from __future__ import annotations

_TABLE: dict[int, str] | None = None


def _table() -> dict[int, str]:
    global _TABLE
    if _TABLE is None:
        codes = [c for c in range(0x20) if c not in (0x09, 0x0A)]  # C0 but tab and newline
        codes += [0x7F, *range(0x80, 0xA0)]  # DEL, C1 (0x9b is a one-byte CSI)
        codes += [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
        _TABLE = {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in codes}
    return _TABLE


def printable(text) -> str:
    """``text`` with control characters (but tab and newline) and bidi controls as visible
    escapes: ``"\\x1b[31m"`` prints as those eight characters, not as red."""
    return str(text).translate(_table())

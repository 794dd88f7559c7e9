"""MEMORY.md's briefing markers: where the generated block is.

``zettelclaw brief`` owns what lies between ``<!-- BEGIN GENERATED BRIEFING -->`` and
``<!-- END GENERATED BRIEFING -->`` (:mod:`zettelclaw.briefing` writes it); the person owns the
rest. A marker inside a fenced code block is an example, not a marker. This module only finds
them: cheap to import (search and ``get`` read it on every call; the briefing's dataclasses and
model code stay out of their start-up).
"""

from __future__ import annotations

from .errors import ZettelclawError

BEGIN_MARKER = "<!-- BEGIN GENERATED BRIEFING -->"
END_MARKER = "<!-- END GENERATED BRIEFING -->"
_BEGIN = BEGIN_MARKER.encode()
_END = END_MARKER.encode()


class MarkerError(ZettelclawError):
    """MEMORY.md has the briefing markers in a shape nobody can safely rewrite."""


def _fence(line: bytes) -> tuple[bytes, int] | None:
    """(fence char, run length) when ``line`` opens or closes a fenced code block (CommonMark:
    up to 3 spaces, then 3 or more backticks or tildes)."""
    stripped = line.lstrip(b" ")
    if len(line) - len(stripped) > 3 or stripped[:3] not in (b"```", b"~~~"):
        return None
    char = stripped[:1]
    run = len(stripped) - len(stripped.lstrip(char))
    if char == b"`" and b"`" in stripped[run:]:
        return None  # a backtick fence's info string holds no backtick
    return char, run


def _scan(data: bytes) -> tuple[list[int], list[int], bytes | None]:
    """Offsets of the BEGIN and END markers outside fenced code blocks, and the fence line
    that would close a block still open at the end of ``data`` (None when none is open).

    A marker inside a fenced code block (```` ``` ```` or ``~~~``) is an example, not a marker.
    """
    if b"```" not in data and b"~~~" not in data:  # the common case: no fence at all
        return _find_all(data, _BEGIN), _find_all(data, _END), None
    begins: list[int] = []
    ends: list[int] = []
    open_fence: tuple[bytes, int] | None = None
    at = 0
    for line in data.splitlines(keepends=True):
        bare = line.rstrip(b"\r\n")
        fence = _fence(bare)
        if open_fence is not None:
            if fence and fence[0] == open_fence[0] and fence[1] >= open_fence[1] \
                    and not bare.lstrip(b" ").lstrip(fence[0]).strip(b" \t"):
                open_fence = None
        elif fence:
            open_fence = fence
        else:
            begins.extend(at + i for i in _find_all(bare, _BEGIN))
            ends.extend(at + i for i in _find_all(bare, _END))
        at += len(line)
    closing = None if open_fence is None else open_fence[0] * open_fence[1]
    return begins, ends, closing


def _find_all(data: bytes, needle: bytes) -> list[int]:
    found, at = [], data.find(needle)
    while at != -1:
        found.append(at)
        at = data.find(needle, at + len(needle))
    return found


def _locate(data: bytes) -> tuple[int, int] | None:
    """(end of BEGIN, start of END) in ``data`` (UTF-8); None when neither marker is there.

    Markers inside fenced code blocks do not count. Raises MarkerError for a lone, repeated or
    misordered marker.
    """
    found = _scan(data)
    begins, ends = found[0], found[1]
    if not begins and not ends:
        return None
    if len(begins) == 1 and len(ends) == 1:
        start, end = begins[0] + len(_BEGIN), ends[0]
        if start <= end:
            return start, end
        problem = "the END marker comes before the BEGIN marker"
    elif len(begins) > 1 or len(ends) > 1:
        problem = f"{len(begins)} BEGIN and {len(ends)} END markers"
    else:
        problem = "a BEGIN marker without an END marker" if begins else \
            "an END marker without a BEGIN marker"
    raise MarkerError(problem)


def generated_lines(text: str) -> tuple[int, int] | None:
    """The 0-based indexes in ``text.splitlines()`` of the BEGIN marker's line and the END
    marker's line (the generated block, markers included); None without a valid pair (no
    markers, or broken ones: then nothing can be told apart)."""
    data = text.encode("utf-8", "surrogateescape")
    where = _valid_pair(data)
    if where is None:
        return None
    begin, end = where[0] - len(_BEGIN), where[1]

    def line_of(offset: int) -> int:  # the index of the line holding ``offset``
        before = data[:offset].decode("utf-8", "surrogateescape").splitlines(keepends=True)
        whole = bool(before) and before[-1].splitlines() != [before[-1]]  # ends with a break
        return len(before) - (0 if whole or not before else 1)

    return line_of(begin), line_of(end)


def generated_block(text: str) -> str | None:
    """The text between the markers (no surrounding newlines), None without a valid pair."""
    data = text.encode("utf-8", "surrogateescape")
    where = _valid_pair(data)
    if where is None:
        return None
    start, end = where
    return data[start:end].decode("utf-8", "surrogateescape").strip("\r\n")


def _valid_pair(data: bytes) -> tuple[int, int] | None:
    """Where the block is (:func:`_locate`), None for no markers and for broken ones alike."""
    try:
        return _locate(data)
    except MarkerError:
        return None

"""Framing data for the model: a transcript or an entry list cannot open or close the tags
that frame it in the user turn."""

from __future__ import annotations

import re

_INVISIBLE = "[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]*"


def _spelled(name: str) -> str:
    """A pattern for ``name`` in either case, in ASCII or fullwidth letters, with invisible
    characters anywhere between them."""
    def letter(ch: str) -> str:
        forms = {ch.lower(), ch.upper(), chr(ord(ch.lower()) + 0xFEE0),
                 chr(ord(ch.upper()) + 0xFEE0)}
        return "[" + "".join(re.escape(f) for f in sorted(forms)) + "]"
    return _INVISIBLE.join(letter(ch) for ch in name)


# what could open or close a frame: `<` or a look-alike, then the tag's name however spelled
_TAG_RE = re.compile(
    "[<\uff1c\ufe64\u2329\u3008\u27e8](?=[\\s/\uff0f" + _INVISIBLE[1:-2] + "]*(?:"
    + "|".join(_spelled(n) for n in ("transcript", "existing_entries", "earlier_parts",
                                     "subjects"))
    + ")(?![A-Za-z0-9_]))")


def _frame(text: str) -> str:
    """Keep data from opening or closing the tags that frame it, near-misses included
    (``< /transcript>``, zero-width or fullwidth spellings): their ``<`` becomes ``‹``."""
    return _TAG_RE.sub("‹", text)

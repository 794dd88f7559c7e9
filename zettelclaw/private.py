"""Private text: what the person wraps in ``<private>...</private>`` is never sent to the
extraction model, never stored, never shown again.

The rules (README, "Private"):

* the tags are matched whatever their case and with spaces inside the brackets
  (``<Private>``, ``< /PRIVATE >``, ``<private reason="x">``); nested tags are counted, so the
  outermost pair is what is hidden; a closing tag with no opening one is dropped;
* a ``<private>`` left open hides everything to the end of the message;
* tags count everywhere, inside code blocks and inline code too: hiding a line someone meant
  as an example costs a detail, showing one they meant as private costs their trust;
* a hidden span becomes ``[private]`` in a transcript (what the model and ``get session:``
  see), and nothing at all in a recall query (so the placeholder is not searched for);
* once a conversation (a session) has hidden a span, the same words anywhere else in it, the
  assistant's echo of them above all, are hidden too (:class:`PrivateSpans`): matched ignoring
  case and runs of whitespace, whole words only when they start or end with a letter or digit;
  each line of a longer span, and each word of it holding a digit (a PIN, a number), on its
  own as well. A part of a span otherwise, a paraphrase, or the same words in *another*
  session (where they were not marked) are not recognised.

Plain ``re`` only, imported when a text may hold a tag: recall (per turn) strips its query
with :func:`strip_private`, and a message without ``<`` and ``private`` costs it no import.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

PRIVATE = "[private]"
# <private>, </private>, < Private class="x" >: the name, then nothing or a space and attributes
_TAG = r"<\s*(/)?\s*private(?:\s[^<>]*)?>"
_compiled_tag: list = []


def _tags() -> re.Pattern:
    """The tag pattern, compiled on first use."""
    if not _compiled_tag:
        import re

        _compiled_tag.append(re.compile(_TAG, re.IGNORECASE))
    return _compiled_tag[0]
_MIN_CHARS = 2  # a span (or a line of one) shorter than this (spaces aside) is not searched for
_MIN_NUMBER = 3  # a word of a span holding a digit is searched for alone from this length
_EDGE_PUNCT = ".,;:!?()[]{}'\"“”‘’"


def _might_hold(text: str) -> bool:
    return "<" in text and "private" in text.lower()


def hide_private(text: str, placeholder: str = PRIVATE) -> tuple[str, list[str]]:
    """``text`` with each private span (tags included) replaced by ``placeholder``, and the
    spans' own text, in order."""
    if not isinstance(text, str) or not _might_hold(text):
        return text, []
    out: list[str] = []
    spans: list[str] = []
    depth = 0
    pos = 0  # where the text still to copy (depth 0) or the open span (depth > 0) starts
    for tag in _tags().finditer(text):
        closing = tag.group(1) is not None
        if depth == 0:
            out.append(text[pos:tag.start()])
            pos = tag.end()
            if closing:  # a stray closing tag: dropped
                continue
            depth = 1
        elif closing:
            depth -= 1
            if depth == 0:
                spans.append(text[pos:tag.start()])
                out.append(placeholder)
                pos = tag.end()
        else:
            depth += 1
    if depth:  # left open: hidden to the end
        spans.append(text[pos:])
        out.append(placeholder)
    else:
        out.append(text[pos:])
    return "".join(out), [s for s in spans if s.strip()]


def strip_private(text: str) -> str:
    """``text`` without its private spans, nothing in their place (a query, a search)."""
    hidden, _ = hide_private(text, "")
    return hidden


class PrivateSpans:
    """The private spans seen so far in one session, to hide wherever they come again."""

    def __init__(self) -> None:
        self._patterns: dict[str, str] = {}
        self._compiled: re.Pattern | None = None

    def __bool__(self) -> bool:
        return bool(self._patterns)

    def add(self, spans: list[str]) -> None:
        for span in spans:
            lines = [line for line in span.splitlines() if line.strip()]
            # a word with a digit in it (a PIN, a phone or account number) is the part most
            # often repeated alone: "your PIN 4417 is noted"
            numbers = [w for w in (w.strip(_EDGE_PUNCT) for w in span.split())
                       if len(w) >= _MIN_NUMBER and any(c.isdigit() for c in w)]
            for piece in dict.fromkeys([span, *(lines if len(lines) > 1 else []), *numbers]):
                pattern = _pattern(piece)
                if pattern is not None and pattern not in self._patterns:
                    self._patterns[pattern] = piece
                    self._compiled = None

    def hide(self, text: str) -> str:
        """``text`` with every occurrence of a known span replaced by ``[private]``."""
        if not self._patterns or not text:
            return text
        if self._compiled is None:
            import re

            ordered = sorted(self._patterns, key=len, reverse=True)  # the longest first
            self._compiled = re.compile("|".join(f"(?:{p})" for p in ordered), re.IGNORECASE)
        return self._compiled.sub(PRIVATE, text)


def _pattern(span: str) -> str | None:
    """A regular expression for ``span`` (its words, any whitespace between them; whole words
    at a letter or digit edge), or None when it is too short to look for."""
    import re

    words = span.split()
    if sum(len(w) for w in words) < _MIN_CHARS:
        return None
    body = r"\s+".join(re.escape(w) for w in words)
    head = r"(?<!\w)" if re.match(r"\w", words[0]) else ""
    tail = r"(?!\w)" if re.search(r"\w$", words[-1]) else ""
    return head + body + tail

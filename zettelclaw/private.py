"""Private text: what the person wraps in ``<private>...</private>`` is never sent to the
extraction model, never stored, never shown again.

The rules (docs/private.md), erring on the side of hiding:

* the tags are matched whatever their case and with spaces inside the brackets
  (``<Private>``, ``< /PRIVATE >``, ``<private reason="x">``), in full-width forms too
  (``＜private＞``); ``<private/>`` and a ``<private`` whose ``>`` was never typed
  (``<private my PIN</private>``) open a span; nested tags are counted, so the outermost pair is
  what is hidden;
* a closing tag with no opening one hides what came before it in the message (a span whose
  opening tag was sent in an earlier message: chat apps send on Enter);
* a ``<private>`` left open hides everything to the end of the message, and the person's next
  messages in the conversation up to a closing tag (:func:`hide_spans` carries the depth);
* tags count everywhere, inside code blocks and inline code too: hiding a line someone meant
  as an example costs a detail, showing one they meant as private costs their trust;
* a hidden span becomes ``[private]`` in a transcript (what the model and ``get session:``
  see), and nothing at all in a recall query (so the placeholder is not searched for);
* once a conversation (a session) has hidden a span, the same words anywhere else in it, the
  assistant's echo of them above all, are hidden too (:class:`PrivateSpans`): matched ignoring
  case and runs of whitespace, and between two digits any spaces, dashes and dots (a card
  number typed ``4111 1111 1111 1111`` and echoed ``4111111111111111`` or
  ``4111-1111-1111-1111`` is the same number), whole words only when they start or end with a
  letter or digit;
  each line of a longer span, and each word of it holding a digit (a PIN, a number), on its
  own as well. A part of a span otherwise, a paraphrase, or the same words in *another*
  session (where they were not marked) are not recognised. The words are found in one pass
  over the text whatever the number of spans and lines (no expression is built from them).

Plain ``re`` only, imported when a text may hold a tag: recall (per turn) strips its query
with :func:`strip_private`, and a message without ``<`` and ``private`` costs it no import.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

PRIVATE = "[private]"
_LT, _GT, _SLASH = "<\uff1c\ufe64", ">\uff1e\ufe65", "/\uff0f"  # and their full-width forms
_NAME = "".join(f"[{c}{chr(ord(c) + 0xFEE0)}]" for c in "private")
# <private>, </private>, < Private class="x" >, <private/>, and "<private" with no ">": the
# name, then a space or a slash and attributes up to ">", or ">", or no word character at all
_TAG = (rf"[{_LT}]\s*([{_SLASH}])?\s*{_NAME}"
        rf"(?:[\s{_SLASH}][^{_LT}{_GT}]*[{_GT}]|[{_GT}]|(?![\w-]))")
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
    low = text.lower()
    return (any(c in text for c in _LT)
            and ("private" in low or "\uff50" in low or "\uff52" in low))


def hide_private(text: str, placeholder: str = PRIVATE) -> tuple[str, list[str]]:
    """``text`` with each private span (tags included) replaced by ``placeholder``, and the
    spans' own text, in order."""
    hidden, spans, _ = hide_spans(text, 0, placeholder)
    return hidden, spans


def hide_spans(text: str, depth: int = 0,
               placeholder: str = PRIVATE) -> tuple[str, list[str], int]:
    """:func:`hide_private` for one of a person's messages that may begin inside a span left
    open by an earlier one (``depth`` > 0): also the depth it leaves open, for the next."""
    if not isinstance(text, str):
        return text, [], depth
    if not depth and not _might_hold(text):
        return text, [], 0
    out: list[str] = []
    spans: list[str] = []
    pos = 0  # where the text still to copy (depth 0) or the open span (depth > 0) starts
    for tag in (_tags().finditer(text) if _might_hold(text) else ()):
        closing = tag.group(1) is not None
        if depth == 0:
            if closing and text[pos:tag.start()].strip():
                # a stray closing tag: its span was opened in an earlier message
                spans.append(text[pos:tag.start()])
                out.append(placeholder)
            else:
                out.append(text[pos:tag.start()])
            pos = tag.end()
            if not closing:
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
    return "".join(out), [s for s in spans if s.strip()], depth


def strip_private(text: str) -> str:
    """``text`` without its private spans, nothing in their place (a query, a search)."""
    hidden, _ = hide_private(text, "")
    return hidden


class PrivateSpans:
    """The private spans seen so far in one session, to hide wherever they come again."""

    def __init__(self) -> None:
        self._pieces: dict[str, tuple[bool, bool]] = {}  # words (folded) -> whole-word edges
        self._matcher: _Matcher | None = None

    def __bool__(self) -> bool:
        return bool(self._pieces)

    def add(self, spans: list[str]) -> None:
        for span in spans:
            lines = [line for line in span.splitlines() if line.strip()]
            # a word with a digit in it (a PIN, a phone or account number) is the part most
            # often repeated alone: "your PIN 4417 is noted"
            numbers = [w for w in (w.strip(_EDGE_PUNCT) for w in span.split())
                       if len(w) >= _MIN_NUMBER and any(c.isdigit() for c in w)]
            for piece in dict.fromkeys([span, *(lines if len(lines) > 1 else []), *numbers]):
                words = piece.split()
                if sum(len(w) for w in words) < _MIN_CHARS:
                    continue
                key = "".join(_folded(" ".join(words))[0])
                if key not in self._pieces:
                    self._pieces[key] = (_is_word(words[0][0]), _is_word(words[-1][-1]))
                    self._matcher = None

    def hide(self, text: str) -> str:
        """``text`` with every occurrence of a known span replaced by ``[private]``."""
        if not self._pieces or not text:
            return text
        if self._matcher is None:
            self._matcher = _Matcher(self._pieces)
        return self._matcher.hide(text)


def _is_word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _fold_char(c: str) -> str:
    """``c`` lower-cased, one character for one (so positions keep their meaning)."""
    low = c.lower()
    return low if len(low) == 1 else c


_GAP = frozenset(" -.\u2010\u2011\u2012\u2013\u2212")  # and any whitespace: between digits


def _folded(text: str) -> tuple[list[str], list[int]]:
    """``text`` as the matcher reads it: each character folded (:func:`_fold_char`), each run
    of whitespace one space, nothing for the spaces, dashes and dots between two digits; and
    the position in ``text`` of each character read (the end of ``text`` after them)."""
    folded: list[str] = []
    where: list[int] = []
    space = False
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        gap = c in _GAP or c.isspace()
        if gap and folded and folded[-1].isdigit():
            j = i + 1
            while j < n and (text[j] in _GAP or text[j].isspace()):
                j += 1
            if j < n and text[j].isdigit():
                i = j  # "4111 1111", "4111-1111", "4111.1111": one run of digits
                continue
        if c.isspace():
            if not space:
                folded.append(" ")
                where.append(i)
            space = True
        else:
            space = False
            folded.append(_fold_char(c))
            where.append(i)
        i += 1
    where.append(n)
    return folded, where


class _Matcher:
    """Every known piece found in one pass over a text (Aho-Corasick over its characters,
    folded, each run of whitespace read as one space): time linear in the text and the pieces,
    however many there are, where one regular expression of them all was not."""

    def __init__(self, pieces: dict[str, tuple[bool, bool]]) -> None:
        self.goto: list[dict[str, int]] = [{}]
        self.piece: list[tuple[int, bool, bool] | None] = [None]  # (length, head, tail)
        for key, (head, tail) in pieces.items():
            node = 0
            for c in key:
                nxt = self.goto[node].get(c)
                if nxt is None:
                    nxt = self.goto[node][c] = len(self.goto)
                    self.goto.append({})
                    self.piece.append(None)
                node = nxt
            self.piece[node] = (len(key), head, tail)
        self.fail = [0] * len(self.goto)
        self.out = [0] * len(self.goto)  # the nearest shorter suffix that is a piece (0: none)
        queue = list(self.goto[0].values())
        for node in queue:  # breadth first: a node's fail link is settled before its children
            for c, child in self.goto[node].items():
                queue.append(child)
                back = self.fail[node]
                while back and c not in self.goto[back]:
                    back = self.fail[back]
                link = self.goto[back].get(c, 0)
                self.fail[child] = link if link != child else 0
                self.out[child] = link if self.piece[link] else self.out[link]

    def hide(self, text: str) -> str:
        folded, where = _folded(text)  # ``where``: the position in ``text`` of each one
        n = len(folded)
        found: list[tuple[int, int]] = []
        state = 0
        for j, c in enumerate(folded):
            while state and c not in self.goto[state]:
                state = self.fail[state]
            state = self.goto[state].get(c, 0)
            node = state if self.piece[state] else self.out[state]
            tail_ok = j + 1 == n or not _is_word(folded[j + 1])
            while node:  # the longest piece ending here whose edges are whole words
                length, head, tail = self.piece[node]
                start = j + 1 - length
                if (not head or start == 0 or not _is_word(folded[start - 1])) and (
                        not tail or tail_ok):
                    found.append((start, j + 1))
                    break
                node = self.out[node]
        if not found:
            return text
        found.sort()
        out: list[str] = []
        pos = 0  # in ``folded``
        run_start, run_end = found[0]
        for start, end in found[1:] + [(n + 1, n + 1)]:
            if start <= run_end:
                run_end = max(run_end, end)
                continue
            out.append(text[where[pos]:where[run_start]])
            out.append(PRIVATE)
            pos = run_end
            run_start, run_end = start, end
        out.append(text[where[pos]:])
        return "".join(out)

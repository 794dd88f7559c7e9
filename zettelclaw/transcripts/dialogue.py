"""A conversation as text for the model and for ``get session:``: ``User:`` / ``Assistant:``
lines, whole or in chunks that fit a size. Who spoke is marked: a person who is not the owner
is ``Other person:``, and the assistant's words after a web page or a search in that turn (or
in another person's turn) are ``Assistant (untrusted):`` (:mod:`zettelclaw.people`)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..errors import UsageError
from ..people import UNTRUSTED
from .shapes import ASSISTANT, USER, Message

_LABELS = {USER: "User", ASSISTANT: "Assistant"}
_UNTRUSTED_LABELS = {USER: "Other person", ASSISTANT: "Assistant (untrusted)"}
# A turn starts at the beginning of a line with its label; every further line of a message is
# indented by two spaces, so a message holding "\nAssistant: ..." cannot pass for a turn of
# its own. Every character a reader may take for a line break counts as one.
_BREAKS = re.compile("\r\n|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
_CONTINUATION = "\n  "


def _label(message: Message) -> str:
    labels = _UNTRUSTED_LABELS if message.origin == UNTRUSTED else _LABELS
    return labels.get(message.role, message.role.title())


def _line(message: Message) -> str:
    label = _label(message)
    return f"{label}: {_BREAKS.sub(_CONTINUATION, message.text)}"


def _rendered_len(text: str) -> int:
    return len(_BREAKS.sub(_CONTINUATION, text))


def render(messages: Iterable[Message], *, max_chars: int | None = None) -> str:
    """``User: ...`` / ``Assistant: ...`` lines (a message's further lines indented by two
    spaces). With ``max_chars``, a longer conversation is
    cut there and says how much was left out (use :func:`chunk_messages` to keep it all)."""
    text = "\n".join(_line(m) for m in messages)
    if max_chars is None or len(text) <= max_chars:
        return text
    left = len(text) - max_chars
    return f"{text[:max_chars].rstrip()}\n[... {left} more characters not shown]"


def chunk_messages(messages: Iterable[Message], max_chars: int) -> list[list[Message]]:
    """Split a conversation into runs whose rendering fits ``max_chars`` each, cutting between
    messages; one message longer than that is split into parts (at whitespace where it can).
    Nothing is dropped: the chunks hold every character of every message, in order."""
    if max_chars < 40:
        raise UsageError("max_chars must be at least 40")
    chunks: list[list[Message]] = []
    current: list[Message] = []
    size = 0
    for message in messages:
        for part in _split_message(message, max_chars):
            cost = len(_line(part)) + (1 if current else 0)
            if current and size + cost > max_chars:
                chunks.append(current)
                current, size = [], 0
                cost = len(_line(part))
            current.append(part)
            size += cost
    if current:
        chunks.append(current)
    return chunks


def _split_message(message: Message, max_chars: int) -> list[Message]:
    room = max_chars - len(_label(message)) - 2
    text = message.text
    if _rendered_len(text) <= room:
        return [message]
    parts = []
    while _rendered_len(text) > room:
        cut = text.rfind(" ", room // 2, room)
        cut = room if cut <= 0 else cut + 1
        while cut > 1 and _rendered_len(text[:cut]) > room:  # indented line breaks
            cut -= _rendered_len(text[:cut]) - room
        parts.append(text[:cut])
        text = text[cut:]
    parts.append(text)
    return [Message(message.role, part, message.event_id, message.timestamp, message.position,
                    message.origin, message.tainted)
            for part in parts if part]

"""The inline source: the ``messages`` a ``before_reset`` hook hands over."""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import UsageError
from .segments import _iter_jsonl_bytes, _parse, _Segmenter
from .shapes import Segment


def segments_from_messages(data: bytes | str | list | dict, session_id: str, *,
                           after: str | None = None, says_owner: bool = False) -> list[Segment]:
    """Segments from inline data: what ``before_reset`` hands over.

    ``data`` is a JSON array of message objects (``{role, content, ...}``) or of whole
    transcript events, a ``{"messages": [...]}`` hook event, or JSON Lines of either; already
    parsed lists and dicts are accepted too. Inline conversations are finished ones: every
    segment is closed. ``says_owner``: the messages are 2026.9's (its database is there),
    where a user message is the owner's only when its ``senderIsOwner`` is true.
    """
    if isinstance(data, (bytes, bytearray, memoryview, str)):
        raw = bytes(data) if not isinstance(data, str) else data
        if not raw.strip():
            items: Iterable = []
        else:
            whole = _parse(raw)
            if whole is None:  # not one JSON document: JSON Lines
                items = _iter_jsonl_bytes(raw.encode("utf-8", "replace")
                                          if isinstance(raw, str) else raw)
            else:
                items = _items_of(whole)
    else:
        items = _items_of(data)
    segmenter = _Segmenter(session_id, after, says_owner=says_owner)
    for item in items:
        segmenter.feed(item)
    return segmenter.finish(closed=True)


def _items_of(value) -> list:
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        messages = value.get("messages")
        if isinstance(messages, list) and "role" not in value:
            return messages
        return [value]
    raise UsageError("inline messages must be a JSON array of messages or transcript events")

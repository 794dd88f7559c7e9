"""A session's events, in order, into segments: one per conversation.

On 2026.9 ``/new`` and ``/reset`` keep the sessionId and append a ``reset`` event, which closes a
segment; on 2026.2 each rotated file is a closed segment of its own (the reader closes it). Only
what the human and the assistant said becomes a :class:`Message`: tool calls and results,
``custom`` events, model changes, compaction summaries, inter-session and internal-system inputs
are dropped. What the person wrapped in ``<private>`` becomes ``[private]``, and so do the same
words anywhere else in the session (:mod:`zettelclaw.private`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import orjson

from ..people import AGENT, OWNER, SYSTEM, UNTRUSTED, local_tools, taints
from ..private import PrivateSpans, hide_spans
from .clean import _HIDDEN_TURN_TOOLS, clean_text, content_text
from .shapes import ASSISTANT, USER, Message, Segment
from .times import _iso_from_ms


class _Segmenter:
    """Turns a session's events, in order, into segments. Fed one event at a time."""

    def __init__(self, session_id: str, after: str | None = None, *, says_owner: bool = False):
        self.session_id = session_id
        self.after = after
        # 2026.9 says on every user message whether the sender is the owner: there, as in
        # OpenClaw, only ``senderIsOwner: true`` is the owner; a 2026.2 transcript does not say,
        # and its session decides (extract.origin.settle), unless it says so somewhere
        self.says_owner = says_owner
        self.saw_said = False
        self.cut: int | None = None  # position of the `after` event once seen
        self.segments: list[Segment] = []
        self.index = 0
        self.position = 0
        self.private = PrivateSpans()  # the session's <private> spans, hidden everywhere in it
        self.local: frozenset[str] | None = None  # tools whose results do not taint (read once)
        self._reset_segment()

    def _reset_segment(self) -> None:
        self.messages: list[Message] = []
        self.first_id: str | None = None
        self.last_id: str | None = None
        self.hidden_turn = False
        self.turn_origin: str | None = None  # the last user message's origin (None: unsaid)
        self.tainted = False  # a network-sourced tool result came since that message
        self.open_private: dict[str, int] = {}  # a role's <private> left open by its last message

    def feed(self, event) -> None:
        if not isinstance(event, dict):
            return
        position = self.position
        self.position += 1
        kind = event.get("type")
        event_id = event.get("id")
        if not isinstance(event_id, str):
            event_id = None
        if event_id is not None and kind != "session":
            self._saw(event_id, position)
        if kind == "reset":
            self.close(closed=True)
            return
        message = _message_of(event, kind)
        if isinstance(message, dict):
            self._message(message, event, event_id, position)

    def _saw(self, event_id: str, position: int) -> None:
        """Note an event of the current segment (and where the ``after`` cursor falls)."""
        if self.first_id is None:
            self.first_id = event_id
        self.last_id = event_id
        if event_id == self.after and self.cut is None:  # a later repeat of the id is not
            self.cut = position                          # where the extracted part ended

    def _message(self, message: dict, event: dict, event_id: str | None, position: int) -> None:
        role = message.get("role")
        self._track_origin(role, message)
        if not self._in_conversation(role, message):
            return
        text, spans, self.open_private[role] = hide_spans(content_text(message.get("content")),
                                                          self.open_private.get(role, 0))
        self.private.add(spans)
        text = clean_text(text, role)
        if not text:
            return
        if event_id is None and event is message:
            own_id = message.get("id")
            event_id = own_id if isinstance(own_id, str) else None
        self.messages.append(Message(role, text, event_id, _timestamp_of(event, message),
                                     position, self._origin(role, message),
                                     self._tainted(role, message)))

    def _track_origin(self, role, message: dict) -> None:
        """Follow the turn: a user message starts one (its origin from
        ``__openclaw.senderIsOwner``); a network-sourced tool result taints the rest of it, as
        OpenClaw's own memory does (docs/concepts/memory-architecture.md)."""
        if role == USER:
            provenance = message.get("provenance")
            if isinstance(provenance, dict) and provenance.get("kind") == "internal_system":
                self.turn_origin = SYSTEM
            else:
                marks = _openclaw(message)
                if "senderIsOwner" in marks:
                    self.saw_said = True
                    self.turn_origin = OWNER if marks["senderIsOwner"] is True else UNTRUSTED
                else:  # absent: not the owner where the transcript says it (2026.9)
                    self.turn_origin = UNTRUSTED if self.says_owner else None
            self.tainted = False
        elif role in ("toolResult", "custom") and not self.tainted:
            if self.local is None:
                self.local = local_tools()
            self.tainted = _taints(role, message, self.local)

    def _origin(self, role, message: dict) -> str | None:
        """Where a kept message's words came from (None: the transcript does not say)."""
        if role == USER:
            return self.turn_origin
        if self.tainted or _openclaw(message).get("turnTainted") is True:
            return UNTRUSTED
        return AGENT if self.turn_origin == OWNER else self.turn_origin

    def _tainted(self, role, message: dict) -> bool:
        """Whether an assistant's message follows words from the network in its turn (see
        :class:`~zettelclaw.transcripts.shapes.Message`)."""
        return role != USER and (self.tainted or (
            self.turn_origin != UNTRUSTED and _openclaw(message).get("turnTainted") is True))

    def _in_conversation(self, role, message: dict) -> bool:
        """Whether a message is the human's or the assistant's part of the conversation.

        Internal-system user turns (heartbeats, recalled memory, runtime events) are not, nor
        is the assistant's reply to a hidden one; nor is another agent's message (inter-session),
        nor any other role (toolResult, custom, bashExecution, ...).
        """
        if role == USER:
            provenance = message.get("provenance")
            kind = provenance.get("kind") if isinstance(provenance, dict) else None
            if kind == "internal_system":
                self.hidden_turn = provenance.get("sourceTool") in _HIDDEN_TURN_TOOLS
                return False
            self.hidden_turn = False
            return kind != "inter_session"
        if role == ASSISTANT:
            return not self.hidden_turn
        return False

    def close(self, *, closed: bool) -> None:
        """End the current segment (a reset event, or the end of a rotated file)."""
        if self.messages:
            self.segments.append(Segment(self.session_id, self.index, self.messages,
                                         self.first_id, self.last_id, closed))
        self.index += 1
        self._reset_segment()

    def finish(self, *, closed: bool = False) -> list[Segment]:
        if self.messages:
            self.close(closed=closed)
        if self.saw_said and not self.says_owner:  # a transcript that says who the owner is
            for segment in self.segments:  # somewhere: where it does not, not the owner
                segment.messages = [m if m.origin is not None else replace(m, origin=UNTRUSTED)
                                    for m in segment.messages]
        if self.private:  # the same words again, before or after, in either role
            for segment in self.segments:
                segment.messages = [replace(m, text=self.private.hide(m.text))
                                    for m in segment.messages]
        if self.cut is None:
            return self.segments
        kept = []
        for segment in self.segments:
            fresh = [m for m in segment.messages if m.position is None or m.position > self.cut]
            if fresh:
                segment.messages = fresh
                kept.append(segment)
        return kept


def _taints(role, message: dict, local: frozenset[str]) -> bool:
    """Whether a message brings a tool's result that taints the rest of the turn: every tool's
    but those known to read only the person's own machine (``local``,
    :func:`zettelclaw.people.taints`), and any OpenClaw marks ``networkSourced``. Through
    Tool Search (on by default in 2026.9) the toolResult is ``tool_call``'s, and
    ``details.tool.name`` names the tool that ran (so does the ``custom`` record
    ``openclaw.nested-tool.v1`` before it, ``details.toolName``): a ``tool_call`` whose result
    does not say which tool ran taints."""
    details = message.get("details")
    details = details if isinstance(details, dict) else {}
    if role == "toolResult":
        if _openclaw(message).get("networkSourced") is True:
            return True
        name = message.get("toolName")
        tool = details.get("tool")
        if isinstance(name, str) and name.strip().lower() == "tool_call":
            name = tool.get("name") if isinstance(tool, dict) else None
        return taints(name, local)
    if message.get("customType") == "openclaw.nested-tool.v1":
        return taints(details.get("toolName"), local)
    return False


def _openclaw(message: dict) -> dict:
    """OpenClaw's own marks on a message (``__openclaw``), {} when none."""
    marks = message.get("__openclaw")
    return marks if isinstance(marks, dict) else {}


def _message_of(event: dict, kind):
    """The message object an event carries (None when it carries none)."""
    if kind == "message":
        message = event.get("message")
        if not isinstance(message, dict) and "role" in event:
            return event  # {"type": "message", "role": ..., "content": ...}
        return message
    if kind is None and "role" in event:
        return event  # a bare message object (before_reset's messages[])
    return None


def _timestamp_of(event: dict, message: dict) -> str | None:
    """The event's ISO time, else the message's (an ISO string or epoch milliseconds)."""
    timestamp = event.get("timestamp")
    if not isinstance(timestamp, str):
        timestamp = message.get("timestamp")
        if not isinstance(timestamp, str):
            timestamp = _iso_from_ms(timestamp)
    return timestamp


def _parse(raw: bytes | str):
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        if isinstance(raw, (bytes, bytearray, memoryview)):
            try:  # bytes that are not UTF-8: replace, do not fail
                return orjson.loads(bytes(raw).decode("utf-8", "replace"))
            except orjson.JSONDecodeError:
                return None
        return None


def _iter_jsonl_bytes(data: bytes) -> Iterator:
    for line in data.splitlines():
        if line.strip():
            event = _parse(line)
            if event is not None:
                yield event

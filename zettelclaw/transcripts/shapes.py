"""What a transcript reads as: the messages, the conversations (segments) and where a session
lives, handed to every caller whatever layout OpenClaw keeps them in."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

USER = "user"
ASSISTANT = "assistant"


@dataclass(frozen=True)
class Message:
    """One thing the human or the assistant said, cleaned of OpenClaw's machinery."""

    role: str  # "user" | "assistant"
    text: str
    event_id: str | None = None
    timestamp: str | None = None
    # where the message sits in the session's event stream; lets a cursor cut inside a segment
    position: int | None = field(default=None, compare=False, repr=False)
    # where the words came from (zettelclaw.people's origin classes), set from the transcript:
    # "owner" / "untrusted" for a user message whose __openclaw.senderIsOwner says so, "agent" /
    # "untrusted" for the assistant's (after a network-sourced tool result in the turn, or in a
    # non-owner's turn); None when the transcript does not say (2026.2): the session decides
    origin: str | None = field(default=None, compare=False, repr=False)
    # an assistant's message that follows words from the network in its turn (a network-sourced
    # tool result; OpenClaw's own turnTainted where the sender is not said to be another
    # person, whose turns OpenClaw marks tainted whatever they hold)
    tainted: bool = field(default=False, compare=False, repr=False)


@dataclass
class Segment:
    """One conversation. A 2026.9 ``reset`` event, or the end of a rotated file, closes one."""

    session_id: str
    index: int
    messages: list[Message]
    first_event_id: str | None
    last_event_id: str | None  # the closing reset event's id when a reset closed it
    closed: bool  # False only for the conversation still going on in a current session

    @property
    def has_user(self) -> bool:
        """True when the human said something (a cron or subagent run never does)."""
        return any(m.role == USER for m in self.messages)


@dataclass
class SessionRef:
    """Where one session's transcript lives."""

    agent_id: str
    session_id: str
    session_key: str | None
    layout: str  # "2026.2" | "2026.9" | "inline"
    path: Path | None  # transcript file (2026.2) or sqlite db (2026.9)
    updated_at: datetime | None

"""Daily journals (design §7.1): ``03 Journal/YYYY-MM-DD.md``, one per day of conversation.

The day is the entry's ``timestamp`` (when the conversation was extracted, in the zone of the
nightly briefing), never the day of the build. Facts and decisions go under Log (with their
detail), tasks under Todo, questions under Questions, handoffs under Sessions (the session's
first eight characters, the time, the summary); each with a link to its subject's page. A
correction says what it replaces: the old words and a link to the day they were on.
"""

from __future__ import annotations

from . import names
from .topics import replaces

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

    from .topics import Topic

SECTION_OF = {"fact": "Log", "decision": "Log", "task": "Todo", "question": "Questions",
              "handoff": "Sessions"}


def frontmatter(day: str) -> list[str]:
    return ["type: journal", "tags: [journals]", f"created: {day}"]


def headings() -> list[str]:
    return ["Log", "Todo", "Questions", "Sessions"]


def journal_items(entry: dict, moment: datetime, topic: Topic | None,
                  replaced: tuple[str, str | None] | None) -> list[tuple[str, str]]:
    """(section, item) of ``entry`` in its day's journal."""
    kind = entry.get("type")
    heading = SECTION_OF.get(kind)
    if heading is None:
        return []
    words = names.text(entry.get("content")) + names.marked(entry)
    about = f" ({topic.link()})" if topic is not None else ""
    fixed = replaces(replaced)
    if kind == "handoff":
        session = names.text(entry.get("session"), 40)[:8] or "session"
        return [(heading, f"- {session} — {moment.strftime('%H:%M')}\n  {words}{about}{fixed}")]
    if kind == "task":
        box = "x" if entry.get("status") == "done" else " "
        return [(heading, f"- [{box}] {words}{about}{fixed}")]
    detail = entry.get("detail") if kind != "question" else None
    more = f" — {names.text(detail, 300)}" if isinstance(detail, str) and detail.strip() else ""
    return [(heading, f"- {words}{more}{about}{fixed}")]

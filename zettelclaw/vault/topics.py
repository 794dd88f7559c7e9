"""Topic pages (design §7.1, §7.2): ``01 Notes/<name>.md``, one per subject.

The name comes from ``subjects.json``: the display name, made a valid file name
(:mod:`.names`), with the suffix of its type (a project's page is "<Display> Project"); a person
gets the contact template (a Contact section for the person to fill). Facts, decisions and
session summaries go under Log (dated), open tasks under Pending (a task done later comes as a
ticked line), questions under Open Questions; each links to its day's journal.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from . import layout, names


@dataclass
class Topic:
    slug: str
    display: str
    kind: str
    stem: str
    known: bool = False

    def link(self) -> str:
        return names.wikilink(layout.NOTES, self.stem, self.display)


def replaces(replaced: tuple[str, str | None] | None) -> str:
    """`` — replaces “old words” ([[03 Journal/day|day]])``: what a correction corrects."""
    if replaced is None:
        return ""
    words, day = replaced
    quoted = f"“{names.text(words, 200)}”" if words else "an earlier entry"
    where = f" ({names.wikilink(layout.JOURNAL, day, day)})" if day else ""
    return f" — replaces {quoted}{where}"


PLURAL = {"person": "people", "company": "companies"}


def tag(kind: str) -> str:
    clean = re.sub(r"[^a-z0-9-]+", "-", kind.lower()).strip("-") or "topic"
    return PLURAL.get(clean) or (clean if clean.endswith("s") else f"{clean}s")


def frontmatter(topic: Topic, day: str) -> list[str]:
    # json.dumps: a YAML double-quoted scalar, whatever the display name holds
    return [f"type: {_kind(topic.kind)}",
            f"tags: [{tag(topic.kind)}]", f"aliases: [{json.dumps(names.alias(topic.display))}]",
            f"subject: {json.dumps(topic.slug)}", f"created: {day}", f"updated: {day}"]


def _kind(kind: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", kind.lower()).strip("-") or "topic"


def headings(topic: Topic) -> list[str]:
    base = ["Log", "Pending", "Open Questions"]
    return ["Contact", *base] if topic.kind == "person" else base


def topic_items(entry: dict, day: str, replaced: tuple[str, str | None] | None
                ) -> list[tuple[str, str]]:
    """(section, item) of ``entry`` on its subject's page."""
    kind = entry.get("type")
    words = names.text(entry.get("content")) + names.marked(entry)
    journal = names.wikilink(layout.JOURNAL, day, day)
    fixed = replaces(replaced)
    if kind in ("fact", "decision"):
        return [("Log", f"- {day}: {words} ({journal}){fixed}")]
    if kind == "handoff":
        return [("Log", f"- {day}: session summary: {words} ({journal})")]
    if kind == "task":
        if entry.get("status") == "done":
            return [("Pending", f"- [x] {words} (done {journal}){fixed}")]
        return [("Pending", f"- [ ] {words} ({journal}){fixed}")]
    if kind == "question":
        return [("Open Questions", f"- {words} ({journal}){fixed}")]
    return []

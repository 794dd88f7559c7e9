"""A vault file as the build sees it: frontmatter, then ``## `` sections it appends to.

The build never rewrites a line that is there (design §7.3). New items go at the end of their
section: after its last non-blank line, before the next heading of level one or two or a ``---``
break. A section whose heading the person deleted comes back at the end of the file, holding
only the new items. The one line the build updates in place is ``updated:`` in frontmatter it
wrote itself (the date of the newest entry on a topic page).
"""

from __future__ import annotations

import re

_BREAK = re.compile(r"^(#{1,2}\s|(-\s*){3,}$|(\*\s*){3,}$|(_\s*){3,}$)")
_UPDATED = re.compile(r"^updated: (\d{4}-\d{2}-\d{2})\s*$")


def new_file(frontmatter: list[str], headings: list[str], breaks: tuple[str, ...] = ()) -> str:
    """A fresh file: the frontmatter, then every heading (``breaks``: headings after a
    ``---`` line, as the journal's Sessions), each section empty."""
    out = ["---", *frontmatter, "---"]
    for heading in headings:
        if heading in breaks:
            out += ["---"]
        out += [f"## {heading}", ""]
    return "\n".join(out) + "\n"


def _body_start(lines: list[str]) -> int:
    """The index of the first line after the frontmatter (0 when there is none)."""
    if lines and lines[0].rstrip() == "---":
        for i in range(1, len(lines)):
            if lines[i].rstrip() == "---":
                return i + 1
    return 0


def append(text: str, heading: str, items: list[str]) -> tuple[str, int]:
    """``text`` with ``items`` (each one line, or lines joined by newlines) at the end of the
    section ``## heading``; an item already in that section is not added again (a build cut
    short before it recorded its work). Returns the new text and how many items went in."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    start = _body_start(lines)
    at = next((i for i in range(start, len(lines))
               if lines[i].rstrip() == f"## {heading}"), None)
    if at is None:  # the heading is gone: the section comes back at the end
        if lines and lines[-1].strip():
            lines.append("\n")
        lines.append(f"## {heading}\n")
        at = len(lines) - 1
    end = at + 1
    while end < len(lines) and not _BREAK.match(lines[end]):
        end += 1
    section = "".join(lines[at:end])
    fresh = [item for item in dict.fromkeys(items) if f"{item}\n" not in section]
    if not fresh:
        return text, 0
    last = end
    while last > at + 1 and not lines[last - 1].strip():
        last -= 1
    new = [f"{item}\n" for item in fresh]
    if last == end and end < len(lines):
        new.append("\n")  # keep a blank line before the next heading
    lines[last:last] = new
    return "".join(lines), len(fresh)


def set_updated(text: str, day: str) -> str:
    """The frontmatter's ``updated:`` line moved on to ``day`` (when later than it says)."""
    lines = text.splitlines(keepends=True)
    end = _body_start(lines)
    for i in range(1, max(end - 1, 1)):
        match = _UPDATED.match(lines[i])
        if match and match.group(1) < day:
            lines[i] = f"updated: {day}\n"
            return "".join(lines)
    return text

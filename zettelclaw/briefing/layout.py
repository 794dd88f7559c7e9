"""The block between the markers: the sections in the design's order, fitted into ``maxLines``.

When there is more, sections give up items from their tails (the least busy, the oldest), the
longest section first, so every section keeps a fair share; a last line says how many items of
which kind were left out and which ``zettelclaw search`` lists them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..counts import count
from .sections import RECENT_DAYS, Snapshot

SECTIONS = (  # key, heading, what an item is, one and several (for the "not shown" line)
    ("active", "Active", ("active subject", "active subjects")),
    ("decisions", "Recent Decisions", ("recent decision", "recent decisions")),
    ("pending", "Pending", ("open task", "open tasks")),
    ("questions", "Open Questions", ("open question", "open questions")),
    ("standing", "Standing", ("standing preference or fact", "standing preferences and facts")),
    ("stale", "Stale", ("stale subject", "stale subjects")),
    ("contradictions", "Contradictions", ("contradiction", "contradictions")),
)


@dataclass
class Rendered:
    block: str
    max_lines: int
    shown: dict[str, int]
    dropped: dict[str, int] = field(default_factory=dict)

    @property
    def lines(self) -> int:
        return len(self.block.split("\n")) if self.block else 0


# the most items a section shows, however many lines are free (Standing: the preferences and
# facts that hold, a short list every session reads, not the year's facts)
CAPS = {"standing": 10}


def sizes(sections: dict) -> list[int]:
    """How many items each section (in SECTIONS' order) may show before the line limit."""
    return [min(len(sections.get(key, [])), CAPS.get(key, 1 << 30)) for key, _, _ in SECTIONS]


EMPTY = "Nothing to brief yet: no recent activity, open tasks or open questions in the log."


def _line_count(kept: list[int], trimmed: bool) -> int:
    used = [k for k in kept if k]
    lines = sum(k + 1 for k in used) + max(len(used) - 1, 0)
    if trimmed:
        lines += 2 if used else 1  # a blank line, then the "not shown" line
    return lines


def fit(sizes: list[int], max_lines: int) -> list[int]:
    """How many items of each section fit in ``max_lines``: sections are cut to one common
    cap, the longest first; spare lines go to the cut sections in display order."""
    if _line_count(sizes, False) <= max_lines:
        return list(sizes)
    low, high = 0, max(sizes)  # the largest cap that fits is in [low, high)
    while high - low > 1:
        mid = (low + high) // 2
        if _line_count([min(s, mid) for s in sizes], True) <= max_lines:
            low = mid
        else:
            high = mid
    kept = [min(s, low) for s in sizes]
    for i, size in enumerate(sizes):
        if kept[i] < size:
            kept[i] += 1
            if _line_count(kept, True) > max_lines:
                kept[i] -= 1
    return kept


def quiet_line(quiet: dict[str, int], days: int, unsure: int = 0, folded: int = 0
               ) -> str | None:
    """The one line that counts the open loops untouched for more than ``days`` days, and
    the links extraction was not sure of (``unsure``: `zettelclaw review` lists them; and
    ``folded``, those older than ``briefing.foldAsksAfter`` days, counted apart)."""
    parts = [count(quiet[key], *noun) for key, _, noun in SECTIONS if quiet.get(key)]
    said = []
    if parts:
        said.append(f"Quiet for more than {days} days: {', '.join(parts)} "
                    "(`zettelclaw review --quiet` closes or keeps them).")
    if unsure:
        said.append(f"{count(unsure, 'link')} to confirm: a close or correction the "
                    "conversation left unsure (`zettelclaw review`).")
    if folded:
        said.append(f"{count(folded, 'older link')} to confirm, no longer marked "
                    "(`zettelclaw review` still lists them).")
    return " ".join(said) or None


def render(sections: dict[str, list[str]], max_lines: int, hints: dict[str, str],
           quiet: str | None = None) -> Rendered:
    """The block between the markers (lines joined by ``\\n``, no final newline); ``quiet``,
    the line counting the quiet open loops, goes last when the limit leaves room for it."""
    if quiet is not None and max_lines < 3:
        quiet = None
    kept = fit(sizes(sections), max_lines - (2 if quiet else 0))
    out: list[str] = []
    shown, dropped = {}, {}
    for (key, heading, _), keep in zip(SECTIONS, kept, strict=True):
        size = len(sections.get(key, []))
        shown[key] = keep
        if size > keep:
            dropped[key] = size - keep
        if not keep:
            continue
        if out:
            out.append("")
        out.append(f"## {heading}")
        out.extend(f"- {item}" for item in sections[key][:keep])
    if dropped:
        parts = []
        for key, _, noun in SECTIONS:
            if key in dropped:
                hint = hints.get(key)
                more = _more_in(sections[key], kept[[k for k, _, _ in SECTIONS].index(key)])
                inside = "; ".join(p for p in (more, f"`{hint}`" if hint else "") if p)
                parts.append(count(dropped[key], *noun) + (f" ({inside})" if inside else ""))
        if out:
            out.append("")
        out.append(f"Not shown ({max_lines}-line limit): " + ", ".join(parts) + ".")
    if quiet:
        if out:
            out.append("")
        out.append(quiet)
    if not out and max_lines >= 1:
        out.append(EMPTY)
    return Rendered("\n".join(out), max_lines, shown, dropped)


MORE_SUBJECTS = 3  # subjects named in a section's "+N more in <subject>"


def _more_in(section, shown: int) -> str:
    """Where a section's items left out are: "+9 more in auth-migration, +2 more in garden"
    (the subjects with the most; the rest "+N more elsewhere"), "" when its items have no
    subjects to tell."""
    from .sections import name

    found = getattr(section, "subjects_after", None)
    counts = found(shown) if found is not None else []
    if not counts:
        return ""
    named = [f"+{n} more in {name(subject)}" if subject else f"+{n} more without a subject"
             for subject, n in counts[:MORE_SUBJECTS]]
    rest = sum(n for _, n in counts[MORE_SUBJECTS:])
    if rest:
        named.append(f"+{rest} more elsewhere")
    return ", ".join(named)


def search_hints(snapshot: Snapshot) -> dict[str, str]:
    def since(days: int) -> str:
        from ..clock import format_day

        return format_day(snapshot.cutoff(days))

    o = snapshot.options
    return {
        "active": f"zettelclaw search --since {since(o.active_window)}",
        "decisions": f"zettelclaw search --type decision --since {since(o.decision_window)}",
        "pending": "zettelclaw search --type task --status open",
        "questions": "zettelclaw search --type question",
        "stale": f"zettelclaw search --since {since(RECENT_DAYS)}",
        "standing": "zettelclaw search --type fact",
    }

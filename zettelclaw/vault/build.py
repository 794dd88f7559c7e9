"""``zettelclaw vault build``: render the log into each agent's vault, append-only (design §7).

One pass over the log; per agent, its current entries (:class:`~zettelclaw.resolve.Resolution`,
as the briefing reads them: a replaced, forgotten or purged entry is not rendered) that the
last build did not see become new lines of the day's journal and of the subject's topic page.
What was rendered is remembered in state.json (``vault``: per agent vault, how far into the log
the build went, the file name given to each subject and the journal days made), so a run adds
only lines for new entries, at the end of the right section, and never rewrites one that is
there: a person's edits stay. The state write is a compare-and-swap under the directory lock:
two builds at once do not both append the same lines.

A file the person deleted is not made again with its old lines: when a new entry belongs in it,
it comes back holding that entry only, and the build says so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..clock import format_day
from . import layout, markdown, names
from .journal import journal_items
from .topics import Topic, topic_items

STATE_SECTION = "vault"
WRITE_TRIES = 3


@dataclass
class Page:
    rel: str                      # path from the agent's vault root
    frontmatter: list[str]
    headings: list[str]
    breaks: tuple[str, ...] = ()
    items: dict[str, list[str]] = field(default_factory=dict)
    day: str = ""                 # the newest entry's day (a topic page's ``updated:``)
    known: bool = False           # an earlier build made it
    before: bytes | None = None   # the file as read (None: missing)
    after: str = ""
    added: int = 0

    @property
    def new(self) -> bool:
        return self.before is None


@dataclass
class Outcome:
    agent: str
    vault: Path
    pages: list[Page]
    record: dict
    entries: int = 0              # entries rendered
    undated: int = 0              # entries left out: their timestamp is unreadable
    notes: list[str] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)

    @property
    def created(self) -> list[Page]:
        return [p for p in self.pages if p.new and p.added]

    @property
    def changed(self) -> list[Page]:
        return [p for p in self.pages if not p.new and p.added]

    @property
    def lines(self) -> int:
        return sum(p.added for p in self.pages)


def build(vault_root: Path, agents: list[str] | None = None, *, dry_run: bool = False
          ) -> list[Outcome]:
    """Build the vault of each of ``agents`` (default: every agent with entries) under
    ``vault_root``; with ``dry_run`` nothing is written."""
    from .. import paths, state
    from ..errors import ZettelclawError
    from ..log import Log
    from ..subjects import _load_raw

    # with the records (forgets, their undos, purge tombstones): what they hide is not rendered
    entries = list(Log().entries(records=True))
    default = paths.default_agent()
    if agents is None:
        found = {paths.entry_agent(e, default) for e in entries}
        agents = [default, *sorted(found - {default})]
    registry = _load_raw()
    zone = layout.timezone()
    outcomes = []
    for agent in agents:
        try:
            vault = layout.agent_vault(vault_root, agent)
        except ZettelclawError:  # an agent id written by hand: no folder can be named after it
            continue
        key = str(vault)
        for _ in range(WRITE_TRIES):
            record = _record(state.State.load(), key)
            outcome = plan(vault, agent, entries, registry, record, zone, default)
            if dry_run:
                break
            with state.transaction() as current:
                if _record(current, key) != record:
                    continue  # another build ran meanwhile: plan again from what it did
                outcome.folders = layout.ensure_folders(vault)
                write(outcome)
                current.section(STATE_SECTION)[key] = outcome.record
            break
        else:
            raise ZettelclawError(f"the vault {vault} kept changing under another build; "
                                  "run `zettelclaw vault build` again")
        outcomes.append(outcome)
    return outcomes


def _record(state, key: str) -> dict:
    section = (state.__pydantic_extra__ or {}).get(STATE_SECTION)
    record = section.get(key) if isinstance(section, dict) else None
    return record if isinstance(record, dict) else {}


def _start(entries: list[dict], mark) -> int:
    """Where the entries the last build did not see begin: after the last id it saw."""
    if not (isinstance(mark, list) and len(mark) == 2 and type(mark[0]) is int):
        return 0
    seen, last = mark
    if 0 < seen <= len(entries) and entries[seen - 1].get("id") == last:
        return seen
    for pos in range(len(entries) - 1, -1, -1):  # lines were rewritten or dropped since
        if entries[pos].get("id") == last:
            return pos + 1
    return min(max(seen, 0), len(entries))


def plan(vault: Path, agent: str, entries: list[dict], registry: dict, record: dict, zone,
         default: str) -> Outcome:
    """What the build adds to each file of ``agent``'s vault (read from disk, not written)."""
    from .. import paths
    from ..resolve import Resolution

    start = _start(entries, record.get("mark"))
    mine, position = [], {}
    for pos, entry in enumerate(entries):
        if paths.entry_agent(entry, default) == agent:  # another agent's memory: never here
            mine.append(entry)
            position[id(entry)] = pos
    resolution = Resolution(mine)
    fresh = [e for e in resolution.current if position[id(e)] >= start]
    pages_of = record.get("pages")  # (a hand-edited state.json may hold anything)
    pages_of = {k: v for k, v in pages_of.items() if isinstance(v, str)} \
        if isinstance(pages_of, dict) else {}
    days = record.get("days")
    days = {d for d in days if isinstance(d, str)} if isinstance(days, list) else set()
    outcome = Outcome(agent=agent, vault=vault, pages=[], record={})
    topics = _Topics(vault, registry, pages_of)
    pages: dict[str, Page] = {}
    dated = []
    for entry in fresh:
        if not isinstance(entry.get("content"), str):
            continue  # no words to show (a purged entry's line keeps none)
        moment = _local(entry.get("timestamp"), zone)
        if moment is None:
            outcome.undated += 1
            continue
        dated.append((moment, position[id(entry)], entry))
    dated.sort(key=lambda item: (item[0], item[1]))
    for moment, _, entry in dated:
        day = format_day(moment)
        subject = _subject(entry, resolution)
        topic = topics.get(subject) if subject else None
        replaced = _replaced(entry, resolution, zone)
        journal = _journal_page(pages, day, day in days)
        for heading, item in journal_items(entry, moment, topic, replaced):
            journal.items.setdefault(heading, []).append(item)
        journal.day = max(journal.day, day)
        days.add(day)
        if topic is not None:
            page = _topic_page(pages, topic, day)
            for heading, item in topic_items(entry, day, replaced):
                page.items.setdefault(heading, []).append(item)
            page.day = max(page.day, day)
        outcome.entries += 1
    for page in pages.values():
        _prepare(vault, page)
        if page.new and page.known and page.added:
            outcome.notes.append(f"{page.rel} was deleted since the last build; made again "
                                 f"with the {page.added} new line(s) only")
    outcome.pages = sorted(pages.values(), key=lambda p: p.rel)
    last = entries[-1].get("id") if entries else None
    outcome.record = {"mark": [len(entries), last], "pages": topics.pages_of,
                      "days": sorted(days)}
    return outcome


def _local(stamp, zone):
    from ..clock import parse_ts

    moment = parse_ts(stamp)
    return moment.astimezone(zone) if moment is not None else None


def _subject(entry: dict, resolution) -> str | None:
    """The entry's subject; a correction without one keeps that of the entry it replaces."""
    seen = set()
    while True:
        subject = entry.get("subject")
        if isinstance(subject, str) and subject.strip():
            return subject.strip()
        target = entry.get("replaces")
        if not isinstance(target, str) or target in seen or target not in resolution.by_id:
            return None
        seen.add(target)
        entry = resolution.by_id[target]


def _replaced(entry: dict, resolution, zone) -> tuple[str, str | None] | None:
    """(its words or "", its journal day) of the entry ``entry`` replaces, when it has one.
    ``resolution`` holds this agent's entries only: no other agent's words can show here."""
    target = entry.get("replaces")
    old = resolution.by_id.get(target) if isinstance(target, str) else None
    if old is None or old is entry:
        return None
    moment = _local(old.get("timestamp"), zone)
    content = old.get("content")
    return (content if isinstance(content, str) else "",
            format_day(moment) if moment is not None else None)


class _Topics:
    """Each subject's page: the file name given to it once and kept (remembered in state)."""

    def __init__(self, vault: Path, registry: dict, pages_of: dict):
        self.registry = registry
        self.pages_of = pages_of
        self.taken = {str(stem).casefold() for stem in pages_of.values()}
        self.folder = vault / layout.NOTES
        try:  # a person's own note in 01 Notes is never appended to
            for name in os.listdir(self.folder):
                if name.endswith(".md") and name[:-3] not in pages_of.values():
                    self.taken.add(name[:-3].casefold())
        except OSError:
            pass
        self.cache: dict[str, Topic] = {}

    def get(self, slug: str) -> Topic:
        if slug in self.cache:
            return self.cache[slug]
        from ..subjects import DEFAULT_TYPE, display_name

        info = self.registry.get(slug)
        info = info if isinstance(info, dict) else {}
        display = info.get("display") if isinstance(info.get("display"), str) else None
        display = display or display_name(slug)
        kind = info.get("type") if isinstance(info.get("type"), str) else DEFAULT_TYPE
        stem = self.pages_of.get(slug)
        known = isinstance(stem, str) and names.file_stem(stem) == stem
        if not known and self._made_for(names.file_stem(display), slug):
            stem, known = names.file_stem(display), True  # a build cut short made it
            self.pages_of[slug] = stem
        if not known:
            stem = names.distinct(names.file_stem(display), self.taken)
            self.taken.add(stem.casefold())
            self.pages_of[slug] = stem
        topic = Topic(slug=slug, display=display, kind=kind, stem=stem, known=known)
        self.cache[slug] = topic
        return topic


    def _made_for(self, stem: str, slug: str) -> bool:
        """Whether ``01 Notes/<stem>.md`` is this subject's page, made by a build that was
        cut short before it recorded it (its frontmatter names the subject)."""
        import json

        from ..errors import ZettelclawError
        from ..fsutil import read_bytes

        try:
            head = (read_bytes(self.folder / f"{stem}.md") or b"")[:4096]
        except (OSError, ZettelclawError):  # a symlink or worse: not ours
            return False
        return f"\nsubject: {json.dumps(slug)}\n".encode() in head.split(b"\n---", 1)[0]


def _journal_page(pages: dict, day: str, known: bool) -> Page:
    from .journal import frontmatter, headings

    rel = f"{layout.JOURNAL}/{day}.md"
    if rel not in pages:
        pages[rel] = Page(rel=rel, frontmatter=frontmatter(day), headings=headings(),
                          breaks=("Sessions",), known=known)
    return pages[rel]


def _topic_page(pages: dict, topic: Topic, day: str) -> Page:
    from .topics import frontmatter, headings

    rel = f"{layout.NOTES}/{topic.stem}.md"
    if rel not in pages:
        pages[rel] = Page(rel=rel, frontmatter=frontmatter(topic, day),
                          headings=headings(topic), known=topic.known)
    return pages[rel]


def _prepare(vault: Path, page: Page) -> None:
    """Read the page as it is and compute what it becomes (``page.after``, ``page.added``)."""
    from ..fsutil import read_bytes

    path = _inside(vault, page.rel)
    page.before = read_bytes(path)
    if page.before is None:
        text = markdown.new_file(page.frontmatter, page.headings, page.breaks)
    else:
        text = page.before.decode("utf-8", "replace")
    added = 0
    for heading in page.headings:
        if page.items.get(heading):
            text, n = markdown.append(text, heading, page.items[heading])
            added += n
    if page.day:
        text = markdown.set_updated(text, page.day)
    page.after, page.added = text, added


def _inside(vault: Path, rel: str) -> Path:
    """``vault/rel``, checked to stay inside the vault's folder (a name holds no separator, but
    the check does not rely on it)."""
    from ..errors import RefusedFile

    path = vault / rel
    folder = os.path.realpath(vault / rel.split("/", 1)[0])
    if (os.path.dirname(os.path.normpath(str(path))) != os.path.normpath(
            str(vault / rel.split("/", 1)[0])) or os.path.dirname(
            os.path.realpath(path)) != folder
            or not folder.startswith(os.path.realpath(vault) + os.sep)):
        raise RefusedFile(f"refused: {rel} would be written outside the vault {vault}")
    return path


def write(outcome: Outcome) -> None:
    """Write each page that gains lines: a compare-and-swap against the bytes read, so a
    person's edit saved meanwhile is read again, never overwritten."""
    from ..errors import ZettelclawError
    from ..fsutil import compare_and_swap

    for page in outcome.pages:
        if not page.added:
            continue
        path = _inside(outcome.vault, page.rel)
        for _ in range(WRITE_TRIES):
            if compare_and_swap(path, page.after.encode("utf-8"), page.before or b""):
                break
            _prepare(outcome.vault, page)  # edited meanwhile: append to the new text
            if not page.added:
                break
        else:
            raise ZettelclawError(f"{path} kept changing while the vault was built; "
                                  "run `zettelclaw vault build` again")

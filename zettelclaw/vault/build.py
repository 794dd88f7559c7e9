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
    ``vault_root``; with ``dry_run`` nothing is written.

    When every vault built has a record whose place in the log still holds the line it last
    saw, only the lines after the earliest such place are parsed (:class:`_Reading`): a build
    after one new entry costs that entry, not the history."""
    from .. import paths, statefile
    from ..errors import ZettelclawError
    from ..subjects import _load_raw

    default = paths.default_agent()
    section = statefile.section(statefile.load(), STATE_SECTION)
    reading = _Reading.since(vault_root, agents, section, default)
    if agents is None:
        agents = [default, *sorted(reading.agents - {default})]
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
            record = _record(statefile.section(statefile.load(), STATE_SECTION), key)
            if not reading.covers(record):  # another build moved it meanwhile: read it all
                reading = _Reading.whole(default)
            outcome = plan(vault, agent, reading, registry, record, zone, default)
            if dry_run:
                break
            # the record holds the vault's file names and days, on disk in the vault already:
            # no secret to redact, and redacting them all would cost what the history weighs
            with statefile.transaction(STATE_SECTION, redact=False) as current:
                if _record(current, key) != record:
                    continue  # another build ran meanwhile: plan again from what it did
                outcome.folders = layout.ensure_folders(vault)
                write(outcome)
                current[key] = outcome.record
            break
        else:
            raise ZettelclawError(f"the vault {vault} kept changing under another build; "
                                  "run `zettelclaw vault build` again")
        outcomes.append(outcome)
    return outcomes


@dataclass
class _Reading:
    """The log's lines a build parses: all of them, or those after ``base`` (a byte offset
    where a line starts, ``count`` lines in, the last of them ``last``), with what the build
    needs of the lines before looked up by id in the raw bytes (:meth:`lookup`)."""

    entries: list[dict]           # with records (forgets, undos, tombstones), oldest first
    offsets: list[int]            # where each entry's line starts
    data: bytes                   # the log as read
    default: str
    count: int = 0                # lines (entries and records) before ``base``
    base: int = 0                 # where the first line parsed starts (0: the whole log)
    last: str | None = None       # the id on the line before ``base``
    agents: set[str] = field(default_factory=set)  # agents with entries in the whole log

    @classmethod
    def whole(cls, default: str) -> _Reading:
        from .. import paths

        reading = cls._parse(_read_log(), 0, default)
        reading.agents = {paths.entry_agent(e, default) for e in reading.entries}
        return reading

    @classmethod
    def _parse(cls, data: bytes, base: int, default: str) -> _Reading:
        from ..log import Log

        entries, offsets = [], []
        for pos, entry in Log().located(lines=_lines(data, base), records=True):
            entries.append(entry)
            offsets.append(pos)
        return cls(entries, offsets, data, default, base=base)

    @classmethod
    def since(cls, vault_root: Path, agents: list[str] | None, section: dict,
              default: str) -> _Reading:
        """The lines after the earliest place the vaults to build last saw, when every one of
        them has such a place and it still holds the line it saw; else the whole log."""
        from ..errors import ZettelclawError
        from ..log import agents_in

        data = _read_log()
        wanted = agents_in(data, default) if agents is None else set(agents)
        if wanted is None:
            return cls.whole(default)
        marks = []
        for agent in wanted:
            try:
                key = str(layout.agent_vault(vault_root, agent))
            except ZettelclawError:
                continue  # no vault can be made for it: not built
            record = section.get(key)
            mark = _mark(record, data) if isinstance(record, dict) and \
                record.get("agent") == agent else None
            if mark is None:
                return cls.whole(default)
            marks.append(mark)
        if not marks:
            return cls.whole(default)
        count, base, last = min(marks, key=lambda m: m[1])
        reading = cls._parse(data, base, default)
        reading.count, reading.last, reading.agents = count, last, wanted
        return reading

    def covers(self, record: dict) -> bool:
        """Whether the lines parsed include everything after ``record``'s place."""
        if not self.base:
            return True
        mark = _mark(record, self.data)
        return mark is not None and mark[1] >= self.base

    def start(self, record: dict) -> int:
        """The index in :attr:`entries` of the first entry ``record``'s build did not see."""
        if not self.base:
            return _start(self.entries, record.get("mark"))
        from bisect import bisect_left

        return bisect_left(self.offsets, record["mark"][2])

    def lookup(self, entry_id: str, agent: str) -> dict | None:
        """The entry ``entry_id`` of ``agent`` before the lines parsed (the last line that
        holds it), or None (unknown, another agent's, or no entry: a tombstone)."""
        from .. import paths
        from ..log import line_at, parse_line

        needle = b'"id":' + _json_string(entry_id)
        at = self.data.rfind(needle, 0, self.base)
        while at >= 0:
            entry = parse_line(line_at(self.data, at))
            if entry is not None and entry["id"] == entry_id:
                return entry if paths.entry_agent(entry, self.default) == agent else None
            at = self.data.rfind(needle, 0, at)
        return None

    def mark(self) -> list:
        """A record's place after this build: lines seen, the id on the last, where it ends
        (a later build parses only what follows, once it has checked that line is there)."""
        if not self.entries:
            return [self.count, self.last, self.base]
        end = self.data.find(b"\n", self.offsets[-1]) + 1
        return [self.count + len(self.entries), self.entries[-1].get("id"),
                end or len(self.data)]


def _read_log() -> bytes:
    from .. import paths
    from ..fsutil import read_bytes

    try:
        return read_bytes(paths.log_path()) or b""
    except OSError:
        return b""


def _json_string(text: str) -> bytes:
    import orjson

    return orjson.dumps(text)


def _lines(data: bytes, base: int):
    """(offset, line) of the lines of ``data`` from ``base`` on."""
    pos, end = base, len(data)
    while pos < end:
        stop = data.find(b"\n", pos)
        stop = end if stop < 0 else stop + 1
        yield pos, data[pos:stop]
        pos = stop


def _mark(record, data: bytes) -> tuple[int, int, str] | None:
    """(lines seen, byte offset, last id) of a record's place when the line that ends at that
    offset is the one it last saw, else None (no place kept, or the log was rewritten since)."""
    mark = record.get("mark") if isinstance(record, dict) else None
    if not (isinstance(mark, list) and len(mark) == 3 and type(mark[0]) is int
            and type(mark[2]) is int and 0 < mark[2] <= len(data)
            and isinstance(mark[1], str)):
        return None
    count, last, offset = mark
    if data[offset - 1:offset] != b"\n":
        return None
    from ..log import parse_known

    line = parse_known(data[data.rfind(b"\n", 0, offset - 1) + 1:offset])
    if line is None or line.get("id") != last:
        return None
    return count, offset, last


def _record(section: dict, key: str) -> dict:
    """The record of one agent vault in state.json's ``vault`` section ({} when none)."""
    record = section.get(key)
    return record if isinstance(record, dict) else {}


def _start(entries: list[dict], mark) -> int:
    """Where the entries the last build did not see begin: after the last id it saw."""
    if not (isinstance(mark, list) and len(mark) in (2, 3) and type(mark[0]) is int):
        return 0
    seen, last = mark[0], mark[1]
    if 0 < seen <= len(entries) and entries[seen - 1].get("id") == last:
        return seen
    for pos in range(len(entries) - 1, -1, -1):  # lines were rewritten or dropped since
        if entries[pos].get("id") == last:
            return pos + 1
    return min(max(seen, 0), len(entries))


def plan(vault: Path, agent: str, reading: _Reading, registry: dict, record: dict, zone,
         default: str) -> Outcome:
    """What the build adds to each file of ``agent``'s vault (read from disk, not written)."""
    from .. import paths
    from ..resolve import Resolution

    entries = reading.entries
    start = reading.start(record)
    mine, position = [], {}
    for pos, entry in enumerate(entries):
        if paths.entry_agent(entry, default) == agent:  # another agent's memory: never here
            mine.append(entry)
            position[id(entry)] = pos
    resolution = Resolution(mine)
    fresh = [e for e in resolution.current if position[id(e)] >= start]
    if reading.base:  # what the fresh entries replace, from before the lines parsed
        _look_up_replaced(resolution, fresh, reading, agent)
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
    outcome.record = {"mark": reading.mark(), "agent": agent, "pages": topics.pages_of,
                      "days": sorted(days)}
    return outcome


def _look_up_replaced(resolution, fresh: list[dict], reading: _Reading, agent: str) -> None:
    """Add to ``resolution.by_id`` the entries before the lines parsed that the fresh ones
    replace, down their chains (a correction's subject and replaced words come from them)."""
    todo = [e.get("replaces") for e in fresh]
    seen = set()
    while todo:
        target = todo.pop()
        if not isinstance(target, str) or target in resolution.by_id or target in seen:
            continue
        seen.add(target)
        found = reading.lookup(target, agent)
        if found is not None:
            resolution.by_id[target] = found
            todo.append(found.get("replaces"))


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

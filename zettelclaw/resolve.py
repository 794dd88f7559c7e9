"""Replacement resolution (design §3.3): which entries are current.

A correction is a new entry whose ``replaces`` names an older id. The resolver reads forward:
an entry is replaced when a *later* line replaces it. Reading forward makes chains work
(A <- B <- C: only C is current) and makes cycles harmless: in ``A replaces B`` followed by
``B replaces A`` only the second replacement points backwards in the file, so A is hidden and
B stays. A ``replaces`` naming an id that does not exist hides nothing. An id written again (a line
duplicated by hand, a merge that kept both sides) is one entry: its first line stands, the
others are not read.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # (pathlib costs a per-turn command more than Python's start)
    from collections.abc import Iterable
    from pathlib import Path


class Resolution:
    """Replacement map over entries held in memory (briefing, history, small logs).

    Given records too (``Log.entries(records=True)``: forgets, their undos, purge tombstones),
    it hides what they hide: a forget replaces the current version of what it forgets (an undo
    takes it back), a tombstone is a known id whose own ``replaces`` still counts. ``entries``
    and ``by_id`` hold the entries alone; ``current`` the entries nothing hides.
    """

    def __init__(self, entries: list[dict]):
        self.entries: list[dict] = []
        self.by_id: dict[str, dict] = {}
        self.position: dict[str, int] = {}
        # old id -> the id of the latest entry after it that replaces it
        self.replaced_by: dict[str, str] = {}
        # the records: id -> forget (with its undo, if any) or tombstone
        self.records: dict[str, dict] = {}
        self.undone: set[str] = set()  # forgets taken back
        self._replacers: dict[str, list[str]] = {}
        self._count = 0
        for entry in entries:
            self._add(entry)
        self.current = [e for e in self.entries if e["id"] not in self.replaced_by]

    def _add(self, entry: dict) -> None:
        if entry["id"] in self.position:
            return  # a line repeated by hand (its id written again): the first one stands
        target = entry.get("replaces")
        if target is None and "purged" not in entry:  # most lines: an entry, hiding nothing
            self.entries.append(entry)
            self.by_id[entry["id"]] = entry
            self.position[entry["id"]] = self._count
            self._count += 1
            return
        from .log import UNFORGET, record_kind

        kind = record_kind(entry)
        if kind == UNFORGET:
            self.position[entry["id"]] = self._count
            self._count += 1
            forget = self.records.get(target)
            if forget is not None and forget.get("type") == "forget" \
                    and target not in self.undone:
                self.undone.add(target)
                hidden = forget["replaces"]
                replacers = self._replacers.get(hidden, [])
                if target in replacers:
                    replacers.remove(target)
                if replacers:
                    self.replaced_by[hidden] = replacers[-1]
                else:
                    self.replaced_by.pop(hidden, None)
            return
        if isinstance(target, str) and target in self.position and target != entry["id"]:
            self.replaced_by[target] = entry["id"]
            self._replacers.setdefault(target, []).append(entry["id"])
        if kind is None:
            self.entries.append(entry)
            self.by_id[entry["id"]] = entry
        else:
            self.records[entry["id"]] = entry
        self.position[entry["id"]] = self._count
        self._count += 1

    def add(self, entry: dict) -> None:
        """``entry`` appended after everything known (``current`` is not updated)."""
        self._add(entry)

    def gone(self, entry_id: str) -> dict | None:
        """The forget or purge tombstone that ends ``entry_id``'s chain (the thing was
        forgotten or purged), else None."""
        seen = set()
        while entry_id in self.replaced_by and entry_id not in seen:
            seen.add(entry_id)
            entry_id = self.replaced_by[entry_id]
        return self.records.get(entry_id)

    @classmethod
    def build(cls, entries: Iterable[dict]) -> Resolution:
        return cls(list(entries))

    @classmethod
    def of_log(cls, path: Path | None = None, *, agents: frozenset[str] | None = None,
               default_agent: str | None = None) -> Resolution:
        """The log's entries of ``agents`` (None: every agent's), with the records that hide
        some of them: ``current`` is what a reader may show (nothing forgotten or purged)."""
        from . import paths
        from .log import Log

        default = default_agent or (paths.default_agent() if agents is not None else "")
        return cls([e for e in Log(path or paths.log_path()).entries(records=True)
                    if agents is None or paths.entry_agent(e, default) in agents])

    def is_replaced(self, entry_id: str) -> bool:
        return entry_id in self.replaced_by

    def latest(self, entry_id: str) -> dict | None:
        """The current version of ``entry_id``: follow replacements to the end of the chain."""
        seen = set()
        while entry_id in self.replaced_by and entry_id not in seen:
            seen.add(entry_id)
            entry_id = self.replaced_by[entry_id]
        return self.by_id.get(entry_id)

    def history(self, entry_id: str) -> list[dict]:
        """The chain ``entry_id`` belongs to, oldest first: back along ``replaces`` to where
        it started, forward along the latest replacement of each version to the current one.

        Every member of a chain gives the same answer. A log forked before ``write`` and
        extraction refused forks (two corrections of one entry, two current heads) answers per
        line: each head shows its own way back to the root; the root and the entries before
        the fork go on to the latest correction.
        """
        if entry_id not in self.by_id:
            return []
        back = []
        at = entry_id
        seen = {at}
        while True:
            target = self.by_id[at].get("replaces")
            if (not isinstance(target, str) or target in seen or target not in self.by_id
                    or self.position[target] >= self.position[at]):
                break
            seen.add(target)
            back.append(self.by_id[target])
            at = target
        chain = back[::-1] + [self.by_id[entry_id]]
        at = entry_id
        while (at in self.replaced_by and self.replaced_by[at] not in seen
               and self.replaced_by[at] in self.by_id):
            at = self.replaced_by[at]
            seen.add(at)
            chain.append(self.by_id[at])
        return chain


class StreamingResolution:
    """The same rule without holding the log in memory.

    It knows where each id is named by a ``"replaces"`` (byte offsets, from one pass over the
    raw bytes: :meth:`scan` with a regular expression, or ripgrep's output in
    :mod:`zettelclaw.rank`); the caller streams the log with positions (``Log.located``) and
    asks :meth:`replaced_by` for each entry. Only when a later line names an entry is that line
    read and parsed, to check that it is a valid entry that really replaces it: a torn line,
    or ``"replaces"`` inside some other text, hides nothing.
    """

    def __init__(self, path: Path, named_at: dict[str, list[int]] | None = None, *,
                 data=None, parse=None):
        self.path = path
        # id -> offsets of the "replaces" naming it: a dict, or ripgrep.Named (rg's output)
        self.named_at = named_at if named_at is not None else {}
        self._map = data  # the log's bytes (an mmap) when the caller has them: else mapped
        self._parse = parse  # bytes -> entry or None (default: log.parse_line)

    @classmethod
    def scan(cls, path: Path) -> StreamingResolution:
        """One pass over ``path``: :func:`replaces_in` over whole-line blocks."""
        from .log import Log

        named_at: dict[str, list[int]] = {}
        for base, block, end in Log(path, warn=False).blocks():
            for at, target in replaces_in(block, end):
                named_at.setdefault(target, []).append(base + at)
        return cls(path, named_at)

    def is_named(self, entry_id: str) -> bool:
        """Whether any line names ``entry_id`` in a ``"replaces"`` (cheap; not yet checked)."""
        return entry_id in self.named_at

    def positions(self, entry_id: str, after: int = -1) -> list[int]:
        """Offsets of the ``"replaces"`` naming ``entry_id`` (at least those after ``after``)."""
        return self.named_at.get(entry_id, [])

    def replaced_by(self, entry_id: str, position: int) -> str | None:
        """The latest valid entry after ``position`` (an offset within or at the end of the
        entry's line, e.g. its start from ``Log.located``) that replaces ``entry_id``."""
        found = self.replacer(entry_id, position)
        return found[1]["id"] if found is not None else None

    def replacer(self, entry_id: str, position: int) -> tuple[int, dict] | None:
        """:meth:`replaced_by`'s entry, with an offset inside its line (a position to ask
        about it in turn: this walks a chain to its head). The line may be a record: a forget
        (not taken back by a later undo) or a purge tombstone hides the entry as a correction
        does."""
        later = [at for at in self.positions(entry_id, position) if at > position]
        for at in sorted(later, reverse=True):
            replacer = self._entry_at(at)
            if (replacer is not None and replacer.get("replaces") == entry_id
                    and replacer["id"] != entry_id):
                if replacer.get("type") == "forget" and self._undone(replacer, at):
                    continue
                return at, replacer
        return None

    def _undone(self, forget: dict, at: int) -> bool:
        """Whether a later undo takes ``forget`` (its line at ``at``) back."""
        if not self.is_named(forget["id"]):
            return False
        found = self.replacer(forget["id"], at)
        return found is not None and found[1].get("type") == "unforget"

    def head(self, entry: dict, position: int) -> dict:
        """The current version of ``entry`` (at ``position``): follow its chain to the end
        (a forget or a tombstone when the thing was forgotten or purged: see :func:`gone`)."""
        seen = {entry["id"]}
        while (found := self.replacer(entry["id"], position)) is not None:
            position, entry = found
            if entry["id"] in seen:
                break
            seen.add(entry["id"])
        return entry

    def gone(self, entry: dict, position: int) -> dict | None:
        """The forget or purge tombstone ending ``entry``'s chain, else None."""
        if not self.is_named(entry["id"]):
            return None
        head = self.head(entry, position)
        return head if head is not entry and gone_kind(head) else None

    def _entry_at(self, at: int) -> dict | None:
        import mmap

        from .log import line_at, parse_known

        parse_line = self._parse if self._parse is not None else parse_known
        if self._map is None:
            from .fsutil import open_read

            with open_read(self.path) as fh:
                self._map = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        data = self._map
        line = line_at(data, at)
        found = parse_line(line)
        return found if found is not None or parse_line is parse_known else parse_known(line)


def gone_kind(line: dict) -> str | None:
    """``"forgotten"`` for a forget, ``"purged"`` for a tombstone, else None."""
    if line.get("type") == "forget":
        return "forgotten"
    if "purged" in line and "content" not in line:
        return "purged"
    return None


def mark(entry: dict, replacer: dict) -> None:
    """What ``--all`` shows of a hidden ``entry``: ``replacedBy`` the correction, or
    ``forgotten`` with the time of the forget."""
    kind = gone_kind(replacer)
    if kind == "forgotten":
        entry["forgotten"] = replacer.get("timestamp")
    else:  # a correction (kept hidden when it was purged since)
        entry["replacedBy"] = replacer["id"]


# what may stand between "replaces", its colon and the id (``\s`` of a bytes pattern)
_SPACE = frozenset(b" \t\n\r\f\v")


def replaces_in(block: bytes, end: int | None = None):
    """``(offset, id)`` of each ``"replaces": "id"`` in ``block[:end]``, compact or with spaces:
    what ``re.finditer(rb'"replaces"\\s*:\\s*"([^"\\\\]{1,200})"')`` finds, by ``bytes.find`` (in
    C) and a few byte checks, so a per-turn command does not import ``re``."""
    stop = len(block) if end is None else end
    at = block.find(b'"replaces"', 0, stop)
    while at != -1:
        i = _skip_space(block, at + 10, stop)
        if i < stop and block[i] == 0x3A:  # ':'
            i = _skip_space(block, i + 1, stop)
            if i < stop and block[i] == 0x22:  # '"'
                close = block.find(b'"', i + 1, min(stop, i + 202))
                target = block[i + 1:close]
                if close > i + 1 and 0x5C not in target:  # no backslash: "\"" ends nothing
                    yield at, target.decode("utf-8", "replace")
                    at = block.find(b'"replaces"', close + 1, stop)
                    continue
        at = block.find(b'"replaces"', at + 1, stop)


def _skip_space(block: bytes, i: int, stop: int) -> int:
    while i < stop and block[i] in _SPACE:
        i += 1
    return i

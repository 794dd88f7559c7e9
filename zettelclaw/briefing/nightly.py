"""The nightly run: build tonight's briefing (without writing), then write MEMORY.md and remember
what the model judged."""

from __future__ import annotations

from dataclasses import dataclass, field

from .contradictions import (
    MAX_CONTRADICTIONS,
    STATE_SECTION,
    Judgement,
    _recent_flags,
    _remembered,
    expired,
    judge_new,
    record_of,
)
from .digest import read
from .layout import Rendered, quiet_line, render, search_hints
from .memory_md import _memory_path, _read_memory, check_markers, splice, swap_in
from .options import Options

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


@dataclass
class Result:
    block: str
    memory: Path
    before: bytes
    after: bytes
    rendered: Rendered
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    judged: dict[str, str | bool] = field(default_factory=dict)  # pair key -> record
    flagged: list[str] = field(default_factory=list)  # keys flagged tonight
    settled: set[str] = field(default_factory=set)  # replaced ids: their pairs are forgotten
    expired: set[str] = field(default_factory=set)  # judged pairs no night can ask about again
    usage: object = None  # model.Usage of the contradiction check, when the model was asked

    @property
    def changed(self) -> bool:
        return self.before != self.after


def _no_key() -> bool:
    from ..credentials import find

    return find() is None


NO_KEY_NOTE = ("ANTHROPIC_API_KEY is not set and OpenClaw stores no Anthropic key, so no "
               "new contradictions were looked for; "
               "every other section is complete (--no-llm skips this note)")


def build(options: Options, log_path: Path | None = None) -> Result:
    """Everything ``brief`` would write, without writing it."""
    memory = _memory_path(options)
    before = _read_memory(memory)
    check_markers(memory, before)  # broken markers: fail before any model call

    snapshot = _snapshot(options, log_path)
    notes: list[str] = []
    records = _remembered()
    flags = _recent_flags(records, snapshot)
    judgement = Judgement()  # the model not asked: nothing judged
    if options.use_model and _no_key():
        notes.append(NO_KEY_NOTE)
    elif options.use_model and len(flags) < MAX_CONTRADICTIONS:
        judgement = judge_new(snapshot, options, set(records), flags)
    snapshot.sections["contradictions"] = [p.line() for p in flags]
    rendered = render(snapshot.sections, options.max_lines, search_hints(snapshot),
                      quiet_line(snapshot.quiet, options.quiet_after, snapshot.unsure,
                                 snapshot.folded))
    after = splice(before, rendered.block)
    return Result(rendered.block, memory, before, after, rendered, notes, judgement.warnings,
                  judgement.judged, judgement.flagged, snapshot.replaced,
                  expired(records, snapshot), judgement.usage)


def _snapshot(options: Options, log_path: Path | None):
    """:func:`.digest.read`, with the texts it can show read now (from the kept rows, a
    row whose line moved means the log was edited in place: then read it all again)."""
    from .rows import Moved

    try:
        snapshot = read(options, log_path)
        _mark_unsure(snapshot, *_unsure(snapshot, options, log_path))
        _read_shown(snapshot, options)
    except Moved:
        snapshot = read(options, log_path, trust=False)
        _mark_unsure(snapshot, *_unsure(snapshot, options, log_path))
    snapshot.full.strict = False  # an entry asked for later is looked up by id
    return snapshot


UNSURE_NOTES = {"pending": "maybe done", "questions": "maybe answered"}
MARKED_ASKS = 3  # the briefing marks the loops of at most this many links to confirm a night


def _mark_unsure(snapshot, links: int, folded: int, asked: set[str]) -> None:
    """The count of links to confirm, for the quiet line (and of those folded); and a mark on
    each Pending or Open Questions line that one of the newest MARKED_ASKS may close ("... —
    maybe done: `zettelclaw review`"): a person said something is done, nothing told which,
    and the briefing does not list it as surely open."""
    from .sections import Shown

    snapshot.unsure, snapshot.folded = links, folded
    for key, note in UNSURE_NOTES.items():
        shown = snapshot.sections.get(key)
        if not asked or not isinstance(shown, Shown):
            continue

        def line(item, made=shown.line, note=note) -> str:
            mark = f" — {note}: `zettelclaw review`" if item[1].get("id") in asked else ""
            return made(item) + mark

        shown.line = line


def _read_shown(snapshot, options: Options) -> None:
    """Make the lines that tonight's block can show (without a contradiction flag, which only
    takes room): what :func:`.layout.render` will keep of each section."""
    from .layout import SECTIONS, fit, sizes

    sections = snapshot.sections
    quiet = quiet_line(snapshot.quiet, options.quiet_after, snapshot.unsure, snapshot.folded)
    room = options.max_lines - (2 if quiet is not None and options.max_lines >= 3 else 0)
    keep = fit(sizes(sections), room)
    for (key, _, _), n in zip(SECTIONS, keep, strict=True):
        sections[key][:n]  # made now: a moved line is found before any model call


def _unsure(snapshot, options: Options, log_path: Path | None = None
            ) -> tuple[int, int, set[str]]:
    """The links to confirm (`zettelclaw review`, :meth:`zettelclaw.review.Loops.unsure`):
    how many of the briefed agent's current entries have a ``may_replace`` that may still
    close an entry (:func:`zettelclaw.review.still_asked`), said within the last
    ``foldAsksAfter`` days; how many older (folded: counted, no longer marked); and the ids the
    newest MARKED_ASKS of the others may close. The lines holding the field, or the review's
    session, alone are read (:meth:`~zettelclaw.log.Log.located`'s needle)."""
    from ..clock import format_ts, sort_key
    from ..corrections import asked_of
    from ..log import Log
    from ..review import SESSION, answers, still_asked

    log = Log(log_path, warn=False)
    if not log.exists():
        return 0, 0, set()
    fold_key = sort_key(format_ts(snapshot.cutoff(options.fold_asks_after)))
    left = snapshot.replaced | snapshot.gone
    by_review = answers(entry for _, entry in log.located(needle=f'"{SESSION}"'.encode()))
    found: list[tuple[str, list[str]]] = []
    folded = 0
    for _, entry in log.located(needle=b'"may_replace"'):
        if options.agent is not None \
                and (entry.get("agent") or options.default_agent) != options.agent:
            continue
        ids = asked_of(entry)
        if not ids or entry["id"] in left:
            continue
        still = still_asked(ids, by_review=by_review, replaced=snapshot.replaced.__contains__,
                            gone=snapshot.gone.__contains__)
        if not still:
            continue
        said = sort_key(entry.get("timestamp"))
        if said < fold_key:
            folded += 1
        else:
            found.append((said, still))
    found.sort(key=lambda pair: pair[0], reverse=True)
    asked = {i for _, still in found[:MARKED_ASKS] for i in still}
    return len(found), folded, asked


def agents_with_entries(log_path: Path | None = None) -> list[str]:
    """The agents that have entries in the log, the default agent first (alone when the log
    is empty). Told from the raw bytes (:func:`~zettelclaw.log.agents_in`), not a parse of
    every line, unless an agent id holds an escape."""
    from .. import paths
    from ..fsutil import read_bytes
    from ..log import Log, agents_in

    default = paths.default_agent()
    log = Log(log_path, warn=False)
    try:
        found = agents_in(read_bytes(log.path) or b"", default, records=False)
    except OSError:
        found = None
    if found is None:
        found = {default}
        for entry in log.entries():
            found.add(paths.entry_agent(entry, default))
    return [default, *sorted(found - {default})]


def write(result: Result) -> bool:
    """Write MEMORY.md (atomically, from a fresh read) and remember tonight's judgments.

    Returns whether MEMORY.md changed. Raises MarkerError, changing nothing, when someone broke
    the markers since :func:`build` read the file. The write is a compare-and-swap
    (:func:`.memory_md.swap_in`): a line appended to MEMORY.md meanwhile is not lost.
    """
    changed = swap_in(result.memory, result.block, result.before, result.after)
    if result.judged or result.usage or result.expired:
        _remember(result)
    return changed


def _remember(result: Result) -> None:
    """Tonight's judgments and the model's tokens, in state.json; the judged pairs no night
    can ask about again go (a side replaced since, forgotten or purged, or expired), and
    every record is kept in its short form (see :func:`.contradictions.record_of`)."""
    from ..state import transaction

    with transaction() as state:
        if result.judged or result.expired:
            section = state.section(STATE_SECTION)
            section.update(result.judged)
            for key in list(section):
                record = record_of(section[key])
                if record is None or key in result.expired \
                        or result.settled.intersection(key.split(">")):
                    del section[key]  # a side replaced since (settled), gone or expired
                else:
                    section[key] = record
        if result.usage:  # the model's tokens count with extraction's in `stats`
            totals = state.section("usage")
            totals.update((type(result.usage).from_dict(totals) + result.usage).as_dict())
            totals["briefings"] = _count(totals.get("briefings")) + 1


def _count(value) -> int:
    from ..state import count

    return count(value)

"""``zettelclaw review``: the open tasks and questions, oldest first; close, drop or keep them
(each close a correction in the log; ``review undo`` opens them again)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._options import AgentOption, JsonOption, SenderOption, SessionKeyOption, complete_subject
from .subjects import DryRunOption, YesOption, _confirm

QuietOption = Annotated[bool, typer.Option(
    "--quiet", help="Only the loops untouched for more than briefing.quietAfter days (30): "
                    "those the briefing counts instead of listing.")]
TypeOption = Annotated[Optional[str], typer.Option(
    "--type", metavar="task|question", help="Only open tasks, or only open questions.",
    show_default=False)]
SubjectOption = Annotated[Optional[str], typer.Option(
    "--subject", "-s", help="Only the loops about this subject.",
    autocompletion=complete_subject, show_default=False)]
IdsArgument = Annotated[Optional[list[str]], typer.Argument(
    metavar="[ID]...", help="The loops (any version of a corrected one names it).",
    show_default=False)]
AllOption = Annotated[bool, typer.Option(
    "--all", help="Every open loop `zettelclaw review` lists with the same filters (given "
                  "before the subcommand).")]


def register(app: typer.Typer) -> None:
    review = typer.Typer(invoke_without_command=True)
    app.add_typer(review, name="review")

    @review.callback()
    def default(ctx: typer.Context, quiet: QuietOption = False, type_: TypeOption = None,
                subject: SubjectOption = None, agent: AgentOption = None,
                as_json: JsonOption = False) -> None:
        """The open tasks and questions, oldest first, with when each was last touched; a
        quiet one (untouched for more than briefing.quietAfter days) is marked. `review close`
        and `review drop` end them in bulk, `review undo` opens them again; keeping one
        writes nothing. On a terminal, `review walk` asks about each in turn.
        """
        if ctx.invoked_subcommand is not None:
            ctx.obj = {"quiet": quiet, "type": type_, "subject": subject, "agent": agent}
            return
        from ..render import emit_json_lines, want_json

        found = _loops(agent)
        loops = found.open(kind=_kind(type_), subject=subject, quiet=quiet)
        unsure = [] if quiet or type_ or subject else found.unsure()
        if want_json(as_json):
            closers: dict[str, list[dict]] = {}
            for entry, targets in unsure:
                for target in targets:
                    closers.setdefault(target["id"], []).append(
                        {"id": entry["id"], "content": entry.get("content")})
            emit_json_lines({**loop.row(), **({"may_be_closed_by": closers[loop.entry["id"]]}
                                              if loop.entry["id"] in closers else {})}
                            for loop in loops)
            if unsure:
                _unsure(unsure)
            return
        if not loops and not unsure:
            typer.echo("No open tasks or questions" + (" quiet for long." if quiet else "."),
                       err=True)
            return
        if loops:
            _table(loops)
            typer.echo(f"{_count(len(loops), 'open loop')}; close: zettelclaw review close "
                       "ID..., drop: zettelclaw review drop ID...", err=True)
        if unsure:
            _unsure(unsure)

    def act(ctx: typer.Context, action: str, ids, every: bool, answer, dry_run: bool,
            yes: bool, as_json: bool, session_key=None, sender_is_owner=None) -> None:
        from ..errors import UsageError
        from ..people import caller

        scope = ctx.obj or {}
        if not ids and not every:
            raise UsageError(f"name what to {action}: loop ids, or --all with filters")
        loops = _loops(scope.get("agent"), caller(session_key, sender_is_owner))
        listed = loops.open(kind=_kind(scope.get("type")), subject=scope.get("subject"),
                            quiet=bool(scope.get("quiet"))) if every else None
        _run(loops.plan(action, list(ids or []), every=listed, answer=answer),
             dry_run=dry_run, yes=yes, as_json=as_json)

    @review.command()
    def close(ctx: typer.Context, ids: IdsArgument = None, every: AllOption = False,
              answer: Annotated[Optional[str], typer.Option(
                  "--answer", help="The answer that settles one question (stored as the fact "
                                   "that replaces it).", show_default=False)] = None,
              dry_run: DryRunOption = False, yes: YesOption = False,
              as_json: JsonOption = False, session_key: SessionKeyOption = None,
              sender_is_owner: SenderOption = None) -> None:
        """Close open loops: a task becomes done, a question a fact that settles it (--answer)
        or says it was closed without an answer. Each is a correction appended to the log;
        `review undo ID...` opens them again. Filters go before the word:
        `zettelclaw review --quiet close --all`.
        """
        act(ctx, "close", ids, every, answer, dry_run, yes, as_json, session_key,
            sender_is_owner)

    @review.command()
    def drop(ctx: typer.Context, ids: IdsArgument = None, every: AllOption = False,
             dry_run: DryRunOption = False, yes: YesOption = False,
             as_json: JsonOption = False, session_key: SessionKeyOption = None,
             sender_is_owner: SenderOption = None) -> None:
        """Drop open loops nobody will do or answer: a task becomes done, its detail saying
        "Dropped in review, not done."; a question a fact "Dropped: ...". Each is a correction
        appended to the log; `review undo ID...` opens them again.
        """
        act(ctx, "drop", ids, every, None, dry_run, yes, as_json, session_key, sender_is_owner)

    @review.command()
    def undo(ctx: typer.Context, ids: IdsArgument = None, dry_run: DryRunOption = False,
             yes: YesOption = False, as_json: JsonOption = False,
             session_key: SessionKeyOption = None,
             sender_is_owner: SenderOption = None) -> None:
        """Open again loops that review closed or dropped (the ids it printed, or any version
        of their chains): one more correction each, the loop as it was."""
        from ..people import caller

        loops = _loops((ctx.obj or {}).get("agent"), caller(session_key, sender_is_owner))
        _run(loops.plan_undo(list(ids or [])), dry_run=dry_run, yes=yes, as_json=as_json)

    @review.command()
    def untrusted(ctx: typer.Context, as_json: JsonOption = False) -> None:
        """The untrusted entries: another person's words, or what the assistant repeated of a
        web page or a search, each with its person and the session it came from. They are
        never put before a prompt nor in MEMORY.md; `review confirm ID...` makes one the
        owner's, `zettelclaw forget ID...` drops it."""
        from ..render import emit_json_lines, want_json

        found = _loops((ctx.obj or {}).get("agent")).untrusted()
        if want_json(as_json):
            emit_json_lines(found)
            return
        if not found:
            typer.echo("No untrusted entries.", err=True)
            return
        for entry in found:
            typer.echo(_untrusted_line(entry))
        typer.echo(f"{_count(len(found), 'untrusted entry')}; confirm: zettelclaw review "
                   "confirm ID..., drop: zettelclaw forget ID...", err=True)

    @review.command()
    def confirm(ctx: typer.Context, ids: IdsArgument = None, dry_run: DryRunOption = False,
                yes: YesOption = False, as_json: JsonOption = False,
                session_key: SessionKeyOption = None,
                sender_is_owner: SenderOption = None) -> None:
        """Confirm untrusted entries: each becomes the owner's own memory (a correction with
        the same words, origin owner), put before prompts and in MEMORY.md from then on. The
        owner's alone: refused in another person's session, and in the owner's session when
        OpenClaw says the sender is not the owner (--session-key, --sender-not-owner: the
        agent's tool)."""
        from ..errors import UsageError
        from ..people import OWNER, caller

        person = caller(session_key, sender_is_owner)
        if person not in (None, OWNER):
            raise UsageError("refused: only the owner confirms an untrusted entry")
        loops = _loops((ctx.obj or {}).get("agent"), person)
        _run(loops.plan_confirm(list(ids or [])), dry_run=dry_run, yes=yes, as_json=as_json)

    @review.command()
    def walk(ctx: typer.Context) -> None:
        """Ask about each open loop in turn, oldest first (on a terminal): keep, close, drop,
        or stop; what you chose is written in one go at the end, with the line that undoes
        it. Filters go before the word: `zettelclaw review --quiet walk`."""
        from ..errors import UsageError
        from .subjects import _on_terminal

        if not _on_terminal():
            raise UsageError("review walk asks at a terminal; off one, use `review close` or "
                             "`review drop` with ids or --all")
        scope = ctx.obj or {}
        loops = _loops(scope.get("agent"))
        chosen: dict[str, list[str]] = {"close": [], "drop": []}
        answered: list[tuple[str, str]] = []  # (question id, its answer), each closed alone
        kind, subject, quiet = _kind(scope.get("type")), scope.get("subject"), \
            bool(scope.get("quiet"))
        listed = loops.open(kind=kind, subject=subject, quiet=quiet)
        if not listed:
            _nothing_to_walk(loops, kind, subject, quiet)
            return
        for number, loop in enumerate(listed, 1):
            typer.echo(f"[{number}/{len(listed)}] {_line(loop)}", err=True)
            choice = _ask()
            if choice == "stop":
                break
            answer = _ask_answer() if choice == "close" and \
                loop.entry["type"] == "question" else None
            if answer:
                answered.append((loop.entry["id"], answer))
            elif choice in chosen:
                chosen[choice].append(loop.entry["id"])
        written = []
        for action, ids in chosen.items():
            if ids:
                written += _write(loops.plan(action, ids), rebrief=False)
        for entry_id, answer in answered:
            written += _write(loops.plan("close", [entry_id], answer=answer), rebrief=False)
        _rebrief(written)  # once for both: one briefing rewritten, said once
        closed = len(chosen["close"]) + len(answered)
        kept = len(listed) - closed - len(chosen["drop"])
        typer.echo(f"Closed {closed}, dropped {len(chosen['drop'])}, "
                   f"left {kept} open" + _undo_hint(written), err=True)


def _ask() -> str:
    answers = {"k": "keep", "c": "close", "d": "drop", "s": "stop", "q": "stop"}
    while True:
        try:
            said = typer.prompt("  [k]eep, [c]lose, [d]rop, [s]top", default="k",
                                show_default=False, err=True)
        except typer.Abort:  # end of input or Ctrl-C: stop, keep what was chosen
            return "stop"
        choice = answers.get(said.strip().lower()[:1])
        if choice is not None:
            return choice


def _ask_answer() -> str:
    """The answer that closes a question (stored as the fact replacing it); empty: closed
    without one, and the fact says so."""
    try:
        said = typer.prompt("  its answer (empty: close it without one)", default="",
                            show_default=False, err=True)
    except typer.Abort:
        return ""
    said = " ".join(said.split())
    if not said:
        typer.echo("  closed without an answer", err=True)
    return said


def _loops(agent, person: str | None = None):
    from .. import clock, paths
    from ..briefing import Options
    from ..review import Loops

    return Loops(agents=paths.agent_scope(agent), default=paths.default_agent(),
                 quiet_after=Options.resolve(use_model=False).quiet_after, now=clock.now(),
                 person=person)


def _kind(type_: str | None) -> str | None:
    from ..errors import UsageError

    if type_ is not None and type_ not in ("task", "question"):
        raise UsageError(f"--type {type_!r}: review walks tasks and questions")
    return type_


def _run(done, *, dry_run: bool, yes: bool, as_json: bool) -> None:
    from ..render import emit_json_lines, want_json

    for note in done.notes:
        typer.echo(f"note: {note}", err=True)
    verb = {"close": "close", "drop": "drop", "undo": "open again",
            "confirm": "confirm"}[done.action]
    noun = "entry" if done.action == "confirm" else "loop"
    plan = [f"Would {verb} {_count(len(done.loops), noun)}:",
            *(f"  {_line_of(e)}" for e in done.loops)]
    if dry_run or not done.loops:
        if want_json(as_json):
            emit_json_lines(done.lines)
        elif done.loops:
            typer.echo("\n".join(plan))
        if not done.loops:
            typer.echo(f"Nothing to {verb}.", err=True)
        return
    _confirm(yes, plan, f"{verb.capitalize()}?")
    written = _write(done)
    done_verb = {"close": "Closed", "drop": "Dropped", "undo": "Opened again",
                 "confirm": "Confirmed"}[done.action]
    said = f"{done_verb} {_count(len(written), noun)}" + _whose(done.loops) + (
        "" if done.action == "confirm" else _undo_hint(written))
    if want_json(as_json):  # the corrections appended; the summary for the person
        emit_json_lines(written)
        typer.echo(said, err=True)
        return
    typer.echo(said)


def _nothing_to_walk(loops, kind, subject, quiet: bool) -> None:
    """A walk with no loop to ask about says why: none open, or (``--quiet``) none quiet,
    with how many are open."""
    if not quiet:
        typer.echo("No open tasks or questions.", err=True)
        return
    from ..briefing import Options

    open_ = len(loops.open(kind=kind, subject=subject, quiet=False))
    days = Options.resolve(use_model=False).quiet_after
    if not open_:
        typer.echo("No open tasks or questions.", err=True)
        return
    typer.echo(f"Nothing is quiet: {'the' if open_ == 1 else 'all'} "
               f"{_count(open_, 'open loop')} {'was' if open_ == 1 else 'were'} touched in the "
               f"last {days} days (briefing.quietAfter); `zettelclaw review walk` walks "
               f"{'it' if open_ == 1 else 'them'}.", err=True)


def _write(done, *, rebrief: bool = True) -> list[dict]:
    from ..review import apply

    written = apply(done)
    if rebrief:
        _rebrief(written)
    return written


def _rebrief(written: list[dict]) -> None:
    from ..forget import owed, rebrief

    # with any briefing an earlier forget or review close killed after its append owes
    owes = sorted(owed())
    for note in rebrief(written, agents=owes) if written or owes else []:
        typer.echo(note if note.startswith("warning:") else f"note: {note}", err=True)


def _undo_hint(written: list[dict]) -> str:
    closes = [line["id"] for line in written if line["type"] == "fact"
              or line.get("status") == "done"]
    return f"; undo: zettelclaw review undo {' '.join(closes)}" if closes else ""


def _count(n: int, noun: str) -> str:
    if n != 1 and noun.endswith("entry"):
        return f"{n} {noun[:-1]}ies"
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _untrusted_line(entry: dict) -> str:
    return _line_of(entry)


def _line(loop) -> str:
    quiet = ", quiet" if loop.quiet else ""
    return f"{_line_of(loop.entry)} (touched {loop.touched[:10]}{quiet})"


def _line_of(entry: dict) -> str:
    """An entry's line, marked with whose it is when it is not the owner's own
    (``[person: telegram:123]``) and when it is untrusted."""
    from ..display import printable
    from ..people import mark
    from .forget import _line as entry_line

    marked = mark(entry)
    return entry_line(entry) + (f" {printable(marked)}" if marked else "")


def _whose(entries: list[dict]) -> str:
    """What a close says of the loops that were not the owner's: whose they were."""
    from ..display import printable
    from ..people import OWNER, person_of

    others: dict[str, int] = {}
    for entry in entries:
        if person_of(entry) != OWNER:
            others[person_of(entry)] = others.get(person_of(entry), 0) + 1
    if not others:
        return ""
    whose = [f"{person}'s" if len(entries) == 1 else f"{n} {person}'s"
             for person, n in others.items()]
    return printable(f" ({', '.join(whose)}, not yours)")


def _unsure(pairs: list[tuple[dict, list[dict]]]) -> None:
    """The links extraction was not sure of, each with the command that makes it."""
    typer.echo(f"{_count(len(pairs), 'link')} to confirm (extraction kept these apart: "
               "the conversation may be about another entry that says the same):", err=True)
    for entry, targets in pairs:
        loop = targets[0]["type"] in ("question", "task")
        verb = "close" if loop else "replace"
        command = "zettelclaw review close" if loop else "zettelclaw forget"
        if len(targets) == 1:
            typer.echo(f"  {_line_of(entry)}\n    may {verb} {_line_of(targets[0])}\n"
                       f"    if so: {command} {targets[0]['id']}", err=True)
            continue
        typer.echo(f"  {_line_of(entry)}\n    may {verb} one of these (if so: {command} ID, "
                   "the one it is):", err=True)
        for target in targets:
            typer.echo(f"      {_line_of(target)}", err=True)


def _table(loops) -> None:
    from rich.table import Table

    from ..people import OWNER, person_of
    from ..render import cell, console

    # whose each loop is, when not every one is the owner's own: the owner closes only what
    # they mean to (a neighbour's task is hers)
    people = any(person_of(loop.entry) != OWNER for loop in loops)
    table = Table(header_style="bold")
    for column in ("id", "date", "type", "subject", *(("person",) if people else ()),
                   "touched", "content"):
        table.add_column(column)
    for loop in loops:
        e = loop.entry
        whose = (cell("yours" if person_of(e) == OWNER else person_of(e),
                      "" if person_of(e) == OWNER else "bold"),) if people else ()
        table.add_row(cell(e["id"]), cell(str(e.get("timestamp", ""))[:10]), cell(e["type"]),
                      cell(e.get("subject") or ""), *whose,
                      cell(loop.touched[:10] + (" quiet" if loop.quiet else ""),
                           "dim" if loop.quiet else ""),
                      cell(e.get("content", "")))
    console().print(table)

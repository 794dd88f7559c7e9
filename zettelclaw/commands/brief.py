"""``zettelclaw brief``: rewrite the generated briefing in MEMORY.md (design §5)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def brief(
        active_window: Annotated[Optional[int], typer.Option(
            "--active-window", min=1, metavar="DAYS",
            help="Active: subjects with entries in the last DAYS days (default: "
                 "briefing.activeWindow in the plugin config, else 14).",
            show_default=False)] = None,
        decision_window: Annotated[Optional[int], typer.Option(
            "--decision-window", min=1, metavar="DAYS",
            help="Recent Decisions: decisions of the last DAYS days (default: "
                 "briefing.decisionWindow, else 7).", show_default=False)] = None,
        stale_threshold: Annotated[Optional[int], typer.Option(
            "--stale-threshold", min=1, metavar="DAYS",
            help="Stale: subjects back in the last 7 days after more than DAYS days of "
                 "silence (default: briefing.staleThreshold, else 30).",
            show_default=False)] = None,
        quiet_after: Annotated[Optional[int], typer.Option(
            "--quiet-after", min=1, metavar="DAYS",
            help="Pending and Open Questions leave out open loops untouched for more than "
                 "DAYS days, counted on one line (default: briefing.quietAfter, else 30).",
            show_default=False)] = None,
        max_lines: Annotated[Optional[int], typer.Option(
            "--max-lines", min=1, metavar="N",
            help="At most N lines between the markers (default: briefing.maxLines, else 80).",
            show_default=False)] = None,
        model: Annotated[Optional[str], typer.Option(
            "--model", help="Model that judges contradiction candidates (default: "
                            "briefing.model, else extraction.model).", show_default=False)] = None,
        no_llm: Annotated[bool, typer.Option(
            "--no-llm", help="No model call: no new contradiction flags, every other section "
                             "as usual.")] = False,
        dry_run: Annotated[bool, typer.Option(
            "--dry-run", help="Print the change to MEMORY.md as a unified diff; write "
                              "nothing.")] = False,
        print_: Annotated[bool, typer.Option(
            "--print", help="Print the generated block only; write nothing.")] = False,
        now: Annotated[Optional[str], typer.Option(
            "--now", metavar="TIME",
            help="Brief as of TIME (2026-02-27, an ISO time): entries written after it are "
                 "left out.", show_default=False)] = None,
        agent: Annotated[Optional[str], typer.Option(
            "--agent", metavar="ID",
            help="Brief this OpenClaw agent only, into its workspace's MEMORY.md (default: "
                 "every agent that has entries, each into its own).", show_default=False)] = None,
        no_vault: Annotated[bool, typer.Option(
            "--no-vault", help="Do not build the vault afterwards (built when the plugin "
                               "config sets vault.path).")] = False,
    ) -> None:
        """Rewrite MEMORY.md's generated block from the log; the rest of the file stays as is.

        Sections: Active, Recent Decisions, Pending, Open Questions, Stale, Contradictions.

        Only new contradiction flags need the model (without a key anywhere: a note).
        Each agent's entries go into its own workspace's MEMORY.md; --workspace
        (OPENCLAW_WORKSPACE_DIR) names the default agent's, or that of the one --agent.

        When the plugin config sets vault.path, the vault is built next (`zettelclaw vault
        build`): the nightly job keeps it up to date.
        """
        from .. import briefing, paths
        from ..errors import UsageError, ZettelclawError

        if dry_run and print_:
            raise UsageError("--dry-run and --print do not go together")
        options = briefing.Options.resolve(
            active_window=active_window, decision_window=decision_window,
            stale_threshold=stale_threshold, quiet_after=quiet_after, max_lines=max_lines,
            model=model,
            use_model=not no_llm, now=_moment(now))
        options.default_agent = paths.default_agent()
        agents = [paths.own_agent(agent)] if agent else briefing.agents_with_entries()
        from ..rebriefing import owed, settled

        # a forget or a review close killed after its append: this briefing settles its debt
        debts = {} if dry_run or print_ or now is not None else owed()
        failed = []
        for one in agents:
            options.agent, options.single = one, len(agents) == 1
            label = f"agent {one}: " if len(agents) > 1 else ""
            try:  # one agent's trouble does not cost the others their briefing
                _brief_one(briefing, options, dry_run=dry_run, print_=print_, label=label)
                if one in debts:
                    settled({one: debts[one].get("token")})
            except briefing.MissingWorkspace as exc:  # an agent OpenClaw has not set up (yet)
                typer.echo(f"note: {label}{'would not be' if dry_run else 'not'} briefed: "
                           f"{exc}", err=True)
            except ZettelclawError as exc:
                if options.single:
                    raise
                typer.echo(f"warning: {label}{exc}", err=True)
                failed.append(one)
        if failed:
            raise ZettelclawError(f"the briefing of {', '.join(failed)} failed (see above); "
                                  "the other agents' were written")
        if not (dry_run or print_ or no_vault):
            _build_vault(agent)


def _build_vault(agent: str | None) -> None:
    """After the briefing, the vault (design §7) when the plugin config sets ``vault.path``."""
    from ..errors import ZettelclawError
    from ..vault import configured_root
    from .vault import run

    if configured_root() is None:
        return
    try:
        run(None, agent=agent, rows_out=False)
    except ZettelclawError as exc:
        raise ZettelclawError(f"the briefing was written, the vault was not: {exc}") from None


def _brief_one(briefing, options, *, dry_run: bool, print_: bool, label: str) -> None:
    result = briefing.build(options)
    for note in result.notes:
        typer.echo(f"note: {label}{note}", err=True)
    for warning in result.warnings:
        typer.echo(f"warning: {label}{warning}", err=True)
    if print_:
        if result.block:
            typer.echo(result.block)
        return
    if dry_run:
        if result.after != result.before and not result.memory.parent.is_dir():
            raise briefing.MissingWorkspace(result.memory.parent)  # as the write would
        diff = _diff(result)
        if diff:
            typer.echo(diff, nl=False)
        else:
            typer.echo(f"No change to {result.memory}.", err=True)
        return
    changed = briefing.write(result)
    typer.echo(_summary(result, changed), err=True)


def _moment(text: str | None):
    if text is None:
        return None
    from ..query import parse_when

    return parse_when(text, end_of_day=False)


def _diff(result) -> str:
    import difflib

    def lines(data: bytes) -> list[str]:
        return data.decode("utf-8", "replace").splitlines(keepends=True)

    name = str(result.memory)
    out = []
    for line in difflib.unified_diff(lines(result.before), lines(result.after),
                                     fromfile=name, tofile=name):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _summary(result, changed: bool) -> str:
    from ..briefing import SECTIONS
    from ..counts import count

    shown = result.rendered.shown
    parts = [count(shown[key], *noun) for key, _, noun in SECTIONS if shown.get(key)]
    what = ", ".join(parts) if parts else "nothing to brief"
    head = f"Briefing written to {result.memory}" if changed else \
        f"Briefing unchanged in {result.memory}"
    tail = ""
    dropped = sum(result.rendered.dropped.values())
    if dropped:
        tail = f"; {dropped} more left out to stay within {result.rendered.max_lines} lines"
    return f"{head}: {result.rendered.lines} lines ({what}){tail}."

"""``zettelclaw sweep``: extract every main session not yet extracted up to its end."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._options import JsonOption, TextOption, parse_window


def register(app: typer.Typer) -> None:
    @app.command()
    def sweep(
        agent: Annotated[Optional[str], typer.Option(
            "--agent", help="Only this OpenClaw agent.", show_default=False)] = None,
        since: Annotated[Optional[str], typer.Option(
            "--since", help="Only sessions updated since: 2026-02-20, an ISO time, 7d / 12h.",
            show_default=False)] = None,
        concurrency: Annotated[int, typer.Option(
            "--concurrency", "-j", min=1, max=64, help="Sessions extracted at once.")] = 4,
        retry_failed: Annotated[bool, typer.Option(
            "--retry-failed", help="Also retry sessions whose extraction failed for good.")
        ] = False,
        dry_run: Annotated[bool, typer.Option(
            "--dry-run", help="List what would be extracted; no model call, no writes.")
        ] = False,
        gateway_start: Annotated[Optional[str], typer.Option(
            "--gateway-start", metavar="TIME",
            help="When the gateway started (ISO time; the plugin passes it on gateway_start): "
                 "an open conversation quiet since before then was cut off by a crash or stop "
                 "and is extracted now, not after 30 minutes.", show_default=False)] = None,
        as_json: JsonOption = False,
        text: TextOption = False,
    ) -> None:
        """Find and extract every session in both OpenClaw layouts that needs it.

        A progress bar on a terminal; one summary line at the end (sessions extracted,
        skipped, failed; entries; tokens): text on a terminal or with --text, JSON piped or
        with --json. No OpenClaw
        state directory: an error, exit 1; an --agent OpenClaw does not know: exit 2.
        """
        from ..render import emit_json, want_json
        from ..sweep import sweep as run_sweep

        as_json = not text and want_json(as_json)

        def report(result) -> None:
            if result.status == "failed":
                typer.echo(f"failed: {result.message}", err=True)
            elif result.status == "dry-run":
                typer.echo(result.message, err=as_json)
            for why in result.held:  # the run and its dry run hold alike, and say so
                typer.echo(f"held: {result.session_id}: {why}", err=True)

        started = None
        if gateway_start:
            from ..clock import parse_ts
            from ..errors import UsageError

            started = parse_ts(gateway_start)
            if started is None:
                raise UsageError(f"--gateway-start {gateway_start!r} is not an ISO time")
        summary = run_sweep(agent=agent, since=parse_window(since), concurrency=concurrency,
                            retry_failed=retry_failed, dry_run=dry_run, on_result=report,
                            gateway_start=started)
        from ..sweep import clock_note

        for one, stamp in summary.ahead.items():  # never skipped in silence
            typer.echo(f"note: {clock_note(one, stamp, set_back=not dry_run and not since)}",
                       err=True)
        if as_json:
            emit_json(summary.as_dict())
        else:
            typer.echo(summary.line())
        if summary.failed:
            raise typer.Exit(1)

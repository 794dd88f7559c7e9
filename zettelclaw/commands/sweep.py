"""``zettelclaw sweep``: extract every main session not yet extracted up to its end."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._options import JsonOption, parse_window


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
        as_json: JsonOption = False,
    ) -> None:
        """Find and extract every session in both OpenClaw layouts that needs it.

        A progress bar on a terminal; one summary line at the end (sessions extracted,
        skipped, failed; entries; tokens). --json prints the summary as JSON.
        """
        from ..render import emit_json
        from ..sweep import sweep as run_sweep

        def report(result) -> None:
            if result.status == "failed":
                typer.echo(f"failed: {result.message}", err=True)
            elif result.status == "dry-run":
                typer.echo(result.message, err=as_json)

        summary = run_sweep(agent=agent, since=parse_window(since), concurrency=concurrency,
                            retry_failed=retry_failed, dry_run=dry_run, on_result=report)
        if as_json:
            emit_json(summary.as_dict())
        else:
            typer.echo(summary.line())
        if summary.failed:
            raise typer.Exit(1)

"""``zettelclaw export``: the current entries as JSON Lines, CSV or Markdown."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from ._options import AgentOption


def register(app: typer.Typer) -> None:
    @app.command()
    def export(
        fmt: Annotated[Optional[str], typer.Option(
            "--format", "-f", metavar="jsonl|csv|md",
            help="jsonl (the stored objects), csv (a header, one row per entry) or md (by "
                 "subject, for reading). Default: the --output file's suffix, else jsonl.",
            show_default=False)] = None,
        output: Annotated[Optional[Path], typer.Option(
            "--output", "-o", metavar="FILE",
            help="Write FILE (atomically; a new file gets mode 0600) instead of stdout.",
            show_default=False)] = None,
        force: Annotated[bool, typer.Option(
            "--force", help="Replace --output when it exists.")] = False,
        agent: AgentOption = None,
        include_replaced: Annotated[bool, typer.Option(
            "--all", help="Every version, replaced and forgotten ones too, marked as "
            "`search --all` marks them (replacedBy, forgotten); log order.")] = False,
    ) -> None:
        """Write the current entries, for backing up or leaving: JSON Lines, CSV or Markdown.

        The entries are the agent's current ones, as `brief` reads them (`--all`: every
        version). JSON Lines and CSV keep log order; Markdown groups by subject, oldest
        conversation first. An existing --output is replaced only with --force; a file inside
        the log directory is refused.

        Examples: `zettelclaw export | gzip > memory.jsonl.gz`;
        `zettelclaw export --format csv --output memory.csv`;
        `zettelclaw export -o memory.md --agent all`.
        """
        from .. import clock, paths
        from ..display import printable
        from ..export import entries, format_for, render

        chosen = format_for(fmt, output)
        if output is not None:  # refused before the log is read
            from ..export import check_output

            check_output(output, force=force)
        scope = paths.agent_scope(agent)
        items = entries(scope, paths.default_agent(), include_replaced=include_replaced)
        who = "every agent" if scope is None else ", ".join(sorted(scope))
        data = render(items, chosen, title=f"zettelclaw memory: {who}",
                      now=clock.format_ts(clock.now()))
        if output is None:
            if chosen != "jsonl" and sys.stdout.isatty():  # text on a terminal: no escapes run
                data = printable(data.decode("utf-8")).encode("utf-8")
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
            return
        from ..export import write_output

        target = write_output(data, output, force=force)
        count = len(items)
        typer.echo(f"{count} {'entry' if count == 1 else 'entries'} written to {target} "
                   f"({chosen})", err=True)

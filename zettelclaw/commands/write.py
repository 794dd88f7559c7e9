"""``zettelclaw write``: a human-authored entry (design principle 5: the human is the authority)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._options import (
    JsonOption,
    complete_subject,
    complete_type,
    read_stdin_if_dash,
    text_command,
)


def register(app: typer.Typer) -> None:
    @app.command(cls=text_command())
    def write(
        type_: Annotated[str, typer.Argument(
            metavar="TYPE", help="task, fact, decision, question or handoff.",
            autocompletion=complete_type)],
        content: Annotated[str, typer.Argument(
            help="The entry itself, one sentence or so; - reads it from stdin. Text that starts "
                 "with a dash is text: `zettelclaw write fact \"-5 degrees outside\"`.")],
        detail: Annotated[Optional[str], typer.Option(
            help="Why, background, constraints (content and detail: at most 4,000 characters "
                 "each).")] = None,
        subject: Annotated[Optional[str], typer.Option(
            "--subject", "-s", help="Subject slug (added if new).",
            autocompletion=complete_subject)] = None,
        status: Annotated[Optional[str], typer.Option(
            help="For tasks: open (default) or done.")] = None,
        replaces: Annotated[Optional[str], typer.Option(
            help="Id of the entry this one corrects.")] = None,
        session: Annotated[str, typer.Option(help="Session to record.")] = "manual",
        agent: Annotated[Optional[list[str]], typer.Option(
            "--agent", metavar="ID",
            help="The OpenClaw agent whose entry it is (default: OpenClaw's default agent); "
                 "of several ids, the first; not all.", show_default=False)] = None,
        as_json: JsonOption = False,
    ) -> None:
        """Append one entry to the log; --replaces corrects an older one.

        --replaces with an id that was already corrected corrects the current version of
        that chain (said on stderr). A correction keeps the subject, and a task its status,
        unless given. An entry identical to a current one (same type, subject, status and
        content, ignoring case, spacing and trailing punctuation) is not written again: the
        existing one is printed, exit 0.

        Content from stdin: `git log -1 --format=%B | zettelclaw write fact - -s release`.
        """
        from .. import paths
        from ..render import emit_json, want_json
        from ..writer import write_or_find

        content = read_stdin_if_dash(content, "content")
        entry, written = write_or_find(type_, content, detail=detail, subject=subject,
                                       status=status, replaces=replaces, session=session,
                                       agent=paths.own_agent(agent))
        if want_json(as_json):
            emit_json(entry)  # a duplicate: the entry already in the log
        else:
            typer.echo(f"{'Wrote' if written else 'Already stored'} {entry['type']} "
                       f"{entry['id']}")

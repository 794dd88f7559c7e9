"""``zettelclaw doctor``: check that OpenClaw uses zettelclaw as its memory, and say how to fix."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._options import JsonOption, TextOption


def register(app: typer.Typer) -> None:
    @app.command()
    def doctor(
        as_json: JsonOption = False,
        text: TextOption = False,
        openclaw: Annotated[Optional[str], typer.Option(
            "--openclaw", metavar="PATH",
            help="The openclaw executable. Default: $OPENCLAW_BIN, then `openclaw` on PATH.",
            show_default=False)] = None,
    ) -> None:
        """Check that OpenClaw uses zettelclaw as its memory and say how to fix what is not.

        Checks the log directory, plugin, config, skill, MEMORY.md markers and size against
        OpenClaw's bootstrap limit, the nightly briefing job, and that a model key is found
        (where, never what; sessions waiting for one). Exit 1 when something is wrong. Lines
        on a terminal or with --text; piped or with --json, one JSON object.
        """
        from .. import openclaw as oc
        from ..counts import count
        from ..render import emit_json, reader_may_leave, want_json

        checks = oc.doctor(oc.OpenClawCLI.find(openclaw))
        from ..corrections import doctor_check as corrections_check
        from ..forget import doctor_check as briefing_check
        from ..history import doctor_check
        from ..purge import doctor_check as purge_check
        from ..sweep import doctor_check as sweep_check

        checks.extend(c for c in [doctor_check(), purge_check(), briefing_check(),
                                  sweep_check(), corrections_check()] if c is not None)
        failed = [c for c in checks if c.status == "fail"]
        # `doctor | head -1` still exits 1 when something is wrong
        with reader_may_leave():
            if not text and want_json(as_json):
                emit_json({"ok": not failed, "checks": [c.to_dict() for c in checks]})
            else:
                for check in checks:
                    typer.echo(f"{check.status:<5} {check.name}: {check.detail}")
                    if check.fix and check.status != "ok":
                        typer.echo(f"      fix: {check.fix}")
                warned = sum(1 for c in checks if c.status == "warn")
                if any(c.name == oc.NOT_WIRED for c in failed):  # the one thing to say first
                    others = [count(len(failed) - 1, "other problem"),
                              count(warned, "warning")]
                    typer.echo("This OpenClaw home is not wired into zettelclaw: `zettelclaw "
                               "init` wires it" + "".join(
                                   f"; {n}" for n in others if not n.startswith("0 ")) + ".")
                else:
                    typer.echo(f"{count(len(failed), 'problem')}, {count(warned, 'warning')}."
                               if failed or warned else "All good.")
        if failed:
            raise typer.Exit(1)

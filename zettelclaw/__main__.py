"""Entry point of the ``zettelclaw`` executable.

The commands OpenClaw runs on every turn (``handoff``, ``search --json``) are answered by
:mod:`zettelclaw.hot` without importing Typer, Rich or pydantic; everything else goes through
:mod:`zettelclaw.cli`.
"""

from __future__ import annotations

import sys


def main() -> None:
    from .hot import serve

    if serve(sys.argv[1:]):
        return
    from .cli import app_for

    app = app_for(sys.argv[1:])  # the one command named, else every command
    try:
        app(prog_name="zettelclaw")
    except Exception as exc:  # a bug: Typer re-raises it with its own excepthook installed
        _print_redacted_traceback(exc)
        sys.exit(1)


def _print_redacted_traceback(exc: BaseException) -> None:
    """An unexpected crash still shows its traceback, without the secrets it may quote: a
    background run's stderr goes to hooks.log, next to the log."""
    import traceback

    from .redact import redact

    sys.stderr.write(redact("".join(traceback.format_exception(exc))))


if __name__ == "__main__":
    main()

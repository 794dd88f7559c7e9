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
    from .cli import app

    app(prog_name="zettelclaw")


if __name__ == "__main__":
    main()

"""Entry point of the ``zettelclaw`` executable.

``zettelclaw handoff`` runs before every agent prompt, so it is answered here without
importing Typer, Rich or pydantic; every other command goes through :mod:`zettelclaw.cli`.
"""

from __future__ import annotations

import os
import sys


def _fast_handoff(argv: list[str]) -> bool:
    """Serve ``[--home D] [--workspace D] handoff [--json]``; False for anything else."""
    env: dict[str, str] = {}
    as_json = False
    seen_command = False
    args = iter(argv)
    for arg in args:
        if not seen_command and arg in ("--home", "--workspace"):
            value = next(args, None)
            if value is None:
                return False
            env[arg] = value
        elif not seen_command and arg.startswith(("--home=", "--workspace=")):
            key, _, value = arg.partition("=")
            env[key] = value
        elif not seen_command and arg == "handoff":
            seen_command = True
        elif seen_command and arg == "--json":
            as_json = True
        else:
            return False
    if not seen_command:
        return False
    if "--home" in env:
        os.environ["ZETTELCLAW_HOME"] = os.path.abspath(os.path.expanduser(env["--home"]))
    if "--workspace" in env:
        os.environ["OPENCLAW_WORKSPACE_DIR"] = os.path.abspath(
            os.path.expanduser(env["--workspace"]))
    from .errors import ZettelclawError
    from .handoff import print_handoff

    try:
        print_handoff(as_json)
    except ZettelclawError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        pass
    return True


def main() -> None:
    if _fast_handoff(sys.argv[1:]):
        return
    if sys.argv[1:2] == ["search"]:  # the agent's memory_search: ranked, JSON, no Typer
        from .rank import cli_fast

        if cli_fast(sys.argv[2:]):
            return
    from .cli import app

    app(prog_name="zettelclaw")


if __name__ == "__main__":
    main()

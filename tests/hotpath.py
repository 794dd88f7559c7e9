"""The commands hooks call on every turn must start cheaply: what a run imports, seen from a
fresh interpreter (the test's own process has everything imported already)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("anthropic", "typer", "rich", "pydantic", "httpx")


def heavy_imports(argv: list[str], expect: str) -> list[str]:
    """Run ``zettelclaw ARGV`` in a fresh interpreter, check its output holds ``expect``, and
    return the heavy modules it imported (the SDK, Typer, Rich, pydantic, httpx)."""
    return imports_of(argv, expect, HEAVY)


def imports_of(argv: list[str], expect: str | tuple[str, ...], modules: tuple[str, ...]
               ) -> list[str]:
    """Run ``zettelclaw ARGV`` in a fresh interpreter, check its output holds ``expect`` (each
    of them), and return which of ``modules`` it imported."""
    expected = (expect,) if isinstance(expect, str) else expect
    code = (
        "import sys, io, contextlib\n"
        f"sys.argv = ['zettelclaw', *{argv!r}]\n"
        "from zettelclaw.__main__ import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit as exc:\n"  # a command that ends with exit(0) is checked too
        "        if exc.code not in (0, None):\n"
        "            raise\n"
        f"for want in {expected!r}:\n"
        "    assert want in out.getvalue(), out.getvalue()\n"
        f"print(','.join(m for m in {modules!r} if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return [m for m in result.stdout.strip().split(",") if m]

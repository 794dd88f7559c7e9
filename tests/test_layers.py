"""A tree without import circles: a lower layer never imports a higher one.

Read from the source, not by importing it: every ``import`` and ``from ... import`` of a module
counts, at the top of the file, inside a function (the lazy imports that keep start-up cheap)
or under ``TYPE_CHECKING``: a lazy import ties the layers together as much as an eager one, it
only runs later. Importing ``zettelclaw.extract.cursor`` counts as an arrow to that module, not
to the package ``zettelclaw.extract`` around it (a package's ``__init__`` gathers its modules,
so every package would otherwise be a circle of its own).
"""

from __future__ import annotations

import ast
from pathlib import Path

import zettelclaw

PACKAGE = Path(zettelclaw.__file__).parent


def _module_name(path: Path, root: Path) -> str:
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_arrows(root: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (anywhere in the file)."""
    files = {_module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    arrows: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - node.level + 1]
                    origin = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    origin = node.module or ""
                # `from . import paths`: the module paths; `from .log import Log`: the module log
                targets = [f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in files
                           else origin for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in files:  # `import a.b.c` of a name inside c
                    target = target.rpartition(".")[0]
                if target and target != name:
                    arrows[name].add(target)
    return arrows


def circles(arrows: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(arrows.get(module, ())):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(arrows):
        if module not in index:
            visit(module)
    return found


def _described(arrows: dict[str, set[str]], group: list[str]) -> str:
    inside = set(group)
    return "; ".join(f"{module} -> {', '.join(sorted(arrows[module] & inside))}"
                     for module in group)


def test_no_module_of_zettelclaw_imports_one_that_imports_it_back():
    arrows = import_arrows(PACKAGE)
    assert "zettelclaw.log" in arrows["zettelclaw.handoff"]  # a lazy import is an arrow too
    found = circles(arrows)
    assert found == [], "import circles: " + " | ".join(_described(arrows, g) for g in found)


def test_the_scan_finds_a_circle_however_it_is_imported(tmp_path):
    root = tmp_path / "pkg"
    (root / "inner").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "low.py").write_text("def f():\n    from .inner.high import g\n")  # lazy
    (root / "inner" / "__init__.py").write_text("from .high import g\n")
    (root / "inner" / "high.py").write_text("from .. import low\n")
    (root / "alone.py").write_text("import pkg.low\nfrom pkg.inner import high\n")
    arrows = import_arrows(root)
    assert arrows["pkg.alone"] == {"pkg.low", "pkg.inner.high"}
    assert circles(arrows) == [["pkg.inner.high", "pkg.low"]]

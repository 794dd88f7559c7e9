"""The plugin, skill and prompts are found both in a checkout and in an installed wheel."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from zettelclaw import resources

REPO = Path(__file__).resolve().parents[1]


def test_a_checkout_uses_the_repository_folders():
    assert resources.plugin_dir() == REPO / "hooks" / "openclaw-plugin"
    assert (resources.plugin_dir() / "openclaw.plugin.json").is_file()
    assert (resources.skill_dir() / "SKILL.md").is_file()


def test_an_installed_wheel_finds_its_data_packages(tmp_path):
    # the wheel's layout: zettelclaw/{plugin,skill,prompts}/ beside the code, without
    # __init__.py (importlib.resources.files() gives a MultiplexedPath there, not a path)
    site = tmp_path / "site-packages"
    package = site / "zettelclaw"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    shutil.copy(REPO / "zettelclaw" / "resources.py", package / "resources.py")
    for name, file in (("plugin", "index.js"), ("skill", "SKILL.md"), ("prompts", "x.md")):
        (package / name).mkdir()
        (package / name / file).write_text("x")
    code = ("from zettelclaw import resources as r; "
            "print(r.plugin_dir()); print(r.skill_dir()); print(r.prompts_dir())")
    out = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, "
                          f"{str(site)!r}); {code}"], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(package / "plugin"), str(package / "skill"),
                                  str(package / "prompts")]


def test_a_wheel_carries_every_code_package():
    # pyproject names each package a wheel holds: a folder of modules left off that list
    # (zettelclaw/transcripts/, zettelclaw/briefing/) works in a checkout and is missing once
    # installed, where `zettelclaw extract` or `brief` would die on an ImportError
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    code = {".".join(init.parent.relative_to(REPO).parts)
            for init in (REPO / "zettelclaw").rglob("__init__.py")}
    assert code - listed == set()

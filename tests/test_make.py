"""`make` as a new user first runs it in a clean clone: the install says nothing they need not
read (the dependencies are left out here to keep it short: they are pip's, not ours)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.conftest import REPO


@pytest.mark.skipif(shutil.which("make") is None, reason="no make on this machine")
def test_the_first_make_prints_no_setuptools_warning_box(tmp_path):
    venv = tmp_path / "venv"
    # a make of its own, not one nested in the `make test` running this (which would print
    # "make[1]: Entering directory" among the commands)
    alone = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    planned = subprocess.run(["make", "--no-print-directory", "-n", "-B", f"{venv}/.installed",
                              f"VENV={venv}"], cwd=REPO, capture_output=True, text=True,
                             check=True, env=alone).stdout
    recipe = planned.replace("\\\n", " ").splitlines()
    install = [line for line in recipe if "pip install" in line and " -e " in line]
    assert len(install) == 1, planned
    commands = [line for line in recipe if "--upgrade pip" not in line]
    commands[commands.index(install[0])] = install[0] + " --no-deps"

    ran = subprocess.run(["bash", "-ec", "\n".join(commands)], cwd=REPO, capture_output=True,
                         text=True, timeout=600)

    assert ran.returncode == 0, ran.stderr[-3000:]
    said = ran.stdout + ran.stderr
    assert "Compat editable installs" not in said and "!!" not in said, said[-3000:]
    # and it is the editable install: the venv's Python imports the clone's own code
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import zettelclaw; print(zettelclaw.__file__)"],
                           capture_output=True, text=True, timeout=60)
    assert where.stdout.strip() == str(REPO / "zettelclaw" / "__init__.py"), where.stderr
    assert (venv / "bin" / "zettelclaw").exists()

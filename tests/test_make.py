"""`make` as a new user first runs it in a clean clone: the install says nothing they need not
read (the dependencies are left out here to keep it short: they are pip's, not ours)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

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


def test_make_test_names_each_end_to_end_test_as_it_starts(tmp_path):
    (tmp_path / "test_slow_e2e.py").write_text(
        "import pytest\n\npytestmark = pytest.mark.e2e\n\n\n"
        "def test_a_real_openclaw():\n    pass\n")
    (tmp_path / "test_quick.py").write_text("def test_a_unit():\n    pass\n")

    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "tests.e2e_progress",
                          "-p", "no:randomly", "-o", "markers=e2e: slow", "--rootdir",
                          str(tmp_path), str(tmp_path)],
                         cwd=REPO, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(REPO)})

    assert ran.returncode == 0, ran.stdout + ran.stderr
    lines = ran.stdout.splitlines()
    assert "end-to-end: test_slow_e2e.py::test_a_real_openclaw (a real OpenClaw: minutes) ..." \
        in lines, ran.stdout
    assert not any("test_a_unit" in line for line in lines)  # the others stay dots


@pytest.mark.skipif(shutil.which("node") is None or shutil.which("make") is None,
                    reason="no node or make on this machine")
def test_make_test_sums_the_node_tests_up_in_a_few_lines(tmp_path):
    alone = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    planned = subprocess.run(["make", "--no-print-directory", "-n", "node-test"], cwd=REPO,
                             capture_output=True, text=True, check=True, env=alone).stdout
    assert planned.split() == ["node", "--test",  # the same tests, summed up
                               "--test-reporter=./scripts/node-test-summary.mjs",
                               "hooks/openclaw-plugin/test/*.test.js"]
    tests = tmp_path / "plugin.test.js"
    tests.write_text('import { test } from "node:test";\nimport assert from "node:assert";\n'
                     + "".join(f'test("passes {n}", () => {{}});\n' for n in range(30))
                     + 'test("adds up", () => assert.strictEqual(1 + 1, 3));\n')

    ran = subprocess.run(["node", "--test", "--test-reporter=./scripts/node-test-summary.mjs",
                          str(tests)], cwd=REPO, capture_output=True, text=True, timeout=120)

    assert ran.returncode == 1  # a failure still fails make test
    said = ran.stdout
    assert said.startswith("." * 30 + "X\n"), said
    assert f"not ok: adds up ({tests}:33)" in said
    assert "2 !== 3" in said
    assert said.splitlines()[-1].startswith(
        "node tests: 30 passed, 1 failed, 0 skipped, 0 todo, 0 cancelled (of 31; ")
    assert len(said.splitlines()) < 60

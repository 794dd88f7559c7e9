"""The command line as people expect it (issue 14): usage errors in one line, help that says
what the commands do, a terminal that is not flooded, stdin for `write`, -V, completion, and
JSON when piped where the help and the README say so."""

from __future__ import annotations

import re
import shlex

import orjson
import pytest

from tests.conftest import DOC_PAGES, REPO, write_log
from tests.test_hostile_text import on_terminal


def fact(i: int, **more) -> dict:
    return {"id": f"F{i:04d}_aaaaaaa", "timestamp": f"2026-03-01T{i // 60:02d}:{i % 60:02d}:00Z",
            "type": "fact", "content": f"fact number {i}", "session": "s1", **more}


# -- search on a terminal ---------------------------------------------------------------------

def test_search_without_a_query_on_a_terminal_shows_the_latest_50_and_says_how_many_more(
        log_dir, zc):
    write_log(log_dir, [fact(i) for i in range(120)])
    code, out = on_terminal("search")
    assert code == 0, out
    shown = set(re.findall(r"F\d{4}_aaaaaaa", out))
    assert shown == {f"F{i:04d}_aaaaaaa" for i in range(70, 120)}, sorted(shown)
    assert "70 more (the 50 most recent are shown): --limit N shows N" in out

    code, out = on_terminal("search", "--limit", "100")
    assert code == 0 and len(set(re.findall(r"F\d{4}_aaaaaaa", out))) == 100
    assert "more (the" not in out

    piped = zc("search")
    assert piped.returncode == 0
    assert len(piped.stdout.splitlines()) == 120 and b"more" not in piped.stderr


def test_a_short_listing_on_a_terminal_has_no_more_line(log_dir):
    write_log(log_dir, [fact(i) for i in range(50)])
    code, out = on_terminal("search")
    assert code == 0 and len(set(re.findall(r"F\d{4}_aaaaaaa", out))) == 50
    assert "more (the" not in out


# -- usage errors -----------------------------------------------------------------------------

USAGE_ERRORS = [  # the arguments, and the command the "Try" line names (None: no Try line)
    (("search", "--bogus"), "search"),  # an unknown option
    (("search", "--limt", "3"), "search"),  # a mistyped one
    (("search", "--limit", "x"), "search"),  # a bad value
    (("search", "--limit", "x", "--json"), "search"),  # the per-turn form hands it over
    (("search", "--subject", "Bad Slug"), None),  # README: a malformed slug is exit 2
    (("search", "--subject", "Bad Slug", "--json"), None),
    (("search", "--type", "facts", "x"), "search"),  # a bad value the core finds (issue 41)
    (("search", "--limit", "0", "webhook", "--json"), "search"),
    (("log", "-n", "0"), "log"),
    (("write", "fact"), "write"),  # a missing argument
    (("write", "fact", "-x"), "write"),  # an unknown short option stays one
    (("get",), "get"),
    (("sweep", "--concurrency", "0"), "sweep"),  # out of range
    (("brief", "--now"), "brief"),  # an option without its value
    (("--home", "/tmp", "subjects", "add", "x", "--type"), "subjects add"),
    (("handoff", "extra"), "handoff"),  # an extra argument
    (("handoff", "--bogus"), "handoff"),
    (("subjects", "rename", "only-one"), "subjects rename"),
    (("no-such-command",), ""),
]


@pytest.mark.parametrize(("args", "command"), USAGE_ERRORS,
                         ids=[" ".join(args) for args, _ in USAGE_ERRORS])
def test_a_usage_error_is_one_error_line_and_a_try_line_exit_2(design_log, zc, args, command):
    result = zc(*args)
    err = result.stderr.decode().splitlines()
    assert result.returncode == 2, (result.stdout, err)
    assert result.stdout == b""
    assert err[0].startswith("Error: "), err
    if command is None:
        assert len(err) == 1, err
    else:
        assert err[1:] == [f"Try '{' '.join(['zettelclaw', command]).strip()} --help'."], err


def test_a_malformed_slug_is_refused_on_a_terminal_too(design_log):
    code, out = on_terminal("search", "--subject", "Bad Slug")
    assert code == 2
    assert out.strip().startswith("Error: 'Bad Slug' is not a valid subject slug")


def test_a_usage_error_never_prints_a_secret_it_quotes(zc):
    secret = "sk-ant-api03-" + "A1b2C3d4" * 12
    result = zc("handoff", secret)
    assert result.returncode == 2
    assert secret not in result.stderr.decode() and "[redacted]" in result.stderr.decode()


# -- help that matches behaviour --------------------------------------------------------------

def _tree():
    """Every command as (path, click command), with the root group first."""
    import typer.main

    from zettelclaw.cli import app

    root = typer.main.get_command(app)
    out = [((), root)]
    for name, command in sorted(root.commands.items()):
        out.append(((name,), command))
        for sub, leaf in sorted(getattr(command, "commands", {}).items()):
            out.append(((name, sub), leaf))
    return root, out


def _options(command) -> set[str]:
    return {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)
            if opt.startswith("-")}


def _help_texts(command) -> list[str]:
    return [command.help or ""] + [getattr(p, "help", None) or "" for p in command.params]


def _examples(text: str) -> list[list[str]]:
    """The `zettelclaw ...` commands a text shows (in backticks, or a line of a code block),
    as argument lists; the part of a pipeline that runs zettelclaw; not a synopsis with a
    placeholder (`zettelclaw COMMAND --help`)."""
    found = []
    for snippet in re.findall(r"`((?:[^`\n]*\|\s*)?zettelclaw [^`\n]*)`", text):
        found.append(snippet)
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        found.extend(line.split("#")[0] for line in block.splitlines()
                     if re.match(r"\s*(\w+=\S+\s+)*zettelclaw ", line))
    out = []
    for snippet in found:
        words = shlex.split(re.sub(r"<[^>]*>", "X", snippet))  # <the user's message>
        start = words.index("zettelclaw") + 1
        words = words[start:]
        words = words[:words.index("|")] if "|" in words else words
        if not any(re.fullmatch(r"[A-Z]{2,}", w) for w in words):  # COMMAND, ID: a synopsis
            out.append(words)
    return out


def _parse(argv: list[str]) -> None:
    """Parse ``zettelclaw ARGV`` as the CLI would, running nothing (callbacks replaced)."""
    root, tree = _tree()
    for _, command in tree:
        command.callback = lambda *a, **k: None
    root.main(args=list(argv), prog_name="zettelclaw", standalone_mode=False)


def test_every_help_text_names_only_options_that_exist_and_its_examples_parse(cli):
    root, tree = _tree()
    everywhere = _options(root)
    checked = 0
    for path, command in tree:
        result = cli(*path, "--help")
        assert result.exit_code == 0 and "Usage:" in result.stdout, path
        for text in _help_texts(command):
            examples = _examples(text)
            for example in examples:
                _parse(example)  # raises a usage error if the example does not parse
                checked += 1
            prose = re.sub(r"`(?:[^`\n]*\|\s*)?zettelclaw [^`\n]*`", "", text)
            for option in re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])\b", prose):
                assert option in _options(command) | everywhere, (path, option, text)
    assert checked >= 3  # write, get and log show examples


def test_every_docs_and_skill_example_and_command_table_option_exists():
    docs = "\n".join(page.read_text() for page in DOC_PAGES)
    # the examples: code blocks and inline commands; a table row is a synopsis (checked below)
    examples = _examples("\n".join(ln for ln in docs.splitlines() if not ln.startswith("|")))
    examples += _examples((REPO / "skills" / "zettelclaw" / "SKILL.md").read_text())
    assert len(examples) > 10
    for argv in examples:
        _parse(argv)
    root, tree = _tree()
    commands = {" ".join(path): command for path, command in tree if path}
    for row in docs.splitlines():
        named = re.match(r"\| `zettelclaw ([a-z]+)", row)
        if not named or named.group(1) not in commands:
            continue
        command = commands[named.group(1)]
        options = _options(command) | _options(root)
        for leaf in getattr(command, "commands", {}).values():
            options |= _options(leaf)
        for option in re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])\b", row):
            assert option in options, (named.group(1), option)


def test_help_paragraphs_wrap_at_the_terminal_not_where_the_source_broke_them(zc):
    lines = zc("write", "--help", env={"COLUMNS": "200"}).stdout.decode().splitlines()
    assert any("corrects the current version of that chain (said on stderr)" in line
               for line in lines), lines


def test_log_marks_replaced_entries_as_its_help_says(design_log, cli):
    assert "a replaced one is marked" in cli("log", "--help").stdout
    code, out = on_terminal("log")
    assert code == 0
    flat = out.replace("\r\n", "").replace("│", "").replace(" ", "")
    assert "→Cx6tM_1pWn8Y" in flat and "→Dw9sN_2qXk7Z" in flat, out
    marked = {e["id"]: e.get("replacedBy") for e in cli.lines("log", "--json")}
    assert marked["a3k9x_BmQ2yT"] == "Cx6tM_1pWn8Y" and marked["Cx6tM_1pWn8Y"] is None


# -- write, -V, completion --------------------------------------------------------------------

def test_write_dash_reads_the_content_from_stdin(log_dir, zc):
    result = zc("write", "fact", "-", "--subject", "release", input=b"Release 1.4 ships Friday\n")
    assert result.returncode == 0, result.stderr
    entry = orjson.loads(result.stdout)
    assert entry["content"] == "Release 1.4 ships Friday" and entry["subject"] == "release"
    empty = zc("write", "fact", "-", input=b"")
    assert empty.returncode == 2 and empty.stderr.startswith(b"Error: ")


def test_content_that_starts_with_a_dash_is_content(log_dir, zc):
    for content in ("-5 degrees outside", "-5", "- a list item", "-> done"):
        result = zc("write", "fact", content, "--detail", "-3 dB", "-s", "weather")
        assert result.returncode == 0, (content, result.stderr)
        entry = orjson.loads(result.stdout)
        assert (entry["content"], entry["detail"], entry["subject"]) == (content, "-3 dB",
                                                                         "weather")
    assert zc("write", "fact", "--", "-x").returncode == 0
    found = zc("search", "-5 degrees")  # a query may start with a dash too
    assert found.returncode == 0 and orjson.loads(found.stdout.splitlines()[0])["content"] == \
        "-5 degrees outside"


def test_dash_capital_v_is_version(cli):
    assert cli("-V").stdout == cli("--version").stdout != ""


def test_shell_completion_is_offered_and_completes_commands(zc):
    assert "--install-completion" in zc("--help").stdout.decode()
    # the shell is named, not guessed from the parent process (make runs tests under sh)
    script = zc("--show-completion", "bash",
                env={"SHELL": "/bin/bash", "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"})
    assert script.returncode == 0 and b"_ZETTELCLAW_COMPLETE=complete_bash" in script.stdout
    words = zc(env={"_ZETTELCLAW_COMPLETE": "complete_bash", "COMP_WORDS": "zettelclaw sea",
                    "COMP_CWORD": "1"})
    assert words.returncode == 0 and words.stdout.decode().split() == ["search"]
    options = zc(env={"_ZETTELCLAW_COMPLETE": "complete_bash",
                      "COMP_WORDS": "zettelclaw search --sub", "COMP_CWORD": "2"})
    assert options.stdout.decode().split() == ["--subject"]



def test_completion_offers_entry_types_and_the_registry_s_subjects(log_dir, zc):
    assert zc("subjects", "add", "billing-service").returncode == 0

    def complete(line: str) -> list[str]:
        words = line.split() + ([""] if line.endswith(" ") else [])
        env = {"_ZETTELCLAW_COMPLETE": "complete_bash", "COMP_WORDS": line,
               "COMP_CWORD": str(len(words) - 1)}
        return zc(env=env).stdout.decode().split()

    assert complete("zettelclaw write d") == ["decision"]
    assert complete("zettelclaw search --type ") == ["task", "fact", "decision", "question",
                                                      "handoff"]
    assert complete("zettelclaw search --subject bil") == ["billing-service"]
    assert complete("zettelclaw write fact x -s ") == ["billing-service"]


def test_the_per_turn_commands_still_start_without_typer(design_log):
    from tests.hotpath import heavy_imports

    assert heavy_imports(["handoff", "--text"], "Last Session Handoff") == []
    assert heavy_imports(["search", "--json", "dead-letter queue"], "Cx6tM_1pWn8Y") == []


# -- JSON when piped, or text where the help says so ------------------------------------------

def test_data_is_json_when_piped(design_log, zc):
    for args in (["search"], ["log"], ["get", "Cx6tM_1pWn8Y"], ["stats"], ["paths"],
                 ["subjects", "list"]):
        result = zc(*args)
        assert result.returncode == 0, (args, result.stderr)
        for line in result.stdout.splitlines():
            orjson.loads(line)


def test_reports_and_the_handoff_print_json_when_piped_and_text_with_text(design_log, zc,
                                                                           zc_env):
    (zc_env["workspace"] / "MEMORY.md").write_text("# Memory\n\n## Pending\n- a thing\n")
    handoff = zc("handoff", "--text")
    assert handoff.stdout.decode().startswith("## Last Session Handoff\n")
    assert orjson.loads(zc("handoff").stdout)["handoff"]["id"] == "Ym8kP_3wNx5Q"
    memory = zc("get", "MEMORY.md")  # a file, to read or grep: text stays text
    assert memory.stdout.decode() == "# Memory\n\n## Pending\n- a thing\n"
    assert orjson.loads(zc("get", "MEMORY.md", "--json").stdout)["text"].startswith("# Memory")
    doctor = zc("doctor", "--text")
    assert doctor.stdout.decode().splitlines()[0].split()[0] in ("ok", "warn", "fail")
    assert "checks" in orjson.loads(zc("doctor").stdout)


def flat(help_text: str) -> str:
    """A help screen as one line of words: no box, no wrapping."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", help_text).split())


def test_the_help_of_the_reports_says_text_even_when_piped_is_text(cli):
    for args in (["handoff"], ["doctor"], ["sweep"], ["import"]):
        assert "Print text even when piped" in flat(cli(*args, "--help").stdout), args
    assert "text, piped or not" in flat(cli("get", "--help").stdout)
    assert "the default when stdout is not a terminal" in flat(cli("search", "--help").stdout)


def _help_pages(cli) -> dict[str, str]:
    """Every command's and command group's `--help`, by its command line."""
    import typer.main

    from zettelclaw.cli import app

    pages = {}

    def walk(command, path: list[str]) -> None:
        result = cli(*path, "--help")
        assert result.exit_code == 0, path
        pages[" ".join(["zettelclaw", *path])] = result.stdout
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return pages


def test_no_text_a_user_sees_cites_the_design_document(cli):
    """Help, the plugin's config descriptions, the skill and the prompts never cite "design §N":
    a user has no such document."""
    seen = dict(_help_pages(cli))
    for path in ("hooks/openclaw-plugin/openclaw.plugin.json", "skills/zettelclaw/SKILL.md",
                 *(f"prompts/{p.name}" for p in (REPO / "prompts").glob("*.md"))):
        seen[path] = (REPO / path).read_text()
    cited = {where: text[text.find("§") - 20:text.find("§") + 5]
             for where, text in seen.items() if "§" in text}
    assert cited == {}


def test_the_stats_table_on_an_empty_log_has_a_header_over_every_column(log_dir):
    log_dir.mkdir(parents=True)
    (log_dir / "log.jsonl").write_bytes(b"")

    code, out = on_terminal("stats")

    assert code == 0, out
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    header = next(line for line in plain.splitlines() if "type" in line and "entries" in line)
    assert [cell.strip() for cell in header.strip().strip("┃").split("┃")] == [
        "type", "entries", "open tasks"], header


# -- a command starts with its own parameters only ---------------------------------------------

def test_a_named_command_is_run_by_an_app_that_holds_it_alone(monkeypatch):
    """Typer reads the signature of every command it holds each time it starts: a run that
    names a command (the nightly `brief`, `vault build`) builds that one."""
    from zettelclaw import cli

    def commands(app) -> list[str]:
        return [info.name or info.callback.__name__ for info in app.registered_commands] + [
            info.name for info in app.registered_groups]

    assert commands(cli.app_for(["brief", "--no-llm"])) == ["brief"]
    assert commands(cli.app_for(["--home", "/x", "--workspace=/y", "vault", "build"])) == [
        "vault"]
    assert commands(cli.app_for(["import", "--help"])) == ["import"]
    for args in ([], ["--help"], ["-V"], ["nosuch"], ["--bogus", "brief"]):
        assert cli.app_for(args) is cli.app, args  # every command
    monkeypatch.setenv("_ZETTELCLAW_COMPLETE", "complete_bash")
    assert cli.app_for(["brief"]) is cli.app


def test_every_command_says_the_same_alone_as_among_all():
    """Its help, and a usage error's two lines and exit code, word for word."""
    from typer.testing import CliRunner

    from zettelclaw import cli as command_line

    runner = CliRunner()
    for module, name in command_line.COMMANDS.items():
        for args in ([name, "--help"], [name, "--no-such-option"]):
            alone = runner.invoke(command_line.app_for(args), args)
            among_all = runner.invoke(command_line.app, args)
            assert (alone.exit_code, alone.stdout, alone.stderr) == (
                among_all.exit_code, among_all.stdout, among_all.stderr), (module, args)

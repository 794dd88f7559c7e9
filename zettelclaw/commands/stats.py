"""``zettelclaw stats``: what the log holds and what extraction has cost."""

from __future__ import annotations

import typer

from ._options import AgentOption, JsonOption, scope


def register(app: typer.Typer) -> None:
    @app.command()
    def stats(agent: AgentOption = None, as_json: JsonOption = False) -> None:
        """Entries by type and subject, sessions extracted and failed, model tokens."""
        from ..counts import count
        from ..render import cell, console, emit_json, want_json
        from ..stats import collect

        data = collect(**scope(agent))
        if want_json(as_json):
            emit_json(data)
            return
        from rich.table import Table

        out = console()
        e = data["entries"]
        out.print(f"[bold]{e['total']}[/bold] {'entry' if e['total'] == 1 else 'entries'} "
                  f"({e['current']} current, "
                  f"{e['replaced']} replaced) in ", cell(data["log"]), sep="")
        if e["forgotten"] or e["purged"]:
            out.print(f"{e['forgotten']} forgotten, {e['purged']} purged "
                      "(`zettelclaw search --all` lists the forgotten)")
        types = Table(title="By type", header_style="bold")
        types.add_column("type")
        types.add_column("entries", justify="right")
        types.add_column("open tasks", justify="right")
        for kind, n in e["byType"].items():
            types.add_row(cell(kind), str(n), str(e["openTasks"]) if kind == "task" else "")
        out.print(types)
        origins = ", ".join(f"{n} {o}" for o, n in e["byOrigin"].items() if n)
        people = ", ".join(f"{n} {p}" for p, n in e["byPerson"].items())
        if origins or people:  # (docs/people.md)
            out.print("Current entries by person: ", cell(people or "none"),
                      "; by origin: ", cell(origins or "none"), sep="")
        if e["byOrigin"].get("untrusted"):
            out.print(f"{e['byOrigin']['untrusted']} untrusted (another person's words, a web "
                      "page's claims): never put before a prompt nor in MEMORY.md; `zettelclaw "
                      "review untrusted` lists them")
        if e["bySubject"]:
            subjects = Table(title="By subject", header_style="bold")
            subjects.add_column("subject", style="cyan")
            subjects.add_column("entries", justify="right")
            for slug, n in e["bySubject"].items():
                subjects.add_row(cell(slug), str(n))
            out.print(subjects)
        s, t = data["sessions"], data["tokens"]
        out.print(f"Conversations: {s['extracted']:,} extracted; sessions: {s['failed']} failed "
                  f"({s['permanentlyFailed']} for good), {s['inProgress']} in progress"
                  + (f", {s['waitingForKey']} waiting for a model key"
                     if s.get("waitingForKey") else ""))
        wait = data.get("waitingForKey")
        if wait:
            now_found = (f"a key is found now ({wait['keyFound']})" if wait["keyFound"]
                         else "no Anthropic key found")
            out.print(f"[bold yellow]Waiting for a model key:[/bold yellow] "
                      f"{count(wait['sessions'], 'session')} not extracted since ",
                      cell(wait["since"] or "?"), f" ({now_found}); fix: ", cell(wait["fix"]),
                      sep="")
        if data.get("unfinishedPurge"):
            out.print("[bold yellow]A purge did not finish[/bold yellow] (started ",
                      cell(data["unfinishedPurge"]["since"] or "?"), "); fix: ",
                      cell(data["unfinishedPurge"]["fix"]), sep="")
        from ..sweep import clock_note

        for one, stamp in (data.get("sweptAhead") or {}).items():
            out.print("[bold yellow]The clock ran ahead:[/bold yellow] ",
                      cell(clock_note(one, stamp, set_back=False)), sep="")
        h = data["history"]
        if h["installedAt"] and h.get("foundAtInit") == 0 and not h["importedSessions"]:
            out.print(f"History: none; init ({h['installedAt']}) found no conversation from "
                      "before the install")
        elif h["installedAt"]:
            out.print(f"History: conversations before the install ({h['installedAt']}) wait "
                      f"for `zettelclaw import`; {count(h['importedSessions'], 'session')} "
                  "imported; "
                      "`zettelclaw import --dry-run` lists what is left")
        out.print(f"Tokens: {t['input']:,} input, {t['output']:,} output, "
                  f"{t['cacheRead']:,} cache read, {t['cacheCreation']:,} cache write "
                  f"over {count(t.get('extractions', 0), 'extraction')} and "
                  f"{count(t.get('briefings', 0), 'briefing contradiction check')}")

"""A fake OpenAI-compatible model server for OpenClaw's own model in tests.

Serves ``GET /v1/models`` and ``POST /v1/chat/completions`` (plain JSON and streaming SSE) on
127.0.0.1, answers from a script and records every request, so a test can assert what OpenClaw
sent the model (for example that a turn's prompt carried zettelclaw's handoff).

A script is a list of rules, tried in order against the request; the first that matches answers::

    [{"when": "look it up", "tool": "memory_search", "arguments": {"query": "webhook"}},
     {"when": "hello", "reply": "Hi there."}]

- ``when``: substring (case-insensitive) of the turn's user text; omitted matches anything.
- ``reply``: the assistant's text; ``tool`` + ``arguments``: a tool call instead.
- ``times``: how often the rule may answer (default unlimited).

A request whose last message is a tool result is answered with ``TOOL RESULT: <its text>`` so
the transcript (and the test) can see what the tool returned. Anything else gets ``OK.``.

In process::

    with FakeOpenAI(script) as fake:
        ... fake.base_url ...          # http://127.0.0.1:PORT/v1
        fake.requests                  # list of request bodies (dicts)

As a program: ``python -m tests.fake_openai --port N [--script file.json] [--record out.jsonl]``.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

MODEL_ID = "fake-1"


def provider_config(base_url: str, *, model_id: str = MODEL_ID) -> dict:
    """The ``models.providers.fake`` entry that points OpenClaw at this server."""
    return {
        "baseUrl": base_url,
        "apiKey": "x",
        "api": "openai-completions",
        "models": [{
            "id": model_id, "name": "Fake", "reasoning": False, "input": ["text"],
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
            "contextWindow": 128000, "maxTokens": 4096,
        }],
    }


def message_text(message: dict) -> str:
    """The text of a chat message whose content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def turn_text(body: dict) -> str:
    """The user messages of the current turn (after the last assistant message), joined.

    OpenClaw sends a turn as several user messages: the prompt (with any plugin's
    ``prependContext`` before it) and an internal-context block."""
    texts: list[str] = []
    for message in reversed(body.get("messages") or []):
        if message.get("role") != "user":
            break
        texts.append(message_text(message))
    return "\n".join(reversed(texts))


class Script:
    def __init__(self, rules: list[dict] | None = None):
        self.rules = [dict(rule) for rule in (rules or [])]
        self._lock = threading.Lock()
        self._calls = 0

    def answer(self, body: dict) -> dict:
        """``{"text": ...}`` or ``{"tool": name, "arguments": {...}}`` for one request."""
        messages = body.get("messages") or []
        if messages and messages[-1].get("role") == "tool":
            return {"text": "TOOL RESULT: " + message_text(messages[-1])}
        prompt = turn_text(body).lower()
        with self._lock:
            self._calls += 1
            for rule in self.rules:
                if rule.get("times") is not None and rule["times"] <= 0:
                    continue
                when = rule.get("when")
                if when and when.lower() not in prompt:
                    continue
                if rule.get("times") is not None:
                    rule["times"] -= 1
                if rule.get("tool"):
                    return {"tool": rule["tool"], "arguments": rule.get("arguments") or {},
                            "id": f"call_{self._calls}"}
                return {"text": rule.get("reply", "OK.")}
        return {"text": "OK."}


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # quiet
        pass

    def _send_json(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802
        self.server.fake._record("GET", self.path, None)
        if self.path.rstrip("/").endswith("/models"):
            self._send_json(200, {"object": "list", "data": [
                {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "fake"}]})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        self.server.fake._record("POST", self.path, body)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        answer = self.server.fake.script.answer(body)
        model = body.get("model") or MODEL_ID
        if body.get("stream"):
            self._stream(answer, model, body)
        else:
            self._send_json(200, _completion(answer, model))

    def _stream(self, answer: dict, model: str, body: dict) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk",
                "created": int(time.time()), "model": model}

        def chunk(delta: dict, finish: str | None = None, **extra) -> None:
            payload = {**base, "choices": [{"index": 0, "delta": delta,
                                            "finish_reason": finish}], **extra}
            self.wfile.write(b"data: " + json.dumps(payload).encode() + b"\n\n")
            self.wfile.flush()

        chunk({"role": "assistant", "content": ""})
        if "tool" in answer:
            chunk({"tool_calls": [{
                "index": 0, "id": answer["id"], "type": "function",
                "function": {"name": answer["tool"],
                             "arguments": json.dumps(answer["arguments"])}}]})
            chunk({}, "tool_calls")
        else:
            text = answer["text"]
            for start in range(0, len(text), 40) or [0]:
                chunk({"content": text[start:start + 40]})
            chunk({}, "stop")
        if (body.get("stream_options") or {}).get("include_usage"):
            usage = {**base, "choices": [], "usage": _USAGE}
            self.wfile.write(b"data: " + json.dumps(usage).encode() + b"\n\n")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


_USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def _completion(answer: dict, model: str) -> dict:
    if "tool" in answer:
        message = {"role": "assistant", "content": None, "tool_calls": [{
            "id": answer["id"], "type": "function",
            "function": {"name": answer["tool"], "arguments": json.dumps(answer["arguments"])}}]}
        finish = "tool_calls"
    else:
        message = {"role": "assistant", "content": answer["text"]}
        finish = "stop"
    return {"id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "message": message,
                                         "finish_reason": finish}], "usage": _USAGE}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeOpenAI


class FakeOpenAI:
    """The server, its script and what it has seen."""

    def __init__(self, script: list[dict] | None = None, *, port: int = 0,
                 record: Path | None = None):
        self.script = Script(script)
        self.requests: list[dict] = []  # {"method", "path", "body"}
        self._record_path = record
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.fake = self
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _record(self, method: str, path: str, body: dict | None) -> None:
        item = {"method": method, "path": path, "body": body}
        with self._lock:
            self.requests.append(item)
            if self._record_path:
                with open(self._record_path, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(item) + "\n")

    def chat_requests(self) -> list[dict]:
        """Bodies of the chat completion requests, oldest first."""
        with self._lock:
            return [r["body"] for r in self.requests
                    if r["method"] == "POST" and r["path"].rstrip("/").endswith("completions")]

    def start(self) -> FakeOpenAI:
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.fake_openai", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", type=Path, help="JSON file: a list of rules")
    parser.add_argument("--record", type=Path, help="append each request here (JSON Lines)")
    args = parser.parse_args(argv)
    rules = json.loads(args.script.read_text()) if args.script else []
    fake = FakeOpenAI(rules, port=args.port, record=args.record)
    print(fake.base_url, flush=True)
    try:
        fake._server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

"""A fake Anthropic Messages API: real HTTP on 127.0.0.1, scripted replies, latency and faults.

The SDK is pointed at it by ``ANTHROPIC_BASE_URL``, so retries, timeouts and error bodies run
for real. Replies are taken from a queue in order; when the queue is empty the ``default``
reply (or a ``match`` rule whose text occurs in the request) answers. Every request is recorded.

In tests::

    from tests.fake_anthropic import fake_anthropic  # the fixture (conftest imports it)

    def test_x(fake_anthropic):
        fake_anthropic.fail(529)                      # one overloaded_error, then ...
        fake_anthropic.reply('{"type":"fact","content":"..."}')
        ...
        assert fake_anthropic.requests[-1].body["system"][-1]["cache_control"]

Standalone (the demo, e2e tests, the benchmark)::

    python -m tests.fake_anthropic --port 0 --script script.json

prints ``listening on http://127.0.0.1:PORT`` and serves until SIGINT/SIGTERM. The script is
JSON: ``{"latency": 1.0, "replies": [REPLY...], "default": REPLY,
"match": [{"contains": "text in the request", ...REPLY}]}`` where a REPLY is
``{"text": "..."}``, ``{"error": 529}``, ``{"error": 429, "retry_after": 0.2}``,
``{"hang": 5}``, ``{"raw": "not json", "status": 200}``, each with an optional ``latency``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import signal
import sys
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
ERROR_MESSAGES = {
    429: "Number of request tokens has exceeded your per-minute rate limit",
    500: "Internal server error",
    529: "Overloaded",
}


@dataclass
class Reply:
    """One scripted answer. Exactly one of text / error / hang / raw is meaningful."""

    text: str | None = None
    error: int | None = None  # HTTP status of an Anthropic error body
    error_type: str | None = None
    message: str | None = None
    retry_after: float | None = None
    hang: float | None = None  # seconds to sit on the request, then drop the connection
    raw: str | None = None  # a body sent as is (malformed JSON, HTML from a proxy, ...)
    status: int = 200
    latency: float | None = None  # seconds before answering (None: the server's default)
    gate: threading.Event | None = None  # in tests: answer only once this is set
    stop_reason: str = "end_turn"
    usage: dict | None = None  # override the computed usage

    @classmethod
    def from_dict(cls, data: dict) -> Reply:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


@dataclass
class Request:
    """What the fake received: method, path, headers (lower-case keys), parsed JSON body."""

    method: str
    path: str
    headers: dict
    body: dict | None
    at: float = field(default_factory=time.monotonic)

    @property
    def system_text(self) -> str:
        system = (self.body or {}).get("system")
        if isinstance(system, str):
            return system
        return "\n".join(b.get("text", "") for b in system or [] if isinstance(b, dict))

    @property
    def user_text(self) -> str:
        out = []
        for message in (self.body or {}).get("messages", []):
            content = message.get("content")
            if isinstance(content, str):
                out.append(content)
            else:
                out.extend(b.get("text", "") for b in content or [] if isinstance(b, dict))
        return "\n".join(out)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # a client that timed out or was killed hangs up mid-answer: that is a test, not a bug
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def _tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


class FakeAnthropic:
    """The server. ``start()`` / ``stop()`` or use it as a context manager."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, latency: float = 0.0,
                 api_key: str = "sk-ant-test-fake-key"):
        self.host = host
        self.latency = latency
        self.api_key = api_key
        self.queue: deque[Reply] = deque()
        self.default: Reply | None = Reply(text='{"type":"handoff","content":"Nothing much '
                                                 'happened in this session."}')
        self.matchers: list[tuple[str, Reply]] = []
        self.requests: list[Request] = []
        self.in_flight = 0
        self.max_in_flight = 0  # the most message requests being answered at once
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._cached_prefixes: set[str] = set()
        self._server = _Server((host, port), self._handler_class())
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- scripting -------------------------------------------------------------------------

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def reply(self, text: str, **kw) -> FakeAnthropic:
        """Queue a successful reply whose text content is ``text``."""
        self.queue.append(Reply(text=text, **kw))
        return self

    def entries(self, *entries: dict, **kw) -> FakeAnthropic:
        """Queue a reply made of JSON lines, one per entry dict."""
        return self.reply("\n".join(json.dumps(e) for e in entries), **kw)

    def fail(self, status: int = 529, *, error_type: str | None = None,
             message: str | None = None, retry_after: float | None = None,
             **kw) -> FakeAnthropic:
        """Queue an Anthropic error body (429 rate limit, 500 api error, 529 overloaded...)."""
        self.queue.append(Reply(error=status, error_type=error_type, message=message,
                                retry_after=retry_after, **kw))
        return self

    def hang(self, seconds: float = 30.0) -> FakeAnthropic:
        """Queue a request that gets no answer for ``seconds`` (a client timeout)."""
        self.queue.append(Reply(hang=seconds))
        return self

    def malformed(self, body: str = '{"id": "msg_1", "type": "message", "content": [',
                  status: int = 200) -> FakeAnthropic:
        """Queue a body that is not valid JSON."""
        self.queue.append(Reply(raw=body, status=status))
        return self

    def when(self, contains: str, reply: Reply | str) -> FakeAnthropic:
        """Answer any request whose system or user text contains ``contains`` (queue first)."""
        if isinstance(reply, str):
            reply = Reply(text=reply)
        self.matchers.append((contains, reply))
        return self

    def load_script(self, script: dict) -> FakeAnthropic:
        if "latency" in script:
            self.latency = float(script["latency"])
        for item in script.get("replies", []):
            self.queue.append(Reply.from_dict(item))
        if script.get("default") is not None:
            self.default = Reply.from_dict(script["default"])
        for rule in script.get("match", []):
            rule = dict(rule)
            contains = rule.pop("contains")
            self.matchers.append((contains, Reply.from_dict(rule)))
        return self

    def reset(self) -> None:
        with self._lock:
            self.queue.clear()
            self.requests.clear()
            self.matchers.clear()
            self._cached_prefixes.clear()

    @property
    def message_requests(self) -> list[Request]:
        return [r for r in self.requests if r.path.startswith("/v1/messages")]

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> FakeAnthropic:
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- answering -------------------------------------------------------------------------

    def _next_reply(self, request: Request) -> Reply:
        with self._lock:
            if self.queue:
                return self.queue.popleft()
        haystack = request.system_text + "\n" + request.user_text
        for contains, reply in self.matchers:
            if contains in haystack:
                return reply
        return self.default or Reply(error=500, message="fake server: no scripted reply left")

    _REF_RE = re.compile(r"\{\{id-of:(.+?)\}\}")

    def resolve_refs(self, text: str, request: Request) -> str:
        """``{{id-of:some words}}`` in a scripted reply becomes the id of the entry, among those
        the request showed the model, whose content contains those words: recorded output that
        corrects an earlier entry replays against ids generated at run time."""
        if "{{id-of:" not in text:
            return text
        shown = []
        for line in request.user_text.splitlines():
            if line.startswith("{") and '"id"' in line:
                try:
                    shown.append(json.loads(line))
                except ValueError:
                    continue

        def lookup(match: re.Match) -> str:
            words = match.group(1).lower()
            for entry in shown:
                if words in str(entry.get("content", "")).lower():
                    return str(entry.get("id"))
            return "no-such-entry"

        return self._REF_RE.sub(lookup, text)

    def _usage(self, body: dict, output: str) -> dict:
        """Input tokens split the way the real API does when a cache breakpoint is present."""
        system = body.get("system") or []
        if isinstance(system, str):
            system = [{"type": "text", "text": system}]
        prefix, rest, cut = [], [], False
        for block in system:
            (rest if cut else prefix).append(block.get("text", ""))
            if block.get("cache_control"):
                cut = True
        if not cut:
            rest, prefix = prefix, []
        rest_text = "".join(rest) + json.dumps(body.get("messages", []))
        cached = "".join(prefix)
        usage = {"input_tokens": _tokens(rest_text), "output_tokens": _tokens(output),
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if cached:
            key = hashlib.sha256(cached.encode()).hexdigest()
            with self._lock:
                seen = key in self._cached_prefixes
                self._cached_prefixes.add(key)
            usage["cache_read_input_tokens" if seen else "cache_creation_input_tokens"] = \
                _tokens(cached)
        return usage

    def _handler_class(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def _send(self, status: int, body: bytes, headers: dict | None = None,
                      content_type: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(body)))
                self.send_header("request-id", f"req_{uuid.uuid4().hex[:24]}")
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()

            def _error(self, status: int, error_type: str | None = None,
                       message: str | None = None, headers: dict | None = None) -> None:
                body = {"type": "error", "error": {
                    "type": error_type or ERROR_TYPES.get(status, "api_error"),
                    "message": message or ERROR_MESSAGES.get(status, "error")}}
                self._send(status, json.dumps(body).encode(), headers)

            def do_GET(self):  # noqa: N802
                fake.requests.append(Request("GET", self.path, dict(self.headers.items()), None))
                self._error(404, message=f"no route {self.path}")

            def do_POST(self):  # noqa: N802
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = None
                request = Request("POST", self.path, headers, body)
                with fake._lock:
                    fake.requests.append(request)
                if not self.path.split("?")[0].rstrip("/").endswith("/v1/messages"):
                    return self._error(404, message=f"no route {self.path}")
                if body is None or not isinstance(body, dict):
                    return self._error(400, message="request body is not valid JSON")
                if not (headers.get("x-api-key") or headers.get("authorization")):
                    return self._error(401, message="x-api-key header is required")
                if "anthropic-version" not in headers:
                    return self._error(400, message="anthropic-version header is required")
                for required in ("model", "max_tokens", "messages"):
                    if required not in body:
                        return self._error(400, message=f"{required}: Field required")
                if body.get("stream"):
                    return self._error(400, message="this fake does not stream")

                with fake._lock:
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    self._answer(request, body)
                finally:
                    with fake._lock:
                        fake.in_flight -= 1

            def _answer(self, request: Request, body: dict) -> None:
                reply = fake._next_reply(request)
                delay = fake.latency if reply.latency is None else reply.latency
                if delay:
                    fake._stopping.wait(delay)
                if reply.gate is not None:  # the test does something while the call is pending
                    while not (reply.gate.wait(0.05) or fake._stopping.is_set()):
                        pass
                if reply.hang is not None:
                    fake._stopping.wait(reply.hang)
                    self.close_connection = True
                    return
                if reply.raw is not None:
                    return self._send(reply.status, reply.raw.encode())
                if reply.error is not None:
                    extra = {}
                    if reply.retry_after is not None:
                        extra["retry-after"] = f"{reply.retry_after:g}"
                    return self._error(reply.error, reply.error_type, reply.message, extra)
                text = fake.resolve_refs(reply.text or "", request)
                message = {
                    "id": f"msg_{uuid.uuid4().hex[:24]}",
                    "type": "message",
                    "role": "assistant",
                    "model": body.get("model"),
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": reply.stop_reason,
                    "stop_sequence": None,
                    "usage": reply.usage or fake._usage(body, text),
                }
                self._send(200, json.dumps(message).encode())

        return Handler


# -- pytest ------------------------------------------------------------------------------------

try:
    import pytest
except ImportError:  # standalone use needs no pytest
    pytest = None

if pytest is not None:
    @pytest.fixture
    def fake_anthropic(monkeypatch):
        """A running fake; ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY point the SDK at it, and
        retries back off in milliseconds (ZETTELCLAW_RETRY_BASE) so tests stay fast."""
        server = FakeAnthropic().start()
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", server.api_key)
        monkeypatch.setenv("ZETTELCLAW_RETRY_BASE", "0.01")
        try:
            yield server
        finally:
            server.stop()


# -- standalone ----------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fake_anthropic",
                                     description="A fake Anthropic Messages API on 127.0.0.1.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--script", help="JSON script of replies (see the module docstring)")
    parser.add_argument("--latency", type=float, default=None, help="seconds per reply")
    args = parser.parse_args(argv)

    server = FakeAnthropic(args.host, args.port)
    if args.script:
        with open(args.script, encoding="utf-8") as fh:
            server.load_script(json.load(fh))
    if args.latency is not None:
        server.latency = args.latency
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    server.start()
    print(f"listening on {server.url}", flush=True)
    done.wait()
    server.stop()
    print(f"served {len(server.message_requests)} message request(s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A slow OpenAI-compatible model: `POST /v1/chat/completions` answers after a fixed delay.

It plays the article picker the way the function model does: with no tool result yet it
asks for the search tool with the customer's question; once the search answered, it gives
the final JSON `{"answer": …, "output": {"articles": [first three found]}}` that the
OpenAI adapter asks for. Threaded, so concurrent replays wait for it concurrently.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def completion(request: dict[str, Any]) -> dict[str, Any]:
    """The chat-completions answer to `request`: the search call, or the final answer."""
    messages = request.get("messages") or []
    results = [m for m in messages if m.get("role") == "tool"]
    if results:
        found = json.loads(results[-1].get("content") or "{}").get("articles") or []
        picked = [{"id": a["id"], "title": a["title"]} for a in found[:3]]
        answer = "These articles may help: " + ", ".join(a["id"] for a in picked) + "."
        content = json.dumps({"answer": answer, "output": {"articles": picked}})
        message: dict[str, Any] = {"role": "assistant", "content": content}
        finish = "stop"
    else:
        question = next(m["content"] for m in reversed(messages) if m.get("role") == "user")
        names = [t["function"]["name"] for t in request.get("tools") or []]
        search = next((n for n in names if "search" in n), names[0])
        call = {
            "id": f"call_{time.monotonic_ns()}",
            "type": "function",
            "function": {"name": search, "arguments": json.dumps({"query": question})},
        }
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        finish = "tool_calls"
    return {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "model": request.get("model", "bench-stub"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        time.sleep(self.server.latency_s)
        self._send(200, completion(request))

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: no line per request."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256
    latency_s: float


class ModelStub:
    """The stub on a free 127.0.0.1 port; `base_url` is what `OPENAI_BASE_URL` should be."""

    def __init__(self, latency_s: float = 0.2) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.latency_s = latency_s
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:<port>/v1`."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ModelStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

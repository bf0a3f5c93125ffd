"""One request to the API: headers, the envelope, ManetteError (mirrors sdk/src/http.ts)."""
from __future__ import annotations

import json
import socket
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, Dict, Mapping, Optional

from .errors import ManetteError, network_error

BASE_PATH = "/api/public/v1"
DEFAULT_TIMEOUT_S = 30.0


def api_base(base_url: str) -> str:
    """``http://host`` or ``http://host/`` -> ``http://host/api/public/v1``; a URL with a path is kept."""
    parts = urllib.parse.urlsplit(base_url)
    if not parts.scheme or not parts.netloc:
        raise ValueError(f"base_url must be an absolute http(s) URL, got {base_url!r}")
    path = parts.path.rstrip("/")
    return f"{parts.scheme}://{parts.netloc}{path or BASE_PATH}"


def random_id() -> str:
    return str(uuid.uuid4())


def short_hash(s: str) -> str:
    """FNV-1a over UTF-16 code units, base 36: the browser SDK's storage key suffix."""
    h = 0x811C9DC5
    data = s.encode("utf-16-le")
    for i in range(0, len(data), 2):
        h ^= data[i] | (data[i + 1] << 8)
        h = (h * 0x01000193) & 0xFFFFFFFF
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if h == 0:
        return "0"
    out = ""
    while h:
        h, r = divmod(h, 36)
        out = digits[r] + out
    return out


class Transport:
    def __init__(self, base: str, api_key: str, lang: str, timeout_s: float = DEFAULT_TIMEOUT_S):
        self.base = base
        self.api_key = api_key
        self.lang = lang
        self.timeout_s = timeout_s

    def request(self, method: str, path: str, body: Any = None, query: Optional[Mapping[str, Any]] = None,
                token: Optional[str] = None, idempotency_key: Optional[str] = None) -> Dict[str, Any]:
        """The whole JSON body of a success (``{"ok": true, ...}``); raises ManetteError otherwise."""
        headers = {"x-api-key": self.api_key, "Accept-Language": self.lang, "Accept": "application/json"}
        if token:
            headers["x-player-token"] = token
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        data = None
        if body is not None:
            data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            headers["Content-Type"] = "application/json"
        url = self.base + path
        if query:
            pairs = [(k, _query_value(v)) for k, v in query.items() if v is not None]
            if pairs:
                url += "?" + urllib.parse.urlencode(pairs)
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        status = 0
        request_id = None
        raw = b""
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as res:
                status = res.status
                request_id = res.headers.get("x-request-id")
                raw = res.read()
        except urllib.error.HTTPError as e:
            status = e.code
            request_id = e.headers.get("x-request-id") if e.headers else None
            try:
                raw = e.read()
            except (OSError, ValueError):
                raw = b""
        except (urllib.error.URLError, socket.timeout, ConnectionError, OSError) as e:
            raise network_error(self.lang, e) from e
        try:
            parsed = json.loads(raw.decode("utf-8")) if raw else None
        except (ValueError, UnicodeDecodeError) as e:
            parsed = None
            # An answer cut off or not JSON (a proxy's page): the request may or may not have run.
            if 200 <= status < 300 or status >= 500:
                raise network_error(self.lang, e) from e
        ok = isinstance(parsed, dict) and parsed.get("ok") is True
        if 200 <= status < 300 and ok:
            return parsed  # type: ignore[return-value]
        env = parsed if isinstance(parsed, dict) else {}
        code = env.get("error") if isinstance(env.get("error"), str) else ("internal_error" if status >= 500 else "http_error")
        message = env.get("message") if isinstance(env.get("message"), str) else f"HTTP {status}"
        reason = env.get("reason") if isinstance(env.get("reason"), str) else None
        details = env.get("details") if isinstance(env.get("details"), list) else None
        jusqu_a = env.get("jusqu_a") if isinstance(env.get("jusqu_a"), str) else None
        raise ManetteError(code, status, message, reason=reason, details=details, request_id=request_id, jusqu_a=jusqu_a)


def _query_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)

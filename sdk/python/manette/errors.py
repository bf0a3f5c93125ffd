"""ManetteError: every failure of the SDK, carrying the API's error envelope (docs/api.md)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional


class ManetteError(Exception):
    """An error answered by the API, or met by the SDK itself.

    ``error``: the API's code (``invalid_token``, ``action_refusee``...), or the SDK's own
    ``network_error``, ``realtime_unavailable``, ``realtime_refused``, ``timeout``.
    ``status``: the HTTP status, 0 when no answer arrived. ``reason``: the envelope's
    ``reason`` when given (``action_refusee`` has one). ``message``: the text for the
    player, in the client's language. ``details``: ``[{"champ", "message"}]`` for
    ``validation_failed`` / ``invalid_query``.
    """

    def __init__(self, error: str, status: int, message: str, reason: Optional[str] = None,
                 details: Optional[List[Dict[str, Any]]] = None, request_id: Optional[str] = None,
                 jusqu_a: Optional[str] = None):
        super().__init__(message)
        self.error = error
        self.status = status
        self.message = message
        self.reason = reason
        self.details = details
        self.request_id = request_id
        self.jusqu_a = jusqu_a

    @property
    def code(self) -> str:
        """The same as ``error`` (the browser SDK's name)."""
        return self.error

    def to_dict(self) -> Dict[str, Any]:
        return {"error": self.error, "status": self.status, "message": self.message, "reason": self.reason,
                "details": self.details, "request_id": self.request_id, "jusqu_a": self.jusqu_a}

    def __repr__(self) -> str:
        extra = f", reason={self.reason!r}" if self.reason else ""
        return f"ManetteError({self.error!r}, status={self.status}{extra}, message={self.message!r})"

    def __str__(self) -> str:
        return f"{self.error}: {self.message}"


def _text(lang: str, en: str, fr: str) -> str:
    return en if lang == "en" else fr


def network_error(lang: str, cause: Optional[BaseException] = None) -> ManetteError:
    err = ManetteError("network_error", 0, _text(lang, "The server cannot be reached.", "Le serveur est injoignable."))
    err.__cause__ = cause
    return err


def realtime_error(lang: str, code: str, detail: Optional[str] = None) -> ManetteError:
    if code == "realtime_refused":
        msg = _text(lang, "Realtime refused the subscription.", "Le temps réel a refusé l’abonnement.")
    else:
        msg = _text(lang, "Realtime could not be joined.", "Le temps réel est injoignable.")
    return ManetteError(code, 0, msg, reason=detail)

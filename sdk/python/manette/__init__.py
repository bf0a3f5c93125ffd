"""Manette's Python SDK: players, tables, files, leaderboards, economy, matchmaking and
authoritative matches over Supabase Realtime (docs/sdk-python.md)."""
from .client import Client, Match, Subscription
from .errors import ManetteError
from .storage import FileStorage, MemoryStorage, Storage

__version__ = "0.1.0"
__all__ = ["Client", "Match", "Subscription", "ManetteError", "FileStorage", "MemoryStorage", "Storage", "__version__"]

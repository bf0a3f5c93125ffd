"""Manette's Python SDK: players, tables, files, leaderboards, economy, matchmaking and
authoritative matches over Supabase Realtime (docs/sdk-python.md)."""
from .client import Client, Match, Subscription, create_pkce_pair
from .errors import ManetteError
from .storage import FileStorage, MemoryStorage, Storage

__version__ = "0.1.0"
__all__ = ["Client", "Match", "Subscription", "create_pkce_pair", "ManetteError", "FileStorage", "MemoryStorage", "Storage", "__version__"]

"""What storage failures look like to the rest of the bot: refuse the operation and say so."""

from __future__ import annotations


class StorageError(Exception):
    """Storage cannot be read or written. Callers refuse the operation and say so; nothing is
    repaired by starting empty."""

    person_message = (
        "I can't reach my memory storage right now, so I haven't changed anything. "
        "Please try again in a moment."
    )


class SchemaTooNew(StorageError):
    """The database was written by a newer version of the bot."""


class ConcurrentUpdate(StorageError):
    """Another process (or request) changed the same rows at the same moment, so this write was
    refused and rolled back: a memory's version no longer matched (optimistic locking), or
    PostgreSQL chose this transaction as a deadlock or serialization victim. Verbs that can be
    re-evaluated on fresh data retry; the others say so and change nothing."""

    person_message = (
        "That changed at the same moment somewhere else (another message or device), so I left "
        "it as it is. Please look again and retry."
    )

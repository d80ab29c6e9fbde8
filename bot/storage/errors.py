"""What storage failures look like to the rest of the bot: refuse the operation and say so."""

from __future__ import annotations


class StorageError(Exception):
    """Storage cannot be read or written. Callers refuse the operation and say so; nothing is
    repaired by starting empty."""

    person_message = (
        "I can't reach my memory storage right now, so I haven't changed anything. "
        "Please try again in a moment."
    )
    notice = "Nothing was changed."  # the short line for a button press


class CommitUncertain(StorageError):
    """The connection was lost after COMMIT was sent and the database could not be asked how it
    ended: the change may or may not be stored. Never reported as "nothing changed"."""

    person_message = (
        "I lost the connection to my memory storage just as I was saving that, and I could not "
        "confirm whether it was saved. Your next /memories shows what is stored."
    )
    notice = "I could not confirm whether that was saved."


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

"""Ctrl-C (SIGINT) and SIGTERM during a command: it unwinds through its cleanups (a temporary file
removed, Chromium killed), says in one line what it had and had not written, and exits 128 + the
signal's number (130, 143), as a shell reports a process the signal ended."""
from __future__ import annotations

import signal
import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Python raises KeyboardInterrupt for SIGINT, so both unwind alike."""


def _raise_terminated(signum, frame):
    raise Terminated


@contextmanager
def sigterm_unwinds():
    """Within it, SIGTERM raises Terminated. A handler can be set only from the main thread; from another
    (a test calling the command in-process) SIGTERM keeps its own."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class Written:
    """What a command has written so far, in words, for the line an interrupt prints."""

    def __init__(self, nothing: str):
        self.nothing = nothing   # "nothing was written"
        self.parts = []

    def now(self, *parts: str) -> None:
        self.parts = list(parts)

    def __str__(self) -> str:
        return ", ".join(self.parts) or self.nothing


def run(command: str, body: Callable[[Any, Written], int], argv, nothing: str) -> int:
    """body(argv, written)'s exit code; when a signal stops it, prints 'ferry report: interrupted; nothing
    was written' (or what `written` holds by then) and returns 128 + the signal's number."""
    written = Written(nothing)
    try:
        with sigterm_unwinds():
            return body(argv, written)
    except KeyboardInterrupt as e:
        terminated = isinstance(e, Terminated)
        print(f"{command}: {'terminated (SIGTERM)' if terminated else 'interrupted'}; {written}", file=sys.stderr)
        return 128 + (signal.SIGTERM if terminated else signal.SIGINT)

"""Where `ferry report` writes its page and screenshot, by the rules the C++ ferry
keeps for every file it writes (docs/reliability.md, "Where output goes"):

  "-"                          standard output
  a symbolic link              what it finally names, by the rules below (a dangling link's
                               target is created); the link stays a link
  a regular file, or no file   a temporary file beside it and a rename, so no reader sees half
  a FIFO or a device           opened and written in place, never replaced or renamed over
  a socket                     refused: it cannot be opened as a file"""
from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile

STANDARD_OUTPUT = "-"
SOCKET = "it is a socket, which cannot be opened as a file: give a file, a FIFO or -"


def write(path: str, data: bytes) -> None:
    """Writes data where path points; raises OSError (its strerror names the cause)."""
    if path == STANDARD_OUTPUT:
        try:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        except BrokenPipeError:
            # What could not be written stays in the buffer; point standard output at nothing, so that flushing it at
            # exit does not raise a second error past the message the caller prints.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise
        return
    target, mode = _destination(path)
    if mode is None or stat.S_ISREG(mode):
        _replace(target, data)
    elif stat.S_ISDIR(mode):
        raise OSError(errno.EISDIR, "it is a folder")
    elif stat.S_ISSOCK(mode):
        raise OSError(errno.ENXIO, SOCKET)
    else:
        fd = os.open(target, os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)


def written_in_place(path: str) -> bool:
    """Whether path's bytes go straight to a reader (standard output, a FIFO, a device), so that a write
    cut short leaves part of them there; a regular file is renamed in whole or not at all."""
    if path == STANDARD_OUTPUT:
        return True
    try:
        mode = _destination(path)[1]
    except OSError:
        return False
    return mode is not None and not stat.S_ISREG(mode)


def why_not_writable(path: str) -> str:
    """Why path cannot be written ("" when it can), found without waiting, leaving a file
    behind or replacing anything. A FIFO is checked for permission only: opening it would
    hand a reader already waiting an end of file."""
    if path == STANDARD_OUTPUT:
        return ""
    try:
        target, mode = _destination(path)
        if mode is None or stat.S_ISREG(mode):
            folder = os.path.dirname(target) or "."
            if not os.path.isdir(folder):
                return f"folder '{folder}' does not exist"
            fd, probe = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", dir=folder)
            os.close(fd)
            os.unlink(probe)
            return ""
        if stat.S_ISDIR(mode):
            return "it is a folder"
        if stat.S_ISSOCK(mode):
            return SOCKET
        if stat.S_ISFIFO(mode):
            return "" if os.access(target, os.W_OK) else os.strerror(errno.EACCES)
        os.close(os.open(target, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC))  # a device
        return ""
    except OSError as e:
        return e.strerror or str(e)


def links_to(path: str) -> str:
    """' (it links to TARGET)' when path is a symbolic link, for messages; else ''."""
    return f" (it links to '{os.path.realpath(path)}')" if os.path.islink(path) else ""


def _destination(path: str):
    """(where the bytes go, its st_mode or None when nothing is there yet). A FIFO, device or
    socket is opened by the name given, as the kernel follows its links (/dev/stdout reaches a
    pipe through /proc's "pipe:[N]", which is no path); a regular file, or nothing yet, at the
    end of its links, where the new file is renamed in."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        return path, mode
    return os.path.realpath(path), mode


def _replace(target: str, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", dir=os.path.dirname(target) or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise

"""The rows checksum ferry writes beside each workload's rows (src/core/json_checksum.hpp).

FNV-1a (64 bits) of a canonical form that C++ and Python print byte for byte
alike; a JSON library's own float printing would not (nlohmann's Grisu2 is
not always the shortest form Python prints). It tells a file edited after the
run, not one whose checksum was recomputed by someone who edited it.
"""
from __future__ import annotations

import math
from typing import Any

_OFFSET = 0xCBF29CE484222325
_PRIME = 0x100000001B3
_MASK = 0xFFFFFFFFFFFFFFFF


def json_checksum(value: Any) -> str:
    """'fnv1a64:<16 hex digits>' of a value as json.loads returns it."""
    canonical = bytearray()
    _append(canonical, value)
    h = _OFFSET
    for byte in canonical:
        h = ((h ^ byte) * _PRIME) & _MASK
    return f"fnv1a64:{h:016x}"


def _utf8(s: str) -> bytes:
    # A lone surrogate (json.loads accepts "\ud800") has no UTF-8 form; ferry never writes one.
    return s.encode("utf-8", errors="surrogatepass")


def _append_string(out: bytearray, s: str) -> None:
    data = _utf8(s)
    out += b"s%d:" % len(data)
    out += data


def _append(out: bytearray, v: Any) -> None:
    if v is None:
        out += b"null"
    elif isinstance(v, bool):  # before int: a bool is an int in Python
        out += b"true" if v else b"false"
    elif isinstance(v, int):
        out += str(v).encode()
    elif isinstance(v, float):
        out += b"%.17g" % v if math.isfinite(v) else b"null"
    elif isinstance(v, str):
        _append_string(out, v)
    elif isinstance(v, list):
        out += b"["
        for i, item in enumerate(v):
            if i:
                out += b","
            _append(out, item)
        out += b"]"
    elif isinstance(v, dict):
        out += b"{"
        for i, key in enumerate(sorted(v, key=_utf8)):
            if i:
                out += b","
            _append_string(out, key)
            out += b":"
            _append(out, v[key])
        out += b"}"
    else:
        raise TypeError(f"not a JSON value: {type(v).__name__}")

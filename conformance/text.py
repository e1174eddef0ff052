"""Strings a backend chose, made safe to show (placeholder; see the file-side work)."""
from __future__ import annotations


def printable(text: str) -> str:
    """`text` with control characters and lone surrogates shown as escapes."""
    return "".join(c if c.isprintable() and not 0xD800 <= ord(c) <= 0xDFFF else ascii(c)[1:-1] for c in str(text))

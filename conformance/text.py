"""Strings a backend chose (names, versions, messages, errors), made safe for each place they are shown.

A backend may send any string: lone surrogates, NUL, ESC sequences, megabytes. results.json keeps them
losslessly (outputs.py); everywhere else they pass through one function per format, here:

    printable(s)    the terminal: every control, surrogate and non-character as a visible escape,
                    one line, cut to a length a person reads
    markup(s)       XML 1.0 and HTML text: the characters those formats forbid as visible escapes
                    (tab, newline and carriage return stay); the markup's own escaping is the
                    serializer's (ElementTree, jinja autoescape)
"""
from __future__ import annotations

import re
import shlex
from typing import Any

TERMINAL_CHARS = 4000       # most characters of one field printed on the terminal

# Forbidden in XML 1.0 (and parse errors in HTML): C0 controls but tab/LF/CR, C1 controls and DEL
# (allowed by XML but invisible and dangerous on a terminal that shows the file), surrogates,
# U+FFFE/U+FFFF and the other non-characters.
_NOT_MARKUP = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff"
                         + "".join(f"{chr(p)}-{chr(p + 1)}" for p in range(0x1fffe, 0x110000, 0x10000)) + "]")
# On the terminal also tab, newline, carriage return and the line / paragraph separators: a message
# must not start a line of its own that looks like the kit's ("CONFORMS: ...").
_NOT_TERMINAL = re.compile(_NOT_MARKUP.pattern[:-1] + "\t\n\r\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def escape_char(ch: str) -> str:
    """`\\n`, `\\x1b`, `\\udc80`, `\\U0001fffe`: the escape Python itself would write."""
    code = ord(ch)
    return _SHORT.get(ch) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000
                              else f"\\U{code:08x}")


def _escaped(pattern: re.Pattern[str], value: Any) -> str:
    text = value if isinstance(value, str) else str(value)
    return pattern.sub(lambda m: escape_char(m.group()), text)


def printable(value: Any, limit: int = TERMINAL_CHARS) -> str:
    """`value` as text for the terminal: one line, no raw control sequence, at most `limit` characters
    of it (the rest counted, not printed)."""
    text = value if isinstance(value, str) else str(value)
    more = len(text) - limit
    shown = _escaped(_NOT_TERMINAL, text[:limit] if more > 0 else text)
    return shown + (f"... ({more} more characters)" if more > 0 else "")


def markup(value: Any) -> str:
    """`value` as text an XML 1.0 or HTML document may hold (escaping <, & and quotes is left to the
    serializer)."""
    return _escaped(_NOT_MARKUP, value)


def replay_command(reproducer: str, backend_spec: str) -> str:
    """The command that replays a reproducer, shell-quoted so that it can be pasted as it is (an
    `exec:` backend's command line with spaces and quotes included)."""
    return shlex.join(["ascend-conformance", "replay", reproducer, "--backend", backend_spec])


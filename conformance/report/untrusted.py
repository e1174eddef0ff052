"""Reading a file the kit did not write itself (a results.json, a reproducer, a call file, a waiver
file): it may be truncated, binary, forged or huge. Every problem is a FileFormatError whose message is
one line naming the file (and the line, where YAML knows it); nothing here raises anything else.

    read_text(path, limit)   its text: the size checked before a byte is read, UTF-8 strictly
    load_yaml(path, limit)   its YAML: no anchors or aliases (an alias bomb is refused at its first
                             anchor, not expanded), dates that exist, numbers Python can hold
"""
from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

from conformance.report.text import printable

MAX_FILE_BYTES = 64 << 20        # a reproducer, a call file or a waiver file (the kit's are a few KB)
MAX_RESULTS_BYTES = 256 << 20    # a results.json (a full run's is a few MB; room for long messages)
MAX_DEPTH = 64                   # lists and mappings in one another (libyaml crashes some 40,000 deep)

class FileFormatError(ValueError):
    """A file that cannot be used; the message is one line naming the file."""


def read_text(path: str | Path, limit: int = MAX_FILE_BYTES, what: str = "") -> str:
    """The file's text, refused before it is read when it holds more than `limit` bytes."""
    name = printable(str(path))
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > limit:
                raise FileFormatError(f"{name}: {size} bytes, more than the {limit} bytes a{what and ' ' + what} "
                                      f"file may have")
            data = f.read(limit + 1)
    except OSError as exc:
        raise FileFormatError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:                   # a file that grew, or a device that reports no size
        raise FileFormatError(f"{name}: more than the {limit} bytes a{what and ' ' + what} file may have")
    if b"\0" in data:
        raise FileFormatError(f"{name}: a binary file (NUL byte at offset {data.index(0)}), not text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileFormatError(f"{name}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


@functools.lru_cache(maxsize=1)
def _loaders() -> tuple[type, type, type]:
    """(the loader whose events are screened, the loader, the one that leaves dates as text), made when a
    command first reads a YAML file: PyYAML is imported then, not at every start."""
    import yaml
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class NoDatesOutOfRange(base):      # type: ignore[misc, valid-type]
        """Safe YAML whose bad dates and oversized integers are YAML errors with their line, not a
        ValueError from the depths of the constructor."""

        def construct_yaml_timestamp(self, node):
            try:
                return super().construct_yaml_timestamp(node)
            except (ValueError, OverflowError) as exc:
                raise yaml.constructor.ConstructorError(None, None, f"invalid date {node.value!r} ({exc})",
                                                        node.start_mark) from None

        def construct_yaml_int(self, node):
            try:
                return super().construct_yaml_int(node)
            except ValueError as exc:
                raise yaml.constructor.ConstructorError(None, None, f"invalid integer ({exc})",
                                                        node.start_mark) from None

    NoDatesOutOfRange.add_constructor("tag:yaml.org,2002:timestamp", NoDatesOutOfRange.construct_yaml_timestamp)
    NoDatesOutOfRange.add_constructor("tag:yaml.org,2002:int", NoDatesOutOfRange.construct_yaml_int)

    class DatesAsText(NoDatesOutOfRange):
        """The same, with dates left as their text, for a reader that checks them field by field (and so
        can name the field of an impossible one)."""

    DatesAsText.add_constructor("tag:yaml.org,2002:timestamp", DatesAsText.construct_scalar)
    return base, NoDatesOutOfRange, DatesAsText


def _line(exc: Exception) -> str:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return f"line {mark.line + 1}: " if mark is not None else ""


def parse_yaml(text: str, name: str, dates: bool = True) -> Any:
    """YAML text as data; anchors, aliases and deep nesting refused on the event stream before anything
    is built (so an alias bomb costs nothing)."""
    import yaml
    events, plain, dates_as_text = _loaders()
    try:
        depth = 0
        for event in yaml.parse(text, Loader=events):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise FileFormatError(f"{name}: line {event.start_mark.line + 1}: YAML anchors and aliases "
                                      "(&name, *name) are not accepted")
            depth += isinstance(event, yaml.CollectionStartEvent) - isinstance(event, yaml.CollectionEndEvent)
            if depth > MAX_DEPTH:
                raise FileFormatError(f"{name}: line {event.start_mark.line + 1}: nested more than {MAX_DEPTH} "
                                      "deep")
        return yaml.load(text, Loader=plain if dates else dates_as_text)
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc)
        raise FileFormatError(f"{name}: not valid YAML: {_line(exc)}{printable(' '.join(str(problem).split()), 300)}") \
            from None
    except RecursionError:
        raise FileFormatError(f"{name}: not valid YAML: nested too deep") from None


def load_yaml(path: str | Path, limit: int = MAX_FILE_BYTES, what: str = "", dates: bool = True) -> Any:
    """A YAML (or JSON) file as data (`dates=False`: YAML dates as their text)."""
    return parse_yaml(read_text(path, limit, what), printable(str(path)), dates)


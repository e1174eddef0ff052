"""The two values every part of the kit passes around: a `Tensor` operand and a `Call`.

A call is plain data (docs/architecture.md, "The public contract"): it round-trips exactly through YAML and JSON,
which is what a reproducer file is. `Call.from_dict` refuses malformed input with a message naming
the field, so a reproducer with a typo fails loudly instead of running something else.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from json.encoder import encode_basestring
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

SCOPES = ("GM", "UB", "L1")
_TENSOR_KEYS = ("scope", "addr", "dtype", "numel")
_TENSOR_FIELDS = frozenset(_TENSOR_KEYS)
_CALL_KEYS = ("api", "product", "form", "args")


_JSON = json.JSONEncoder(ensure_ascii=False)
_new = object.__new__


class CallFormatError(ValueError):
    """A call (or a tensor inside it) given as data is malformed; the message names the field."""


@dataclass(frozen=True, init=False)
class Tensor:
    """An operand: `numel` elements of `dtype` starting at byte `addr` of `scope` (TIK's OUT is GM)."""

    scope: str
    addr: int
    dtype: str
    numel: int

    def __init__(self, scope: str, addr: int, dtype: str, numel: int) -> None:
        """The generated __init__ of a frozen dataclass, less its cost: the generator makes hundreds of
        tensors per call, nearly all plainly valid (checked here at once; the rest by
        _check_tensor_fields, which words the error)."""
        if not _plainly_valid(scope, addr, dtype, numel):
            _check_tensor_fields(scope, addr, dtype, numel, "tensor")
        self.__dict__.update(scope=scope, addr=addr, dtype=dtype, numel=numel)     # frozen: no setattr

    @classmethod
    def entries(cls, scope: str, dtype: str, addrs: list[int], numels: list[int]) -> list["Tensor"]:
        """Tensors of one scope and dtype at `addrs`, `numels` elements long (a list operand's entries), as
        __init__ makes each, their fields checked at once for all (the generator makes them by the dozen)."""
        if not (addrs and len(addrs) == len(numels) and {*map(type, addrs), *map(type, numels)} == {int}
                and min(addrs) >= 0 and min(numels) >= 0 and _plainly_valid(scope, 0, dtype, 0)):
            return [cls(scope, a, dtype, n) for a, n in zip(addrs, numels)]
        made = []
        for addr, numel in zip(addrs, numels):
            tensor = _new(cls)
            tensor.__dict__.update(scope=scope, addr=addr, dtype=dtype, numel=numel)
            made.append(tensor)
        return made

    def to_dict(self) -> dict[str, Any]:
        return {"scope": self.scope, "addr": self.addr, "dtype": self.dtype, "numel": self.numel}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "tensor") -> "Tensor":
        if type(data) is dict and data.keys() == _TENSOR_FIELDS:         # a file's usual tensor, at once
            scope, addr, dtype, numel = data["scope"], data["addr"], data["dtype"], data["numel"]
            if _plainly_valid(scope, addr, dtype, numel):
                return cls(scope, addr, dtype, numel)
        if not isinstance(data, Mapping):
            raise CallFormatError(f"{where}: expected a mapping with keys {', '.join(_TENSOR_KEYS)}, got {data!r}")
        unknown = sorted(set(data) - set(_TENSOR_KEYS))
        missing = [k for k in _TENSOR_KEYS if k not in data]
        if unknown:
            raise CallFormatError(f"{where}: unknown field {unknown[0]!r} (a tensor has {', '.join(_TENSOR_KEYS)})")
        if missing:
            raise CallFormatError(f"{where}: missing field {missing[0]!r}")
        _check_tensor_fields(data["scope"], data["addr"], data["dtype"], data["numel"], where)
        return cls(data["scope"], data["addr"], data["dtype"], data["numel"])


def _plainly_valid(scope: Any, addr: Any, dtype: Any, numel: Any) -> bool:
    """What _check_tensor_fields accepts, told at once (it words the error where this is False)."""
    return (type(addr) is int and type(numel) is int and addr >= 0 and numel >= 0 and type(dtype) is str
            and dtype != "" and scope in SCOPES)


def _check_tensor_fields(scope: Any, addr: Any, dtype: Any, numel: Any, where: str) -> None:
    if scope not in SCOPES:
        raise CallFormatError(f"{where}.scope: {scope!r} is not one of {', '.join(SCOPES)}")
    for name, value in (("addr", addr), ("numel", numel)):
        if not _is_int(value) or value < 0:
            raise CallFormatError(f"{where}.{name}: expected a non-negative integer, got {value!r}")
    if not isinstance(dtype, str) or not dtype:
        raise CallFormatError(f"{where}.dtype: expected a dtype name, got {dtype!r}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _looks_like_tensor(value: Any) -> bool:
    # Any tensor field makes a mapping a tensor, so that a typo in another one ("scop") is refused by
    # Tensor.from_dict with the field's name instead of passing silently as a plain mapping argument.
    if type(value) is dict:
        return not value.keys().isdisjoint(_TENSOR_FIELDS)
    return isinstance(value, Mapping) and any(k in value for k in _TENSOR_KEYS)


@dataclass
class Call:
    """One invocation of one API on one product, with the vendor signature's own argument names."""

    api: str
    product: str
    args: dict[str, Any] = field(default_factory=dict)
    form: str | None = None

    # -- accessors used by the rule kinds and the index math ------------------------------------
    def tensor(self, name: str) -> Tensor:
        value = self.args.get(name)
        if not isinstance(value, Tensor):
            raise CallFormatError(f"call.args.{name}: expected a tensor, got {value!r}")
        return value

    def tensors(self, name: str) -> list[Tensor]:
        """The entries of a list operand (vec_trans_scatter's dst_list)."""
        value = self.args.get(name)
        if not isinstance(value, (list, tuple)) or not all(map(isinstance, value, repeat(Tensor))):
            raise CallFormatError(f"call.args.{name}: expected a list of tensors, got {value!r}")
        return list(value)

    def param(self, name: str) -> Any:
        """An argument by name; a dotted name reaches into a mapping argument (`intriParams.nValue`)."""
        head, _, field_name = name.partition(".")
        value = self.args.get(head)
        if field_name:
            if not isinstance(value, Mapping):
                raise CallFormatError(f"call.args.{head}: expected a mapping with field {field_name!r}, got {value!r}")
            if field_name not in value:
                raise CallFormatError(f"call.args.{head}: missing field {field_name!r}")
            value = value[field_name]
        return value

    def int_arg(self, name: str) -> int:
        value = self.param(name)
        if not _is_int(value):
            raise CallFormatError(f"call.args.{name}: expected an integer, got {value!r}")
        number: int = value
        return number

    def replace(self, **args: Any) -> "Call":
        """A copy with some arguments replaced (the call itself is never mutated by the kit)."""
        return Call(self.api, self.product, {**self.args, **args}, self.form)

    # -- plain data ------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"api": self.api, "product": self.product, "form": self.form,
                "args": {k: _arg_to_data(v) for k, v in self.args.items()}}

    @classmethod
    def from_dict(cls, data: Any, where: str = "call") -> "Call":
        if not isinstance(data, Mapping):
            raise CallFormatError(f"{where}: expected a mapping with keys api, product, args, got {type(data).__name__}")
        unknown = sorted(set(data) - set(_CALL_KEYS))
        if unknown:
            raise CallFormatError(f"{where}: unknown field {unknown[0]!r} (a call has {', '.join(_CALL_KEYS)})")
        for key in ("api", "product"):
            if not isinstance(data.get(key), str):
                raise CallFormatError(f"{where}.{key}: expected a string, got {data.get(key)!r}")
        form = data.get("form")
        if form is not None and not isinstance(form, str):
            raise CallFormatError(f"{where}.form: expected a string or null, got {form!r}")
        args = data.get("args", {})
        if not isinstance(args, Mapping):
            raise CallFormatError(f"{where}.args: expected a mapping, got {args!r}")
        return cls(data["api"], data["product"],
                   {k: v if type(v) in _PLAIN else _arg_from_data(v, f"{where}.args.{k}") for k, v in args.items()},
                   form)

    def to_json(self) -> str:
        """json.dumps(self.to_dict(), ensure_ascii=False); written directly where every value is plain
        (_plain_json), through its encoder made once otherwise."""
        try:
            return (f'{{"api": {_text(self.api)}, "product": {_text(self.product)}, "form": '
                    f'{"null" if self.form is None else _text(self.form)}, "args": {_plain_json(self.args)}}}')
        except _NotPlain:
            return _JSON.encode(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> "Call":
        return cls.from_dict(json.loads(text))

    def to_yaml(self) -> str:
        # PyYAML imported here: a run writes no call file, and the import is a cost at every start
        import yaml
        data = self.to_dict()
        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=None)
        if yaml.safe_load(text) != data:
            # PyYAML writes U+0085 (NEL) raw under allow_unicode and reads it back as a line break;
            # escaping every non-ASCII character keeps the round trip exact.
            text = yaml.safe_dump(data, sort_keys=False, allow_unicode=False, default_flow_style=None)
        return text

    @classmethod
    def from_yaml(cls, text: str) -> "Call":
        import yaml
        return cls.from_dict(yaml.safe_load(text))


_SPLIT_NAMES: dict[str, tuple[str, str]] = {}      # name -> (head, field): the generator nests per draw


def nest(params: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments from parameters by name: dotted names become fields of a mapping argument."""
    out: dict[str, Any] = {}
    for name, value in params.items():
        split = _SPLIT_NAMES.get(name)
        if split is None:
            head, _, field_name = name.partition(".")
            split = head, field_name
            if len(_SPLIT_NAMES) < 4096:           # parameter names: a few per spec
                _SPLIT_NAMES[name] = split
        head, field_name = split
        if field_name:
            fields = out.get(head)
            if fields is None:              # (setdefault would make an empty dict for every field)
                fields = out[head] = {}
            fields[field_name] = value
        else:
            out[name] = value
    return out


_PLAIN = frozenset((int, bool, str, type(None)))      # values that are their own data (exact types)


class _NotPlain(Exception):
    """A value _plain_json leaves to the JSON encoder."""


_TEXTS: dict[str, str] = {}         # string -> its JSON text: dtypes, scopes, names (a few per spec)


def _text(value: Any) -> str:
    """A str's JSON text, as the encoder writes it (ensure_ascii off)."""
    if type(value) is not str:
        raise _NotPlain
    text = _TEXTS.get(value)
    if text is None:
        text = encode_basestring(value)
        if len(_TEXTS) < 4096:
            _TEXTS[value] = text
    return text


def _plain_json(value: Any) -> str:
    """The JSON text json.dumps(_arg_to_data(value), ensure_ascii=False) gives, for values of exact
    types only (int, bool, str, None, Tensor, and lists, tuples and dicts with str keys of them; a
    mapping argument is a dict): _NotPlain for anything else, which the encoder writes."""
    kind = type(value)
    if kind is int:
        return int.__repr__(value)
    if kind is Tensor:
        addr, numel = value.addr, value.numel
        if type(addr) is not int or type(numel) is not int:
            raise _NotPlain
        return (f'{{"scope": {_text(value.scope)}, "addr": {int.__repr__(addr)}, "dtype": {_text(value.dtype)}, '
                f'"numel": {int.__repr__(numel)}}}')
    if kind is dict:
        return "{" + ", ".join([f"{_text(k)}: {_plain_json(v)}" for k, v in value.items()]) + "}"
    if kind is list or kind is tuple:
        return "[" + ", ".join([_plain_json(v) for v in value]) + "]"
    if kind is str:
        return _text(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    raise _NotPlain


def _arg_to_data(value: Any) -> Any:
    if type(value) in _PLAIN:                          # most arguments: at once, before the ABC checks
        return value
    if isinstance(value, Tensor):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [_arg_to_data(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _arg_to_data(v) for k, v in value.items()}
    return value


def _arg_from_data(value: Any, where: str) -> Any:
    if _looks_like_tensor(value):
        return Tensor.from_dict(value, where)
    if isinstance(value, list):
        return [_arg_from_data(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        return {k: _arg_from_data(v, f"{where}.{k}") for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    raise CallFormatError(f"{where}: unsupported value {value!r}")

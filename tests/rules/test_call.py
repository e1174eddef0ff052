"""Tensor and Call as plain data (docs/architecture.md): a call round-trips exactly through YAML
and JSON (that is what a reproducer file is), and `from_dict` refuses malformed input with a message
naming the field."""
from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from oracle import Call, CallFormatError, Tensor
from oracle.call import SCOPES


def strict(value):
    """A value with its types spelled out, so that True vs 1, 1 vs 1.0 or a tuple vs a list differ."""
    if isinstance(value, dict):
        return ("dict", tuple((k, strict(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(strict(v) for v in value))
    if isinstance(value, Tensor):
        return ("Tensor", strict(value.to_dict()))
    return (type(value).__name__, value)


def assert_same_call(a: Call, b: Call) -> None:
    assert a == b
    assert strict((a.api, a.product, a.form, a.args)) == strict((b.api, b.product, b.form, b.args))


# -- strategies ---------------------------------------------------------------------------------

names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,11}", fullmatch=True)
# Arbitrary text, as a dtype or a string argument could hold (surrogates cannot be encoded at all).
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
ints = st.integers(-(2**63), 2**64)
tensors = st.builds(Tensor, scope=st.sampled_from(SCOPES), addr=st.integers(0, 2**40),
                    dtype=texts.filter(bool), numel=st.integers(0, 2**32))
scalars = st.one_of(ints, st.booleans(), st.none(), texts)
# A mapping argument (intriParams) must not use a tensor field name as a key: that makes it a tensor.
param_mappings = st.dictionaries(names.filter(lambda k: k not in ("scope", "addr", "dtype", "numel")),
                                 st.one_of(ints, st.lists(ints, max_size=3)), max_size=7)
arg_values = st.one_of(tensors, scalars, st.lists(st.one_of(tensors, ints), max_size=4), param_mappings)
calls = st.builds(Call, api=texts, product=texts,
                  args=st.dictionaries(names, arg_values, max_size=8),
                  form=st.one_of(st.none(), texts))


@settings(max_examples=120)
@given(calls)
def test_round_trip_json_property(call):
    """Any call survives to_json -> from_json with the same values and the same types."""
    assert_same_call(Call.from_json(call.to_json()), call)


odd_values = st.one_of(st.floats(allow_nan=False), st.tuples(ints, texts), st.dictionaries(ints, ints, max_size=2),
                       st.dictionaries(names, st.one_of(st.floats(allow_nan=False), texts, st.none()), max_size=2))


@settings(max_examples=150)
@given(calls, st.dictionaries(names, odd_values, max_size=2))
def test_json_text_is_the_encoders(call, odd):
    """to_json writes the text json.dumps(to_dict(), ensure_ascii=False) does, byte for byte (a call's text
    seeds its images): for plain calls, which it writes itself, and with values of other types (floats,
    int keys, tuples), which it leaves to the encoder."""
    assert call.to_json() == json.dumps(call.to_dict(), ensure_ascii=False)
    mixed = call.replace(**odd)
    assert mixed.to_json() == json.dumps(mixed.to_dict(), ensure_ascii=False)


@settings(max_examples=150)
@given(calls)
def test_round_trip_yaml_property(call):
    """Any call survives to_yaml -> from_yaml with the same values and the same types."""
    assert_same_call(Call.from_yaml(call.to_yaml()), call)


@settings(max_examples=60)
@given(calls)
def test_round_trip_dict_property(call):
    """to_dict is plain data (json-serialisable) and from_dict inverts it."""
    data = call.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert_same_call(Call.from_dict(data), call)


# -- concrete round trips ------------------------------------------------------------------------

DATA_MOVE = Call("data_move", "ascend910b",
                 {"dst": Tensor("UB", 64, "float16", 256), "src": Tensor("GM", 6, "float16", 256),
                  "sid": 0, "nburst": 2, "burst": 8, "src_stride": 1, "dst_stride": 0})
SCATTER = Call("scatter", "ascend910b",
               {"dstLocal": Tensor("UB", 0, "uint16", 128), "srcLocal": Tensor("UB", 256, "uint16", 128),
                "dstOffsetLocal": Tensor("UB", 512, "uint32", 128), "dstBaseAddr": 0,
                "mask": [8, 0], "repeatTimes": 1, "srcRepStride": 8}, form="mask_bits")
VEC_TRANS = Call("vec_trans_scatter", "ascend910",
                 {"dst_high_half": False, "src_high_half": True,
                  "dst_list": [Tensor("UB", 32 * i, "int8", 32) for i in range(16)],
                  "src_list": [Tensor("UB", 1024 + 32 * i, "int8", 32) for i in range(16)],
                  "repeat_times": 1, "dst_rep_stride": 0, "src_rep_stride": 0})
NZ2ND = Call("data_copy_nz2nd", "ascend910b",
             {"dst": Tensor("GM", 0, "float16", 1024), "src": Tensor("UB", 0, "float16", 1024),
              "intriParams": {"ndNum": 1, "nValue": 32, "dValue": 32, "srcNdMatrixStride": 0,
                              "srcNStride": 32, "dstDStride": 32, "dstNdMatrixStride": 0}})


@pytest.mark.parametrize("call", [DATA_MOVE, SCATTER, VEC_TRANS, NZ2ND], ids=lambda c: c.api)
def test_round_trip_concrete(call):
    """The argument shapes of the five pages: tensors, tensor lists, bools, a [mask0, mask1] list, a mapping."""
    assert_same_call(Call.from_json(call.to_json()), call)
    assert_same_call(Call.from_yaml(call.to_yaml()), call)


def test_to_dict_layout():
    """The reproducer layout: api, product, form, args; tensors as {scope, addr, dtype, numel}."""
    assert DATA_MOVE.to_dict() == {
        "api": "data_move", "product": "ascend910b", "form": None,
        "args": {"dst": {"scope": "UB", "addr": 64, "dtype": "float16", "numel": 256},
                 "src": {"scope": "GM", "addr": 6, "dtype": "float16", "numel": 256},
                 "sid": 0, "nburst": 2, "burst": 8, "src_stride": 1, "dst_stride": 0}}


def test_yaml_is_readable_text():
    """A YAML reproducer keeps non-ASCII text as is and quotes strings that YAML would read as other types."""
    call = Call("data_move", "ascend910b", {"note": "搬运", "flag": "yes", "num": "12", "null": "null"})
    text = call.to_yaml()
    assert "搬运" in text
    assert_same_call(Call.from_yaml(text), call)


def test_yaml_keeps_line_break_characters():
    """U+0085 (NEL), U+2028 and a plain newline inside strings survive the YAML round trip
    (PyYAML folds a raw NEL into a space unless it is escaped)."""
    call = Call("data_move", "ascend910b", {"a": "x\x85y", "b": "x\u2028y", "c": "x\ny",
                                            "t": Tensor("GM", 0, "\x85", 1)}, form="\x85")
    assert_same_call(Call.from_yaml(call.to_yaml()), call)


def test_replace_does_not_mutate():
    changed = DATA_MOVE.replace(burst=9)
    assert changed.args["burst"] == 9 and DATA_MOVE.args["burst"] == 8
    assert changed.api == DATA_MOVE.api and changed.product == DATA_MOVE.product


# -- malformed input: the message names the field ---------------------------------------------------

def good_dict() -> dict:
    return json.loads(DATA_MOVE.to_json())


def refuse(data, *fragments: str) -> str:
    with pytest.raises(CallFormatError) as info:
        Call.from_dict(data)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


def test_tensor_key_typo():
    """'scop' instead of 'scope' is refused (not passed on as a plain mapping argument), naming both."""
    data = good_dict()
    data["args"]["dst"]["scop"] = data["args"]["dst"].pop("scope")
    refuse(data, "call.args.dst", "'scop'", "scope")


def test_tensor_key_typo_addr():
    data = good_dict()
    data["args"]["src"]["adr"] = data["args"]["src"].pop("addr")
    refuse(data, "call.args.src", "'adr'")


def test_tensor_missing_field():
    data = good_dict()
    del data["args"]["src"]["numel"]
    refuse(data, "call.args.src", "missing field 'numel'")


def test_bad_scope():
    data = good_dict()
    data["args"]["dst"]["scope"] = "UBB"
    refuse(data, "call.args.dst.scope", "'UBB'", "GM, UB, L1")


def test_lowercase_scope():
    data = good_dict()
    data["args"]["dst"]["scope"] = "ub"
    refuse(data, "call.args.dst.scope", "'ub'")


@pytest.mark.parametrize("field,value", [("addr", -1), ("addr", 1.5), ("addr", True), ("addr", "0"),
                                         ("numel", -4), ("numel", None)])
def test_bad_addr_or_numel(field, value):
    data = good_dict()
    data["args"]["src"][field] = value
    refuse(data, f"call.args.src.{field}", "non-negative integer", repr(value))


def test_bad_dtype_type():
    data = good_dict()
    data["args"]["src"]["dtype"] = 16
    refuse(data, "call.args.src.dtype", "16")


def test_tensor_in_list_names_index():
    data = VEC_TRANS.to_dict()
    data["args"]["src_list"][3]["scope"] = "UBB"
    refuse(data, "call.args.src_list[3].scope", "'UBB'")


def test_missing_api():
    data = good_dict()
    del data["api"]
    refuse(data, "call.api", "expected a string")


def test_api_not_a_string():
    data = good_dict()
    data["product"] = 910
    refuse(data, "call.product", "910")


def test_unknown_top_level_key():
    data = good_dict()
    data["prodcut"] = data["product"]
    refuse(data, "call", "unknown field 'prodcut'", "api, product, form, args")


def test_args_not_a_mapping():
    data = good_dict()
    data["args"] = [1, 2, 3]
    refuse(data, "call.args", "expected a mapping", "[1, 2, 3]")


def test_form_not_a_string():
    data = good_dict()
    data["form"] = 3
    refuse(data, "call.form", "3")


def test_not_a_mapping_at_all():
    refuse([1, 2], "call", "expected a mapping")
    with pytest.raises(CallFormatError, match="call: expected a mapping"):
        Call.from_yaml("- just\n- a list\n")


def test_unsupported_argument_value():
    data = good_dict()
    data["args"]["burst"] = 1.5
    refuse(data, "call.args.burst", "unsupported value 1.5")


def test_tensor_constructor_validates():
    """Tensor(...) built in code is checked like one read from a file."""
    with pytest.raises(CallFormatError, match=r"tensor\.scope: 'OUT'"):
        Tensor("OUT", 0, "float16", 1)
    with pytest.raises(CallFormatError, match=r"tensor\.addr"):
        Tensor("GM", -32, "float16", 1)
    with pytest.raises(CallFormatError, match=r"tensor\.dtype"):
        Tensor("GM", 0, "", 1)


def test_tensor_entries_are_the_tensors_init_makes():
    """Tensor.entries makes each entry as Tensor(...) does, and refuses what it refuses, by the same words."""
    made = Tensor.entries("UB", "float16", [0, 64, 32], [16, 8, 0])
    assert made == [Tensor("UB", 0, "float16", 16), Tensor("UB", 64, "float16", 8), Tensor("UB", 32, "float16", 0)]
    assert all(type(t) is Tensor and hash(t) == hash(Tensor(t.scope, t.addr, t.dtype, t.numel)) for t in made)
    for scope, dtype, addrs, numels, words in (("UB", "float16", [0, -32], [1, 1], r"tensor\.addr"),
                                               ("UB", "float16", [0, True], [1, 1], r"tensor\.addr"),
                                               ("UB", "float16", [0, 32], [1, 1.0], r"tensor\.numel"),
                                               ("OUT", "float16", [0], [1], r"tensor\.scope: 'OUT'"),
                                               ("UB", "", [0], [1], r"tensor\.dtype")):
        with pytest.raises(CallFormatError, match=words):
            Tensor.entries(scope, dtype, addrs, numels)


def test_call_format_error_is_a_value_error():
    assert issubclass(CallFormatError, ValueError)


def test_yaml_reproducer_from_text():
    """A hand-written reproducer file reads back to the call it describes."""
    text = """
api: data_move
product: ascend310b
form: null
args:
  dst: {scope: L1, addr: 32, dtype: int8, numel: 64}
  src: {scope: GM, addr: 3, dtype: int8, numel: 64}
  sid: 0
  nburst: 1
  burst: 2
  src_stride: 0
  dst_stride: 0
"""
    call = Call.from_yaml(text)
    assert call.tensor("dst") == Tensor("L1", 32, "int8", 64)
    assert call.tensor("src") == Tensor("GM", 3, "int8", 64)
    assert call.int_arg("burst") == 2 and call.form is None
    assert yaml.safe_load(call.to_yaml()) == yaml.safe_load(text)

"""DataCopy NZ->ND's `patched` (004_dc35eb371305363d.txt) held to what it stands for: a legal call's written
bytes as one span of GM (what the judge compares piece by piece) must be the image `apply` leaves on a
whole copy, byte for byte, with the inputs untouched; where it cannot tell (src and dst in one image, a
byte outside its image) it says None and `apply` answers.
"""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, Tensor, check, expected
from oracle.apis import data_copy_nz2nd
from oracle.expected import patched_image
from oracle.rules import context

UB = 196608
GM = 1 << 16
NOP = {"data_copy_nz2nd.ndNum.zero": "nop"}         # ndNum = 0 read as a call that moves nothing
FIELDS = ("ndNum", "nValue", "dValue", "srcNdMatrixStride", "srcNStride", "dstDStride", "dstNdMatrixStride")


def nz2nd(dtype: str, values: tuple[int, ...], dst_addr: int = 0, src_addr: int = 0) -> Call:
    width = {"int16": 2, "float16": 2, "float32": 4, "int32": 4}[dtype]
    return Call("data_copy_nz2nd", "ascend910b", {
        "dst": Tensor("GM", dst_addr, dtype, (GM - dst_addr) // width),
        "src": Tensor("UB", src_addr, dtype, (UB - src_addr) // width),
        "intriParams": dict(zip(FIELDS, values))})


LEGAL = [
    nz2nd("int16", (1, 2, 32, 1, 2, 32, 1)),                        # the module's example
    nz2nd("float16", (3, 5, 48, 20, 6, 48, 240), 4096, 512),        # matrices back to back, rows whole
    nz2nd("float16", (2, 4, 32, 10, 5, 70, 400), 1000, 64),         # gaps between rows and matrices
    nz2nd("float32", (2, 4, 32, 16, 4, 40, 200), 2048, 1024),        # 32-bit elements
    nz2nd("int16", (4, 1, 16, 1, 1, 16, 16), GM - 128),              # up to the end of GM
    nz2nd("float16", (0, 2, 32, 1, 2, 32, 1), 64),                  # nothing moves
]


@pytest.mark.parametrize("call", LEGAL, ids=range(len(LEGAL)))
def test_a_legal_call_s_patch_is_the_image_apply_leaves(call):
    assert check(call, readings=NOP) == []
    units = context(call).units
    rng = np.random.default_rng(11)
    ub, gm = rng.integers(0, 256, UB, dtype=np.uint8), rng.integers(0, 256, GM, dtype=np.uint8)
    whole = gm.copy()
    data_copy_nz2nd.apply(call, {"UB": ub, "GM": whole}, units)
    frozen_ub, frozen_gm = ub.copy(), gm.copy()
    frozen_ub.flags.writeable = frozen_gm.flags.writeable = False
    (scope, (lo, data)), = data_copy_nz2nd.patched(call, {"UB": frozen_ub, "GM": frozen_gm}, units).items()
    assert scope == "GM" and not data.flags.writeable
    assert patched_image(frozen_gm, lo, data).tobytes() == whole.tobytes()
    assert frozen_gm.tobytes() == gm.tobytes() and frozen_ub.tobytes() == ub.tobytes()
    if call.args["intriParams"]["ndNum"]:
        assert lo == call.args["dst"].addr and (whole != gm).any()
    lazy = expected(call, {"UB": frozen_ub, "GM": frozen_gm}, readings=NOP, patches=True)   # the judge's way
    assert lazy.memory["GM"] is frozen_gm and set(lazy.patches) == {"GM"}
    lazy.materialize()
    assert lazy.memory["GM"].tobytes() == whole.tobytes()


def test_a_call_past_its_image_or_within_one_image_is_left_to_apply():
    call = LEGAL[1]
    units = context(call).units
    ub, gm = np.zeros(UB, dtype=np.uint8), np.zeros(GM, dtype=np.uint8)
    assert data_copy_nz2nd.patched(call, {"UB": ub, "GM": gm[:4200]}, units) is None        # dst runs past GM
    assert data_copy_nz2nd.patched(call, {"UB": ub[:600], "GM": gm}, units) is None          # src runs past UB
    inside = Call(call.api, call.product, {**call.args, "dst": Tensor("UB", 65536, "float16", 1000)})
    assert data_copy_nz2nd.patched(inside, {"UB": ub, "GM": gm}, units) is None

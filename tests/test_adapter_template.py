"""The CANN adapter template (examples/cann_adapter) imports without the vendor stack, has the backend
shape the runner looks for (run_batch included), says clearly why it cannot start here, and turns calls
into the kernel source lines it documents."""
from __future__ import annotations

import importlib.util

import pytest

from conformance import BackendLoadError, load_backend
from oracle import Call, Tensor

from examples.cann_adapter import adapter


def test_shape_and_load_error():
    for method in ("supports", "run", "run_batch"):
        assert callable(getattr(adapter.CannAdapter, method))
    if importlib.util.find_spec("torch_npu") is not None:         # pragma: no cover - on an NPU machine
        pytest.skip("torch_npu is installed: the template would try to use it")
    with pytest.raises(BackendLoadError, match="needs torch and torch_npu"):
        load_backend("examples.cann_adapter.adapter:CannAdapter")


def test_calls_become_kernel_source():
    move = Call("data_move", "ascend910b", {"dst": Tensor("UB", 0, "float16", 256), "src": Tensor("GM", 64, "float16", 256),
                                            "sid": 0, "nburst": 2, "burst": 4, "src_stride": 1, "dst_stride": 0})
    text = adapter.KERNELS["data_move"](3, move)
    assert "LocalTensor<half> dst3 = images.ub<half>(0, 256);" in text
    assert "GlobalTensor<half> src3 = images.gm<half>(64, 256);" in text
    assert "data_move(dst3, src3, 0, 2, 4, 1, 0);" in text
    params = {"ndNum": 1, "nValue": 32, "dValue": 32, "srcNdMatrixStride": 1, "srcNStride": 32, "dstDStride": 32,
              "dstNdMatrixStride": 1}
    nz = Call("data_copy_nz2nd", "ascend910b", {"dst": Tensor("GM", 0, "float32", 1024),
                                                "src": Tensor("UB", 0, "float32", 1024), "intriParams": params})
    assert "Nz2NdParamsFull{1, 32, 32, 1, 32, 32, 1}" in adapter.KERNELS["data_copy_nz2nd"](0, nz)

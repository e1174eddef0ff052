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
    nd = Call("data_copy_nd2nz", "ascend910b", {"dst": Tensor("UB", 0, "float16", 1024),
                                                 "src": Tensor("GM", 0, "float16", 1024),
                                                 "intriParams": dict(ndNum=1, nValue=32, dValue=32, srcNdMatrixStride=0,
                                                                     srcDValue=32, dstNzC0Stride=32, dstNzNStride=1,
                                                                     dstNzMatrixStride=0)})
    assert adapter.KERNELS["data_copy_nd2nz"](0, nd).endswith(
        "DataCopy(dst0, src0, Nd2NzParams{1, 32, 32, 0, 32, 32, 1, 0});")


def test_the_datacopy_family_becomes_kernel_source():
    count = Call("data_copy", "ascend910b", {"dst": Tensor("UB", 0, "float32", 64), "src": Tensor("GM", 0, "float32", 64),
                                             "count": 64}, form="count")
    assert "DataCopy(dst0, src0, 64);" in adapter.KERNELS["data_copy"](0, count)
    strided = Call("data_copy", "ascend910b", {"dst": Tensor("UB", 0, "int16", 256), "src": Tensor("GM", 0, "int16", 256),
                                               "repeatParams": {"blockCount": 2, "blockLen": 3, "srcGap": 1, "dstGap": 0}},
                   form="params")
    assert "DataCopy(dst1, src1, DataCopyParams{2, 3, 1, 0});" in adapter.KERNELS["data_copy"](1, strided)
    pad = Call("data_copy_pad", "ascend910b", {"dst": Tensor("UB", 0, "float16", 64), "src": Tensor("GM", 0, "float16", 64),
                                               "dataCopyParams": {"blockCount": 1, "blockLen": 20, "srcStride": 0,
                                                                  "dstStride": 0},
                                               "padParams": {"isPad": True, "leftPadding": 1, "rightPadding": 2,
                                                             "paddingValue": 15360}}, form="gm_to_ub")
    text = adapter.KERNELS["data_copy_pad"](2, pad)
    assert "DataCopyExtParams{1, 20, 0, 0, 0}, DataCopyPadExtParams<half>{true, 1, 2, bit_cast<half>(15360)}" in text
    out = Call("data_copy_pad", "ascend910b", {"dst": Tensor("GM", 0, "float16", 64), "src": Tensor("UB", 0, "float16", 64),
                                               "dataCopyParams": {"blockCount": 1, "blockLen": 20, "srcStride": 0,
                                                                  "dstStride": 0}}, form="ub_to_gm")
    assert adapter.KERNELS["data_copy_pad"](3, out).endswith("DataCopyPad(dst3, src3, DataCopyExtParams{1, 20, 0, 0, 0});")


def test_gather_becomes_kernel_source():
    ops = {"dst": Tensor("UB", 0, "float16", 128), "src": Tensor("UB", 256, "float16", 128),
           "srcOffset": Tensor("UB", 512, "uint32", 128), "srcBaseAddr": 0}
    count = Call("gather", "ascend910b", {**ops, "count": 128}, form="count")
    text = adapter.KERNELS["gather"](2, count)
    assert "LocalTensor<uint32_t> offset2 = images.ub<uint32_t>(512, 128);" in text
    assert "Gather(dst2, src2, offset2, (uint32_t)0, (uint32_t)128);" in text
    bits = Call("gather", "ascend910b", {**ops, "mask": [8, 2], "repeatTime": 1, "dstRepStride": 8}, form="mask_bits")
    text = adapter.KERNELS["gather"](4, bits)
    assert "uint64_t mask4[2] = {8ULL, 2ULL};" in text and "Gather(dst4, src4, offset4, (uint32_t)0, mask4, 1, 8);" in text
    counted = Call("gather", "ascend910b", {**ops, "mask": 128, "repeatTime": 4, "dstRepStride": 8}, form="mask_continuous")
    assert "Gather(dst5, src5, offset5, (uint32_t)0, (uint64_t)128ULL, 4, 8);" in adapter.KERNELS["gather"](5, counted)


def test_copy_becomes_kernel_source():
    ops = {"dst": Tensor("UB", 0, "int32", 144), "src": Tensor("UB", 1024, "int32", 1152), "repeatTime": 18,
           "repeatParams": {"dstStride": 1, "srcStride": 1, "dstRepeatSize": 1, "srcRepeatSize": 8}}
    text = adapter.KERNELS["copy"](1, Call("copy", "ascend910b", {**ops, "mask": 8}, form="mask_continuous"))
    assert "Copy(dst1, src1, (uint64_t)8ULL, 18, CopyRepeatParams{1, 1, 1, 8});" in text
    text = adapter.KERNELS["copy"](2, Call("copy", "ascend910b", {**ops, "mask": [255, 0]}, form="mask_bits"))
    assert "uint64_t mask2[2] = {255ULL, 0ULL};" in text and "Copy(dst2, src2, mask2, 18, CopyRepeatParams{1, 1, 1, 8});" in text


def test_gatherb_becomes_kernel_source():
    call = Call("gatherb", "ascend910b", {"dst": Tensor("UB", 0, "uint16", 128), "src": Tensor("UB", 256, "uint16", 128),
                                          "offset": Tensor("UB", 512, "uint32", 8), "repeatTime": 1,
                                          "repeatParams": {"dstBlkStride": 1, "dstRepStride": 8}})
    text = adapter.KERNELS["gatherb"](0, call)
    assert "Gatherb(dst0, src0, offset0, 1, GatherRepeatParams{1, 8});" in text


def test_slices_become_kernel_source():
    names = ("startIndex", "endIndex", "stride", "burstLen", "shapeValue")
    call = Call("data_copy_slice", "ascend910b", {
        "dst": Tensor("UB", 0, "float32", 96), "src": Tensor("GM", 0, "float32", 261),
        "dstSliceInfo": [dict(zip(names, e)) for e in ((0, 47, 0, 3, 48), (0, 1, 0, 1, 2))],
        "srcSliceInfo": [dict(zip(names, e)) for e in ((16, 70, 7, 3, 87), (0, 2, 1, 1, 3))], "dimValue": 2})
    source = adapter.KERNELS["data_copy_slice"](3, call)
    assert "AscendC::SliceInfo srcSliceInfo3[] = {{16, 70, 7, 3, 87}, {0, 2, 1, 1, 3}};" in source
    assert "AscendC::SliceInfo dstSliceInfo3[] = {{0, 47, 0, 3, 48}, {0, 1, 0, 1, 2}};" in source
    assert source.endswith("DataCopy(dst3, src3, dstSliceInfo3, srcSliceInfo3, (uint32_t)2);")

"""Template of a hardware adapter: running the kit's calls on a real Ascend NPU through CANN.

THIS CANNOT RUN HERE. It was written without an NPU, without CANN and without torch_npu, and has never
been executed against hardware: it shows the shape an adapter takes, where each piece of a `Call` goes,
and which parts are the adapter author's to fill in (marked TODO). It imports without the vendor stack,
so the kit's tests check its shape; constructing it without torch_npu raises a clear error.

How a call becomes a kernel launch
----------------------------------
A call moves data between GM, UB and L1 of one AI Core. The host only sees GM, so every call runs as a
small kernel with three phases:

  1. prologue: copy the kit's UB / L1 images from GM staging buffers into the core's UB / L1
     (DataCopy GM->UB, GM->L1 over the whole buffer), so the instruction starts from the kit's bytes;
  2. the instruction under test, with the call's own arguments (data_move(dst, src, sid, nburst, ...),
     DataCopy(dst, src, Nz2NdParamsFull{...}), DataCopy(dst, src, Nd2NzParams{...}),
     DataCopy(dst, src, dstSliceInfo, srcSliceInfo, dimValue), Gather(...), Copy(...),
     Gatherb(...), Scatter(...), asc_gather(...), vec_trans_scatter(...));
  3. epilogue: copy UB / L1 back out to their staging buffers, so the kit can compare every byte.

A toolchain that refuses the call (a compile-time check, an assert in the kernel) is a refusal: raise
`Rejected` with its message. Anything else going wrong is a crash: let the exception out.

`run_batch` is the reason adapters exist: compiling and launching one kernel per call costs
milliseconds; one kernel holding many calls (each on its own staging buffers, launched on its own core
or one after another) amortises it. The kit hands an adapter with `run_batch` 32 calls at a time.

Use it as `--backend examples.cann_adapter.adapter:CannAdapter` (or register an entry point).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from conformance import BackendLoadError, Rejected
from oracle import Call, Tensor

# Product id -> the SoC names torch_npu.npu.get_device_name() reports for it.
# TODO(adapter author): complete from your CANN release notes; these are examples, not checked.
SOCS: dict[str, tuple[str, ...]] = {
    "ascend910b": ("Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4"),
    "ascend910_93": ("Ascend910_9391", "Ascend910_9392"),
    "ascend310p-aicore": ("Ascend310P3",),
}


class CannAdapter:
    """A backend that runs calls on the NPU in this machine (see the module docstring)."""

    name = "cann-adapter"
    version = "template"

    def __init__(self, device: int = 0):
        try:
            import torch            # noqa: F401  - the vendor stack, only needed to run
            import torch_npu        # noqa: F401
        except ImportError as exc:
            raise BackendLoadError(f"the CANN adapter needs torch and torch_npu on a machine with an Ascend "
                                   f"NPU ({exc}); this template has never been run against hardware") from None
        import torch
        self.torch = torch
        self.device = torch.device(f"npu:{device}")
        self.soc = torch.npu.get_device_name(device)

    # ------------------------------------------------------------------------------------ the contract

    def supports(self, api: str, product: str) -> bool:
        """Only the product this machine's NPU is, and only the apis a kernel generator exists for."""
        return self.soc in SOCS.get(product, ()) and api in KERNELS

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        (raised,) = self.run_batch([call], [memory])
        if raised is not None:
            raise raised

    def run_batch(self, calls: Sequence[Call], memories: Sequence[dict[str, np.ndarray]]) -> list[BaseException | None]:
        """One kernel for all the calls: stage every image in GM, launch, copy every image back."""
        staged = [{scope: self.torch.from_numpy(image).to(self.device) for scope, image in memory.items()}
                  for memory in memories]
        try:
            source = "\n".join(KERNELS[c.api](i, c) for i, c in enumerate(calls))
            kernel = self.compile(source, len(calls))
        except ToolchainRefused as exc:
            # TODO(adapter author): tell which call the toolchain refused (compile them one by one on a
            # refusal) instead of refusing the whole batch.
            return [Rejected(str(exc)) for _ in calls]
        kernel.launch([buffers for buffers in staged])
        for memory, buffers in zip(memories, staged):
            for scope, image in memory.items():
                np.copyto(image, buffers[scope].cpu().numpy())
        return [None] * len(calls)

    def compile(self, body: str, calls: int) -> Any:
        """TODO(adapter author): wrap `body` in a kernel with the prologue / epilogue above and build it
        with the Ascend C toolchain of your CANN release (e.g. through torch_npu's custom-op flow or the
        ACL runtime: aclrtMalloc / aclrtMemcpy and a <<<blocks, nullptr, stream>>> launch), raising
        ToolchainRefused with the compiler's message when it rejects the parameters."""
        raise NotImplementedError("kernel compilation is the adapter author's to write")


class ToolchainRefused(Exception):
    """The Ascend C toolchain refused to build a call (its parameters are out of range...)."""


# ------------------------------------------------------------------------------------ call -> source

def _tensor(t: Tensor, name: str) -> str:
    """An operand as a kernel expression over the staged images; the kit's dtype names map to C++'s."""
    ctype = {"float16": "half", "bfloat16": "bfloat16_t", "float32": "float", "int8": "int8_t", "uint8": "uint8_t",
             "int16": "int16_t", "uint16": "uint16_t", "int32": "int32_t", "uint32": "uint32_t",
             "int64": "int64_t", "uint64": "uint64_t", "float64": "double"}[t.dtype]
    kind = {"GM": "GlobalTensor", "UB": "LocalTensor", "L1": "LocalTensor"}[t.scope]
    return f"{kind}<{ctype}> {name} = images.{t.scope.lower()}<{ctype}>({t.addr}, {t.numel});"


def data_move_source(index: int, call: Call) -> str:
    """TIK data_move's arguments, in the order of its page's signature."""
    a = call.args
    return "\n".join([f"// call {index}: data_move", _tensor(a["dst"], f"dst{index}"), _tensor(a["src"], f"src{index}"),
                      f"data_move(dst{index}, src{index}, {a['sid']}, {a['nburst']}, {a['burst']}, "
                      f"{a['src_stride']}, {a['dst_stride']});"])


def _converting_copy(index: int, call: Call, label: str, struct: str, fields: tuple[str, ...]) -> str:
    """An Ascend C DataCopy converting layouts: its intriParams mapping as the struct, fields in its order."""
    p = call.args["intriParams"]
    return "\n".join([f"// call {index}: DataCopy {label}", _tensor(call.args["dst"], f"dst{index}"),
                      _tensor(call.args["src"], f"src{index}"),
                      f"DataCopy(dst{index}, src{index}, {struct}{{{', '.join(str(p[f]) for f in fields)}}});"])


def data_copy_nz2nd_source(index: int, call: Call) -> str:
    """Ascend C DataCopy with Nz2NdParamsFull: the mapping's seven fields, in the struct's order."""
    return _converting_copy(index, call, "NZ->ND", "Nz2NdParamsFull", (
        "ndNum", "nValue", "dValue", "srcNdMatrixStride", "srcNStride", "dstDStride", "dstNdMatrixStride"))


def data_copy_nd2nz_source(index: int, call: Call) -> str:
    """Ascend C DataCopy with Nd2NzParams (GM to UB): the mapping's eight fields, in the struct's order."""
    return _converting_copy(index, call, "ND->NZ", "Nd2NzParams", (
        "ndNum", "nValue", "dValue", "srcNdMatrixStride", "srcDValue", "dstNzC0Stride", "dstNzNStride",
        "dstNzMatrixStride"))


def data_copy_source(index: int, call: Call) -> str:
    """Ascend C DataCopy: `count` elements, or a DataCopyParams of four fields in the struct's order."""
    a = call.args
    head = [f"// call {index}: DataCopy ({call.form})", _tensor(a["dst"], f"dst{index}"), _tensor(a["src"], f"src{index}")]
    if call.form == "count":
        return "\n".join([*head, f"DataCopy(dst{index}, src{index}, {a['count']});"])
    p = a["repeatParams"]
    fields = ", ".join(str(p[f]) for f in ("blockCount", "blockLen", "srcGap", "dstGap"))
    return "\n".join([*head, f"DataCopy(dst{index}, src{index}, DataCopyParams{{{fields}}});"])


def data_copy_pad_source(index: int, call: Call) -> str:
    """Ascend C DataCopyPad with DataCopyExtParams (and, GM to UB, DataCopyPadExtParams<T>)."""
    a = call.args
    p = a["dataCopyParams"]
    fields = ", ".join(str(p[f]) for f in ("blockCount", "blockLen", "srcStride", "dstStride"))
    head = [f"// call {index}: DataCopyPad ({call.form})", _tensor(a["dst"], f"dst{index}"), _tensor(a["src"], f"src{index}")]
    if call.form == "ub_to_gm":
        return "\n".join([*head, f"DataCopyPad(dst{index}, src{index}, DataCopyExtParams{{{fields}, 0}});"])
    pad = a["padParams"]
    ctype = _tensor(a["dst"], "x").split("<", 1)[1].split(">", 1)[0]
    return "\n".join([*head, f"DataCopyPad(dst{index}, src{index}, DataCopyExtParams{{{fields}, 0}}, "
                              f"DataCopyPadExtParams<{ctype}>{{{str(bool(pad['isPad'])).lower()}, "
                              f"{pad['leftPadding']}, {pad['rightPadding']}, "
                              f"bit_cast<{ctype}>({pad['paddingValue']})}});"])


def _mask(index: int, call: Call) -> tuple[list[str], str]:
    """A mask argument: bit mode as a uint64_t[2] declared before the call, count mode as a uint64_t literal."""
    mask = call.args["mask"]
    if isinstance(mask, int):
        return [], f"(uint64_t){mask}ULL"
    return [f"uint64_t mask{index}[2] = {{{', '.join(f'{int(w)}ULL' for w in mask)}}};"], f"mask{index}"


def gather_source(index: int, call: Call) -> str:
    """Ascend C Gather: srcOffset and srcBaseAddr, then count, or the mask, repeatTime and dstRepStride."""
    a = call.args
    head = [f"// call {index}: Gather ({call.form})", _tensor(a["dst"], f"dst{index}"), _tensor(a["src"], f"src{index}"),
            _tensor(a["srcOffset"], f"offset{index}")]
    operands = f"dst{index}, src{index}, offset{index}, (uint32_t){a['srcBaseAddr']}"
    if call.form == "count":
        return "\n".join([*head, f"Gather({operands}, (uint32_t){a['count']});"])
    declared, mask = _mask(index, call)
    return "\n".join([*head, *declared, f"Gather({operands}, {mask}, {a['repeatTime']}, {a['dstRepStride']});"])


def copy_source(index: int, call: Call) -> str:
    """Ascend C Copy UB -> UB: the mask, repeatTime and CopyRepeatParams in the struct's order."""
    a, p = call.args, call.args["repeatParams"]
    fields = ", ".join(str(p[f]) for f in ("dstStride", "srcStride", "dstRepeatSize", "srcRepeatSize"))
    declared, mask = _mask(index, call)
    return "\n".join([f"// call {index}: Copy ({call.form})", _tensor(a["dst"], f"dst{index}"),
                      _tensor(a["src"], f"src{index}"), *declared,
                      f"Copy(dst{index}, src{index}, {mask}, {a['repeatTime']}, CopyRepeatParams{{{fields}}});"])


def gatherb_source(index: int, call: Call) -> str:
    """Ascend C Gatherb: the offsets tensor, repeatTime and GatherRepeatParams{dstBlkStride, dstRepStride}."""
    a, p = call.args, call.args["repeatParams"]
    return "\n".join([f"// call {index}: Gatherb", _tensor(a["dst"], f"dst{index}"), _tensor(a["src"], f"src{index}"),
                      _tensor(a["offset"], f"offset{index}"),
                      f"Gatherb(dst{index}, src{index}, offset{index}, {a['repeatTime']}, "
                      f"GatherRepeatParams{{{p['dstBlkStride']}, {p['dstRepStride']}}});"])


SLICE_FIELDS = ("startIndex", "endIndex", "stride", "burstLen", "shapeValue")


def data_copy_slice_source(index: int, call: Call) -> str:
    """Ascend C DataCopy by SliceInfo: the two lists as SliceInfo arrays (fields in the struct's order), dimValue."""
    a = call.args
    lists = []
    for name in ("dstSliceInfo", "srcSliceInfo"):
        entries = ", ".join("{" + ", ".join(str(e[f]) for f in SLICE_FIELDS) + "}" for e in a[name])
        lists.append(f"AscendC::SliceInfo {name}{index}[] = {{{entries}}};")
    return "\n".join([f"// call {index}: DataCopy by SliceInfo", _tensor(a["dst"], f"dst{index}"),
                      _tensor(a["src"], f"src{index}"), *lists,
                      f"DataCopy(dst{index}, src{index}, dstSliceInfo{index}, srcSliceInfo{index}, "
                      f"(uint32_t){a['dimValue']});"])


# TODO(adapter author): scatter, asc_gather, vec_trans_scatter the same way.
KERNELS = {"data_move": data_move_source, "data_copy_nz2nd": data_copy_nz2nd_source,
           "data_copy_nd2nz": data_copy_nd2nz_source, "data_copy": data_copy_source,
           "data_copy_pad": data_copy_pad_source, "gather": gather_source, "copy": copy_source,
           "gatherb": gatherb_source, "data_copy_slice": data_copy_slice_source}

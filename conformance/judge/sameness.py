"""Whether what a backend left equals the oracle's image, every byte of it: the question every passing call
asks of a megabyte of images, so it is asked of the bytes where they lie (the C library's memcmp where it
is at hand: no temporary array, any alignment), and of an image the oracle gives as its input with the
bytes a call changes (Expected.patches) piece by piece, without making that image whole."""
from __future__ import annotations

import ctypes
from typing import Any

import numpy as np


def _memcmp() -> Any:
    """The C library's memcmp (None where there is no C library to ask: numpy compares then)."""
    try:
        found = ctypes.CDLL(None).memcmp        # the C library every CPython has loaded (no search)
    except (OSError, AttributeError, TypeError):
        return None
    found.restype, found.argtypes = ctypes.c_int, (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
    return found


_MEMCMP = _memcmp()
_UINT8 = np.dtype(np.uint8)


def _plain(a: Any) -> np.ndarray:
    """The array itself where it is a contiguous uint8 ndarray, else the ndarray numpy reads it as (a
    backend's subclass compares as an ndarray: its own methods decide nothing)."""
    return a if type(a) is np.ndarray else np.asarray(a)


def same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    """Two uint8 arrays of one shape equal byte for byte."""
    a, b = _plain(a), _plain(b)
    if _MEMCMP is not None and a.dtype == b.dtype == _UINT8 and a.shape == b.shape and a.ndim == 1 \
            and a.flags.c_contiguous and b.flags.c_contiguous:
        return a.size == 0 or _MEMCMP(a.ctypes.data, b.ctypes.data, a.size) == 0
    if a.size % 8 == 0 and a.flags.c_contiguous and b.flags.c_contiguous and a.dtype == b.dtype == _UINT8:
        return bool((a.view(np.uint64) == b.view(np.uint64)).all())
    return bool(np.array_equal(a, b))


def same_patched(got: Any, base: np.ndarray, lo: int, data: np.ndarray) -> bool:
    """`got` equal byte for byte to `base` with the bytes from `lo` on replaced by `data` (an image as
    Expected.patches gives it), each of the three pieces compared where it lies."""
    got = _plain(got)
    hi = lo + data.shape[0]
    return same_bytes(got[lo:hi], data) and same_bytes(got[:lo], base[:lo]) and same_bytes(got[hi:], base[hi:])

"""The NZ fractal layout, one place for both directions of DataCopy's conversion (NZ -> ND on the way out of
UB, ND -> NZ on the way in): a matrix in NZ is its column blocks, each every row's piece of one block width,
back to back; in ND it is its rows. Both work on bytes: (matrix, column block, row, block bytes) against
(matrix, row, row bytes).

Examples
--------
One matrix of 2 rows of 3 bytes, in column blocks 2 bytes wide and back:

>>> import numpy as np
>>> from oracle.apis.fractal import nd_rows, nz_blocks
>>> rows = np.arange(6, dtype=np.uint8).reshape(1, 2, 3)
>>> blocks = nz_blocks(rows, 2)
>>> blocks.tolist()          # column block 0: bytes 0-1 of each row; block 1: byte 2, then a zero byte
[[[[0, 1], [3, 4]], [[2, 0], [5, 0]]]]
>>> nd_rows(blocks).tolist()
[[[0, 1, 2, 0], [3, 4, 5, 0]]]
"""
from __future__ import annotations

import numpy as np


def nd_rows(blocks: np.ndarray) -> np.ndarray:
    """(matrix, column block, row, block bytes) -> (matrix, row, column blocks x block bytes): NZ to ND."""
    m, b, n, f = blocks.shape
    return np.ascontiguousarray(blocks.transpose(0, 2, 1, 3)).reshape(m, n, b * f)


def nz_blocks(rows: np.ndarray, block: int) -> np.ndarray:
    """(matrix, row, row bytes) -> (matrix, column block, row, block bytes): ND to NZ, the last block of each
    row filled with zero bytes where the row is not a whole number of blocks."""
    m, n, d = rows.shape
    b = -(-d // block)
    padded = np.zeros((m, n, b * block), dtype=rows.dtype)
    padded[:, :, :d] = rows
    return padded.reshape(m, n, b, block).transpose(0, 2, 1, 3)

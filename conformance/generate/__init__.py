"""What to call, and on what memory: the cells (api x product x kind x dtype), the Hypothesis strategies
that draw a cell's calls from the specs, the memory images they run on, the edge sweep, the profiles
(budgets) and the frozen case list of certification.

May import: `oracle` only (and the standard library, numpy, Hypothesis). Knows nothing of backends.
"""

"""Running cells where a backend cannot hurt the results: supervised worker processes (a crash, a hang or
an exit becomes a verdict), the plan that splits and orders the cells, and the Dask cluster engine.

May import: `oracle`, `conformance.generate`, `conformance.backends`, `conformance.judge`.
"""

"""The backend under test: the contract (`Backend`, `Rejected`), the built-in reference, loading a backend
by name, calling untrusted backend code, the exec protocol (a backend in its own process) and `serve`.

May import: `oracle`, `conformance.generate`. Gives no verdict: that is `conformance.judge`'s job.
"""

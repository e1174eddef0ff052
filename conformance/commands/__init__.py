"""The `ascend-conformance` command line: options, the running commands (run, certify, fuzz, promote),
check / replay of one call, the session that owns a report folder while a run writes it, and the fuzz loop.

May import: everything below it. Nothing imports it but `conformance.__main__` and the console script.
"""

#!/bin/sh
# (j) on a machine with 16 cores: `ascend-conformance run --backend oracle --product ascend910b` (ci, seed 1)
# at -n 1 and at -n 16, each a process of its own as a user runs it; prints both wall times and their ratio
# (target 12x). Run from anywhere with the Python of an environment the kit is installed in:
#     PYTHON=/path/to/venv/bin/python benchmarks/cores16.sh [--keep DIR]
# (--keep DIR keeps each run's results.json, for `benchmarks/cores.py model DIR/n1.json DIR/n16.json`.)
# About 2 minutes on the 16-core machine the (j) figures were measured on.
set -eu
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
"$PYTHON" -c "import conformance.commands.cli"      # the bytecode cache written before anything is timed
exec "$PYTHON" benchmarks/cores.py measure 1 16 "$@"

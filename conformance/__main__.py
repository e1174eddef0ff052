"""`python -m conformance ...` is the `ascend-conformance` command."""
import sys

from conformance.commands.cli import command

sys.exit(command())

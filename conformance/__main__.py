"""`python -m conformance ...` is the `ascend-conformance` command."""
import sys

from conformance.commands.launch import command

sys.exit(command())

"""An exec-protocol backend (the reference, served by conformance.backends.serve) that misbehaves on every call
of more than one burst whose destination has the dtype given: `misbehave.py MODE DTYPE`. Modes: error (the backend raises, so
serve replies `error`), exit (the process exits), segfault (dies on SIGSEGV), garbage (prints a line that
is no reply), wrong-id (replies to another request), hang (never answers), noise (prints a line to
stdout through print(), which serve must keep off the protocol: behaves correctly)."""
import os
import signal
import sys
import time

from conformance import OracleBackend
from conformance.backends.serve import serve
from oracle.spec import default_rulebook


class Misbehaving(OracleBackend):
    name = "misbehaving"

    def __init__(self, mode, dtype, replies):
        self.mode, self.dtype, self.replies = mode, dtype, replies

    def run(self, call, memory):
        if call.args["dst"].dtype == self.dtype and call.args["nburst"] > 1:
            if self.mode == "exit":
                sys.stderr.write("giving up on this one\n")
                sys.stderr.flush()
                os._exit(3)
            if self.mode == "segfault":
                os.kill(os.getpid(), signal.SIGSEGV)
            if self.mode == "garbage":
                self.replies.write("Segmentation fault (core dumped)\n")
                self.replies.flush()
            if self.mode == "wrong-id":
                self.replies.write('{"op": "ok", "id": -1}\n')
                self.replies.flush()
            if self.mode == "hang":
                time.sleep(3600)
            if self.mode == "noise":
                print("debug: running", call.api)
            if self.mode == "error":
                raise RuntimeError("simulated device error")
        super().run(call, memory)


if __name__ == "__main__":
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.exit(serve(Misbehaving(sys.argv[1], sys.argv[2], replies), sys.stdin, replies, default_rulebook()))

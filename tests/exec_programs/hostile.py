"""A hostile exec-protocol program: the reference, misbehaving on the calls tests/hostile_backends.py
strikes (data_move calls of more than one burst), by the mode on its command line:

  hostile.py segfault | exit | hang     the backend dies on SIGSEGV / exits with status 3 / hangs in C code
  hostile.py backend NAME               serves hostile_backends.NAME (any animal of the in-process zoo)
  hostile.py deaf                       answers hello, then never reads its stdin again
  hostile.py orphan PIDFILE             forks a child that keeps stdout open (its pid written to PIDFILE),
                                        then exits with status 3
  hostile.py long-line                  prints a line of 100 MB that is no reply
  hostile.py odd-hello                  a name and version with a lone surrogate, NUL, ESC sequences, bytes
                                        that are not UTF-8 and raw control characters; correct otherwise
  hostile.py odd-replies                refuses with such a rule id and a message of 1 MB of them
"""
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))         # tests/: the zoo

import hostile_backends as zoo                                          # noqa: E402
from conformance.backends.serve import PROTOCOL, _Mapping, _result               # noqa: E402
from oracle import Call                                                 # noqa: E402

ANIMALS = {"segfault": "Segfault", "exit": "Exits", "hang": "HangsInC"}
# raw bytes inside JSON strings: not UTF-8, NUL, ESC, BEL, TAB; and JSON escapes of a lone surrogate and NUL
ODD = b"\xff\xfe\xc0 nul \x00 esc \x1b[31mred\x1b[0m bel \x07 tab \t \\udc80 \\u0000 \\u001b[2J end"


def main(mode: str, args: list[str]) -> int:
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())         # prints of the backend stay off the protocol
    name = args[0] if mode == "backend" else ANIMALS.get(mode)
    backend = getattr(zoo, name)() if name else zoo.OracleBackend()
    strikes = zoo.Hostile().strikes
    mapping = _Mapping()

    def say(message) -> None:
        replies.write((json.dumps(message, separators=(",", ":")) + "\n").encode())

    for line in sys.stdin.buffer:
        request = json.loads(line)
        op, rid = request["op"], request.get("id")
        if op == "hello":
            if mode == "odd-hello":
                replies.write(b'{"op":"hello","protocol":%d,"name":"odd %s","version":"%s",'
                              b'"supports":{"data_move":["*"]}}\n' % (PROTOCOL, ODD, ODD * 3))
            else:
                say({"op": "hello", "protocol": PROTOCOL, "name": f"hostile-{mode}", "version": "1",
                     "supports": {"data_move": ["*"]}})
            if mode == "deaf":
                time.sleep(3600)
        elif op == "run":
            if strikes(Call.from_dict(request["call"])):
                if mode == "orphan":
                    child = os.fork()
                    if child == 0:
                        Path(args[0] + ".part").write_text(str(os.getpid()))
                        os.rename(args[0] + ".part", args[0])
                        time.sleep(3600)
                        os._exit(0)
                    while not os.path.exists(args[0]):         # the test must learn the child's pid
                        time.sleep(0.01)
                    os._exit(3)
                if mode == "long-line":
                    replies.write(b"x" * (100 << 20) + b"\n")
                    continue
                if mode == "odd-replies":
                    replies.write(b'{"op":"rejected","id":%d,"rule":"%s","message":"%s%s"}\n'
                                  % (rid, ODD, ODD, b"x" * (1 << 20)))
                    continue
            say({**_result(backend, mapping, request), "id": rid})
        elif op == "bye":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))

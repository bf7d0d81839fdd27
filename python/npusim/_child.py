"""The child side of one simulation: ``python -m npusim._child FUNCTION`` reads a JSON request on stdin,
calls that function of the C++ module (run, bench or scenario), and writes its JSON reply on stdout.

A SystemC kernel cannot be reset, so every simulation gets a fresh interpreter (see _process.py).
Anything the simulator itself prints to stdout is moved to stderr, so the reply is the only thing on
the pipe.
"""

import os
import sys


def main():
    function = sys.argv[1]
    request = sys.stdin.read()
    reply_fd = os.dup(1)
    os.dup2(2, 1)  # the simulator's own prints go to stderr
    os.environ.setdefault("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1")
    from npusim import _npusim  # noqa: E402  (after the environment is set)

    import json

    try:
        if function not in ("run", "bench", "scenario"):
            raise ValueError("unknown function " + function)
        reply = getattr(_npusim, function)(request)
    except Exception as e:  # a bad request the C++ side rejected by exception: still one line back
        reply = json.dumps({"error": "%s: %s" % (function, e), "kind": "simulation"})
    with os.fdopen(reply_fd, "w") as out:
        out.write(reply)


if __name__ == "__main__":
    main()

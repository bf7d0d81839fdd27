"""Runs one simulation in a fresh child interpreter and brings back its JSON reply.

A SystemC kernel cannot be reset, so a process can simulate only once. Each call here starts
``python -m npusim._child`` (the same interpreter as the caller: a spawn, without re-running the
caller's script, so scripts need no ``if __name__ == "__main__"`` guard), sends the request on its
stdin and reads the reply from its stdout. Calls may come from many threads at once; at most
``max_workers()`` children run at a time (default: the number of CPUs), the others wait.
"""

import json
import os
import subprocess
import sys
import threading

from . import errors

_lock = threading.Lock()
_limit = os.cpu_count() or 1
_slots = threading.BoundedSemaphore(_limit)
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def max_workers():
    """How many simulations may run at once."""
    return _limit


def set_max_workers(n):
    """Allows at most ``n`` simulations at once (n >= 1). Calls already waiting keep the old limit."""
    global _limit, _slots
    if not isinstance(n, int) or n < 1:
        raise ValueError("set_max_workers: expected an integer >= 1, got %r" % (n,))
    with _lock:
        _limit = n
        _slots = threading.BoundedSemaphore(n)


def call(function, request, timeout=None, slots=None):
    """Runs C++ function ``function`` ("run", "bench" or "scenario") with ``request`` (a dict) in a
    child process; returns the reply dict, or raises the npusim error it reports. ``slots`` (a
    semaphore) replaces the max_workers() limit for this call (run_many's own ``workers``)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_PARENT, env.get("PYTHONPATH", "")) if p)
    env.setdefault("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1")
    if slots is None:
        with _lock:
            slots = _slots
    with slots:
        child = subprocess.Popen([sys.executable, "-m", "npusim._child", function], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        try:
            out, err = child.communicate(json.dumps(request).encode(), timeout=timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            raise errors.SimulationError("%s: the simulation took longer than %s s of wall time" % (function, timeout))
    if err:
        sys.stderr.write(err.decode(errors="replace"))
    if child.returncode != 0 or not out:
        tail = err.decode(errors="replace").strip().splitlines()[-1:] or [""]
        raise errors.SimulationError("%s: the simulation process ended with status %s without a result%s" %
                                     (function, child.returncode, (": " + tail[0]) if tail[0] else ""))
    reply = json.loads(out)
    if isinstance(reply, dict) and "error" in reply and "kind" in reply:
        raise errors.from_reply(reply)
    return reply

"""npusim from Python: run models on the simulated NPU, benchmark them, run multi-tenant scenarios, and
get the results as numbers, numpy arrays and pandas DataFrames (docs/python.md).

    import npusim
    r = npusim.run("zoo:mobilenet_v2_quant8")
    r.latency_us, r.npu_cycles, r.output, r.stats, r.layers

Every simulation runs in a fresh child process (a SystemC kernel cannot be reset), so run(), bench()
and scenario() can be called any number of times, and from many threads at once (run_many()). The
numbers are those of the ``npusim`` CLI: both call the same C++ libraries. sweep() runs ``npusim
sweep`` (each design point in its own process) and returns its results database as a DataFrame.
"""

import os as _os
import concurrent.futures as _futures

_os.environ.setdefault("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1")

from . import _paths  # noqa: E402
from ._process import call as _call, max_workers, set_max_workers  # noqa: E402,F401
from .config import Config, explain  # noqa: E402,F401
from .errors import (ConfigError, Error, InputError, ModelError, OutputError, ScenarioError,  # noqa: E402,F401
                     SimulationError, SweepError)
from .model import Model, ModelBuilder, as_model, inputs_json, zoo  # noqa: E402,F401
from .results import BenchResult, RunResult, ScenarioResult, flatten_stats  # noqa: E402,F401
from .config import as_config as _as_config  # noqa: E402

__all__ = ["run", "run_many", "bench", "scenario", "sweep", "Config", "explain", "Model", "ModelBuilder", "zoo",
           "RunResult", "BenchResult", "ScenarioResult", "Error", "ConfigError", "ModelError", "InputError",
           "ScenarioError", "SweepError", "OutputError", "SimulationError", "max_workers", "set_max_workers", "configs_dir"]


def configs_dir():
    """The folder of the shipped configs (npu/*.json presets, scenarios/*.json)."""
    return _paths.configs_dir()


def _check_bool(name, value):
    if not isinstance(value, bool):
        raise TypeError("%s: expected True or False, got %r" % (name, value))


def run(model, inputs=None, hw=None, *, set=None, device="npu", check=False, layers=True, seed=1, trace=None,
        timeout=None, loop_timeout_ms=2000, _slots=None):
    """One inference of ``model`` on a fresh simulated platform (``npusim run``).

    model   a Model, a model JSON or ONNX path, or "zoo:NAME"
    inputs  {operand index: array-like}, an inputs JSON path, or None: seeded random inputs (``seed``),
            the ones ``npusim zoo write`` writes
    hw      a Config, a config path or preset name ("default", "edge-small", "large"); default default.json
    set     {parameter path: value} overrides on top of ``hw``, e.g. {"npu.channels": 2}
    device  "npu" or "cpu" (the CPU reference device);  check: also run the CPU reference and compare
    layers  record the per-layer table (RunResult.layers) from the run's trace
    trace   write a Perfetto trace (Chrome trace-event JSON) to this path
    timeout seconds of wall time before the child process is stopped (SimulationError)
    loop_timeout_ms  NNAPI's setLoopTimeout (0 to 15000, default 2000): a WHILE running longer, in
            simulated time, fails the run with SimulationError naming MISSED_DEADLINE_TRANSIENT

    Raises ModelError, InputError, ConfigError (bad input, with the JSON path in ``.path``) or
    SimulationError.
    """
    m = as_model(model)
    cfg = _as_config(hw, set)
    if device not in ("npu", "cpu"):
        raise ValueError("device: expected \"npu\" or \"cpu\", got %r" % (device,))
    _check_bool("check", check)
    _check_bool("layers", layers)
    if isinstance(loop_timeout_ms, bool) or not isinstance(loop_timeout_ms, int) or \
            not 0 <= loop_timeout_ms <= 15000:
        raise ValueError("loop_timeout_ms: expected a whole number of ms in [0, 15000], got %r" %
                         (loop_timeout_ms,))
    if inputs is None:
        inputs_req = None
    elif isinstance(inputs, (str, _os.PathLike)):
        inputs_req = {"file": _os.path.abspath(_os.fspath(inputs))}
    elif isinstance(inputs, dict):
        inputs_req = inputs_json(inputs)
    else:
        raise InputError("inputs: expected {operand index: array}, an inputs JSON path or None, got %s" %
                         type(inputs).__name__, path="$")
    request = {"name": m.name, "model": m.spec, "inputs": inputs_req, "seed": int(seed), "hw": cfg.path,
               "sets": cfg.sets, "device": device, "check": check, "layers": layers,
               "loop_timeout_ms": loop_timeout_ms,
               "trace": _os.path.abspath(_os.fspath(trace)) if trace else ""}
    return RunResult(_call("run", request, timeout, _slots), m.name)


def run_many(jobs, workers=None):
    """Runs many inferences in parallel, each in its own child process; ``jobs`` is a list of dicts of
    run()'s keyword arguments (``model`` included). Returns the RunResults in the order of ``jobs``; the
    first failure is raised once all have ended. ``workers`` children run at once (default
    max_workers(), the number of CPUs); ``workers=len(jobs)`` starts them all together."""
    import threading

    jobs = list(jobs)
    for j in jobs:
        if not isinstance(j, dict) or "model" not in j:
            raise TypeError("run_many: every job is a dict of run() arguments with a \"model\", got %r" % (j,))
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ValueError("run_many: workers: expected an integer >= 1, got %r" % (workers,))
    n = workers or max_workers()
    slots = threading.BoundedSemaphore(n)
    with _futures.ThreadPoolExecutor(max_workers=n) as pool:
        futures = [pool.submit(run, _slots=slots, **j) for j in jobs]
        _futures.wait(futures)
    return [f.result() for f in futures]


def bench(model, iterations=10, hw=None, *, set=None, seed=1, timeout=None):
    """MLTS-style benchmark (``npusim bench``): simulated latency over ``iterations`` inferences, each with
    its own seeded input, compilation time, and accuracy against the CPU reference."""
    m = as_model(model)
    cfg = _as_config(hw, set)
    if not isinstance(iterations, int) or not 1 <= iterations <= 100000:
        raise ValueError("iterations: expected an integer in [1, 100000], got %r" % (iterations,))
    spec = m.spec
    path = spec.get("source")
    tmp = None
    if path is None or path.endswith(".onnx") or spec.get("shapes") or spec.get("values"):
        # The benchmark reads model JSON or zoo names: other models go through a temporary JSON file.
        import tempfile

        fd, tmp = tempfile.mkstemp(suffix=".model.json")
        _os.close(fd)
        m.save(tmp)
        path = tmp
    try:
        reply = _call("bench", {"model": path, "iterations": iterations, "seed": int(seed), "hw": cfg.path,
                                "sets": cfg.sets}, timeout)
    finally:
        if tmp:
            _os.unlink(tmp)
    return BenchResult(reply)


def scenario(file, policy=None, *, compare=False, scale=1.0, scale_thermal=False, trace=None, report=None,
             timeout=None):
    """A multi-tenant scenario (``npusim scenario``): a shipped name ("camera_llm") or a scenario file,
    under ``policy`` (default: the file's) or, with compare=True, under every baseline. ``scale``
    multiplies the scenario's duration (0.2 for a quick run). Returns a ScenarioResult whose ``policies``
    and ``apps`` are DataFrames."""
    path = _paths.scenario_file(file)
    _check_bool("compare", compare)
    _check_bool("scale_thermal", scale_thermal)
    if not isinstance(scale, (int, float)) or not 1e-3 <= scale <= 100:
        raise ValueError("scale: expected a number in [0.001, 100], got %r" % (scale,))
    request = {"file": path, "policy": policy or "", "compare": compare, "scale": float(scale),
               "scale_thermal": scale_thermal,
               "trace": _os.path.abspath(_os.fspath(trace)) if trace else "",
               "report": _os.path.abspath(_os.fspath(report)) if report else ""}
    return ScenarioResult(_call("scenario", request, timeout))


def sweep(file, db, *, jobs=None, retry_failed=False, point_timeout=None, timeout=None):
    """An architecture sweep (``npusim sweep FILE --db DB``, docs/sweep.md): every design point x
    workload of the sweep file, each in its own process, ``jobs`` at a time (default: all cores), into
    the SQLite database ``db``; a rerun on the same database skips the rows already recorded. Returns the
    database's results table as a DataFrame, one row per point x workload (axis values, status, error,
    metrics, simulator version, config digest and the command that reproduces the row)."""
    import sqlite3
    import subprocess
    path = _os.fspath(file)
    db = _os.path.abspath(_os.fspath(db))
    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1):
        raise ValueError("jobs: expected a whole number >= 1, got %r" % (jobs,))
    _check_bool("retry_failed", retry_failed)
    args = [_paths.cli(), "sweep", path, "--db", db, "--quiet"]
    if jobs is not None:
        args += ["-j", str(jobs)]
    if retry_failed:
        args.append("--retry-failed")
    if point_timeout is not None:
        args += ["--point-timeout", str(point_timeout)]
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        lines = [line for line in p.stderr.splitlines() if line.strip()]
        message = lines[-1] if lines else "npusim sweep exited with status %d" % p.returncode
        raise SweepError(message[len("npusim: "):] if message.startswith("npusim: ") else message)
    import pandas as pd
    with sqlite3.connect(db) as con:
        return pd.read_sql_query("SELECT * FROM results ORDER BY point, workload", con)

"""What run(), bench() and scenario() return: the simulator's figures as attributes and plain dicts, and
as pandas DataFrames (imported on first use, so reading ``latency_us`` needs neither numpy nor pandas)."""

from .model import to_array


def flatten_stats(tree, prefix=""):
    """The stats tree (leaves {value, unit, description}) as [(path, value, unit, description)]."""
    rows = []
    for key, node in tree.items():
        path = prefix + "." + key if prefix else key
        if isinstance(node, dict) and "value" in node and "unit" in node:
            rows.append((path, node["value"], node["unit"], node.get("description", "")))
        elif isinstance(node, dict):
            rows.extend(flatten_stats(node, path))
    return rows


def _stats_frame(tree):
    import pandas as pd

    rows = flatten_stats(tree)
    return pd.DataFrame(rows, columns=["path", "value", "unit", "description"]).set_index("path")


class RunResult:
    """One inference (``npusim run``). Timing: ``latency_us`` (simulated time in the driver),
    ``device_us`` (on the NPU), ``npu_cycles``, ``prepare_us``; what the execution submitted: ``jobs``
    (driver jobs), ``stages`` (one per NPU operation), ``command_buffers`` (one per channel a stage uses).
    Values: ``outputs`` and ``inputs`` ({operand: numpy array}). Tables: ``stats`` (path → value, unit,
    description), ``layers`` (one row per operation). ``check`` is the comparison with the CPU reference when
    asked for."""

    def __init__(self, reply, model_name):
        self.raw = reply
        self.model = model_name
        self.latency_us = reply["latency_us"]
        self.device_us = reply["device_us"]
        self.npu_cycles = reply["npu_cycles"]
        self.jobs = reply["jobs"]
        self.stages = reply["stages"]
        self.command_buffers = reply["command_buffers"]
        self.prepare_us = reply["prepare_us"]
        self.placement = reply["placement"]
        self.simulated_end_s = reply["simulated_end_s"]
        self.timing_only = reply["timing_only"]
        self.hardware = reply["hardware"]
        self.check = reply.get("check")
        self.stats_tree = reply["stats"]
        self._outputs = self._inputs = self._reference = None

    def _arrays(self, values, types):
        return {int(k): to_array(v, types[k]) for k, v in values.items()}

    @property
    def outputs(self):
        """{operand index: numpy array} (empty for a timing-only model)."""
        if self._outputs is None:
            types = {k: v["type"] for k, v in self.raw["output_types"].items()}
            self._outputs = self._arrays(self.raw["outputs"], types)
        return self._outputs

    @property
    def output(self):
        """The first output (by operand index), for single-output models."""
        return self.outputs[min(self.outputs)]

    @property
    def reference_outputs(self):
        """With check=True: the CPU reference's outputs."""
        if self._reference is None and "reference_outputs" in self.raw:
            types = {k: v["type"] for k, v in self.raw["output_types"].items()}
            self._reference = self._arrays(self.raw["reference_outputs"], types)
        return self._reference

    def output_scale(self, operand):
        """(scale, zero_point) of an output, to dequantise: (q - zero_point) * scale."""
        t = self.raw["output_types"][str(operand)]
        return t["scale"], t["zero_point"]

    @property
    def inputs(self):
        """The inputs the run used (the seeded ones when none were given)."""
        if self._inputs is None:
            import numpy as np

            self._inputs = {int(k): np.asarray(v["data"]).reshape(v["dimensions"]) for k, v in self.raw["inputs"].items()}
        return self._inputs

    @property
    def stats(self):
        """DataFrame indexed by stat path: value, unit, description (``npusim run --stats --stats-meta``)."""
        return _stats_frame(self.stats_tree)

    def stat(self, path):
        """One stat's value by path, e.g. "hal.execution.npu_cycles"."""
        node = self.stats_tree
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                raise KeyError(path)
            node = node[part]
        return node["value"]

    @property
    def layers(self):
        """DataFrame, one row per operation: type, where (npu/cpu/control_flow), cpu_reason,
        command_buffers, tiles, macs, dram_bytes, output_type, output_dims, and for NPU layers start_us,
        device_us, busy_us, compute_us, dma_in_us, dma_out_us, stall_us, array_utilisation, energy_pj from the
        run's trace (NaN where unknown); the columns of ``npusim run --out``'s layers.csv."""
        import pandas as pd

        cols = ["operation", "type", "where", "cpu_reason", "command_buffers", "tiles", "macs", "dram_bytes",
                "output_type", "output_dims", "start_us", "device_us", "busy_us", "compute_us", "dma_in_us",
                "dma_out_us", "stall_us", "array_utilisation", "energy_pj"]
        return pd.DataFrame(self.raw.get("layers", []), columns=cols).set_index("operation")

    def summary(self):
        """The timing figures as a dict (what ``npusim run --json`` prints)."""
        return {k: getattr(self, k) for k in ("latency_us", "device_us", "npu_cycles", "jobs", "stages",
                                               "command_buffers", "prepare_us", "placement", "timing_only")}

    def __repr__(self):
        return "RunResult(%s: latency %s us, on device %s us, %s NPU cycles, placement %s)" % (
            self.model, self.latency_us, self.device_us, self.npu_cycles, self.placement)


class BenchResult:
    """``npusim bench``: ``latency_us`` (mean, std, min, p50, p90, p99, max, histogram), ``compilation``,
    ``accuracy``; ``iterations`` as a DataFrame (one row per inference)."""

    def __init__(self, reply):
        self.raw = reply
        for key in ("model", "device", "hardware", "placement", "cpu_operations", "parameters", "macs",
                    "compilation", "latency_us", "timing_only"):
            setattr(self, key, reply[key])
        self.accuracy = reply.get("accuracy")

    @property
    def iterations(self):
        import pandas as pd

        return pd.DataFrame(self.raw["iterations"]).rename_axis("iteration")

    def __repr__(self):
        lat = self.latency_us
        return "BenchResult(%s: %d iterations, latency mean %.1f us, p99 %.1f us)" % (
            self.model, len(self.raw["iterations"]), lat["mean"], lat["p99"])


class ScenarioResult:
    """``npusim scenario [--compare]``: ``runs`` (the metrics JSON per policy, the main policy first),
    ``policies`` (DataFrame, a row per policy: ANTT, STP, fairness, preemptions, energy, temperatures,
    throttling) and ``apps`` (DataFrame, a row per policy and app: misses, latency, NTT, NPU time, loads)."""

    def __init__(self, reply):
        self.raw = reply
        self.scenario = reply["scenario"]
        self.seed = reply["seed"]
        self.duration_s = reply["duration_s"]
        self.policy = reply["policy"]
        self.runs = reply["runs"]

    @property
    def policies(self):
        import pandas as pd

        rows = []
        for run in self.runs:
            row = {k: v for k, v in run.items() if k not in ("apps", "time_at_severity_s", "scenario")}
            for sev, s in run.get("time_at_severity_s", {}).items():
                row["time_at_%s_s" % sev.lower()] = s
            rows.append(row)
        return pd.DataFrame(rows).set_index("policy")

    @property
    def apps(self):
        import pandas as pd

        rows = [dict(policy=run["policy"], app=a["name"], **{k: v for k, v in a.items() if k != "name"})
                for run in self.runs for a in run["apps"]]
        return pd.DataFrame(rows).set_index(["policy", "app"])

    def __repr__(self):
        return "ScenarioResult(%s: %g s simulated, policies %s)" % (
            self.scenario, self.duration_s, ", ".join(r["policy"] for r in self.runs))

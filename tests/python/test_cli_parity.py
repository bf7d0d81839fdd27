"""The Python package gives the CLI's numbers: the same run through `npusim run`, `npusim bench` and
`npusim scenario` and through npusim.run/bench/scenario must agree on every stat, timing figure and
output value. The expected values come from the CLI binary, run here."""

import json
import os

import numpy as np
import pandas as pd
import pytest

import npusim
from conftest import npusim_cli, read_json


def cli_run(tmp_path, model, inputs, hw="configs/npu/default.json", sets=()):
    out, stats = tmp_path / "cli_out.json", tmp_path / "cli_stats.json"
    args = ["run", "--hw", hw, "--model", model, "--inputs", inputs, "--outputs", out, "--stats", stats,
            "--stats-meta", "--json"]
    for s in sets:
        args += ["--set", s]
    summary = json.loads(npusim_cli(*args).stdout)
    stats_file = read_json(stats)
    # The file names the build that wrote it beside the stats tree, as the summary does.
    assert stats_file.pop("npusim") == summary["npusim"]
    outputs = {}
    if not summary["timing_only"]:
        outputs = read_json(out)
        assert outputs.pop("npusim") == summary["npusim"]  # the build that wrote the file
    return summary, stats_file, outputs


def assert_same_run(r, summary, stats, outputs):
    assert r.latency_us == summary["latency_us"]
    assert r.device_us == summary["device_us"]
    assert r.npu_cycles == summary["npu_cycles"]
    assert (r.jobs, r.stages, r.command_buffers) == (summary["jobs"], summary["stages"], summary["command_buffers"])
    assert r.placement == summary["placement"]
    assert r.simulated_end_s == summary["simulated_end_s"]
    # Every stat: value, unit and description.
    assert r.stats_tree == stats
    assert sorted(r.outputs) == sorted(int(k) for k in outputs)
    for k, values in outputs.items():
        np.testing.assert_array_equal(r.outputs[int(k)].reshape(-1), np.asarray(values, dtype=r.outputs[int(k)].dtype))


@pytest.mark.parametrize("hw,sets", [
    ("configs/npu/default.json", []),
    ("configs/npu/edge-small.json", []),
    ("configs/npu/default.json", ["npu.channels=2", "npu.dram.bandwidth_gbps=12.8"]),
])
def test_run_equals_cli(example_conv, tmp_path, hw, sets):
    model, inputs = example_conv
    summary, stats, outputs = cli_run(tmp_path, model, inputs, hw, sets)
    cfg = npusim.Config(hw)
    for s in sets:
        key, value = s.split("=")
        cfg.set(key, float(value) if "." in value else int(value))
    r = npusim.run(model, inputs, cfg)
    assert r.npu_cycles > 0
    assert_same_run(r, summary, stats, outputs)


def test_zoo_model_with_default_inputs_equals_cli(tmp_path):
    # run() without inputs uses the seeded inputs `npusim zoo write` writes.
    name = "mobilenet_v2_quant8@64"
    npusim_cli("zoo", "write", name, "--dir", tmp_path)
    summary, stats, outputs = cli_run(tmp_path, "zoo:" + name, tmp_path / (name + ".inputs.json"))
    r = npusim.run("zoo:" + name)
    assert_same_run(r, summary, stats, outputs)
    np.testing.assert_array_equal(r.inputs[min(r.inputs)].reshape(-1),
                                  np.asarray(next(iter(read_json(tmp_path / (name + ".inputs.json")).values()))))


def test_onnx_model_equals_cli(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(3)
    w = numpy_helper.from_array(rng.uniform(-0.5, 0.5, (8, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.uniform(-0.1, 0.1, 8).astype(np.float32), "b")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c"], ["y"])],
        "conv_relu", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 8, 8])], initializer=[w, b])
    path = tmp_path / "conv_relu.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    inputs = tmp_path / "in.json"
    npusim_cli("import", path, "-o", tmp_path / "imported.json", "--example-inputs", inputs)
    summary, stats, outputs = cli_run(tmp_path, path, inputs)
    r = npusim.run(str(path), str(inputs))
    assert_same_run(r, summary, stats, outputs)


def test_check_equals_cli(example_conv, tmp_path):
    model, inputs = example_conv
    p = npusim_cli("run", "--model", model, "--inputs", inputs, "--outputs", tmp_path / "o.json", "--check", "--json")
    want = json.loads(p.stdout)["check"]
    got = npusim.run(model, inputs, check=True).check
    assert got == want
    assert got["elements"] > 0


def test_bench_equals_cli():
    model = "zoo:mobilenet_v1_quant8@32"
    want = json.loads(npusim_cli("bench", "--model", model, "--iterations", "3", "--json").stdout)
    got = npusim.bench(model, iterations=3).raw
    assert want.pop("npusim")["git"]  # the CLI's JSON names the build; the numbers below must agree
    for d in (want, got):  # host wall-clock times differ from run to run
        d.pop("host_wall_s")
        for k in [k for k in d["compilation"] if "wall" in k]:
            d["compilation"].pop(k)
    assert got == want
    assert len(got["iterations"]) == 3


def test_scenario_equals_cli(tmp_path):
    out = tmp_path / "metrics.json"
    npusim_cli("scenario", "configs/scenarios/camera_llm.json", "--policy", "fcfs", "--scale", "0.02", "--json", out)
    want = read_json(out)
    got = npusim.scenario("camera_llm", policy="fcfs", scale=0.02)
    assert got.runs == want["runs"]
    assert got.seed == want["seed"] and got.scenario == want["scenario"]
    apps = got.apps
    assert list(apps.index.get_level_values("app")) == [a["name"] for a in want["runs"][0]["apps"]]


def test_sweep_equals_cli(tmp_path):
    # The shipped CI-sized sweep (8 designs x 2 workloads) through sweep() and through the CLI: the
    # same rows, column for column (rows carry no wall-clock figures, so they are deterministic).
    import sqlite3
    npusim_cli("sweep", "configs/sweeps/small.json", "--db", tmp_path / "cli.sqlite", "--quiet")
    with sqlite3.connect(tmp_path / "cli.sqlite") as con:
        want = pd.read_sql_query("SELECT * FROM results ORDER BY point, workload", con)
    got = npusim.sweep("configs/sweeps/small.json", tmp_path / "py.sqlite")
    assert len(got) == 16 and (got["status"] == "ok").sum() > 0
    pd.testing.assert_frame_equal(got, want)
    # A rerun on the same database skips every recorded row and returns the same table.
    pd.testing.assert_frame_equal(npusim.sweep("configs/sweeps/small.json", tmp_path / "py.sqlite"), want)


def test_sweep_bad_file_raises_with_its_path(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"name": "bad", "base": os.path.abspath("configs/npu/default.json"),
                               "axes": [{"param": "npu.channels", "values": ["four"]}],
                               "workloads": [{"name": "m", "model": "zoo:mobilenet_v2_quant8"}]}))
    with pytest.raises(npusim.SweepError) as e:
        npusim.sweep(bad, tmp_path / "bad.sqlite")
    assert "bad.json" in e.value.message and e.value.path is not None and e.value.path.startswith("$.axes[0]")

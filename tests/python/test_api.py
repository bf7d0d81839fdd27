"""The npusim package's API: configs, models (files, zoo, builder), run() results and their DataFrames,
and the exceptions bad input raises (one line, with its JSON path)."""

import json
import math

import numpy as np
import pandas as pd
import pytest

import npusim


def tiny_quant_model(seed=1):
    b = npusim.ModelBuilder(seed)
    x = b.input("TENSOR_QUANT8_ASYMM", [1, 8, 8, 8], scale=0.02, zero_point=128)
    y = b.conv_2d(x, 16, 3, 3, activation="relu", filter_scale=0.01, out_scale=0.05, out_zero_point=0)
    p = b.max_pool(y, 2, 2)
    b.output(p)
    return b.build("tiny"), p


# --- configs --------------------------------------------------------------------------------------

def test_config_load_set_explain():
    cfg = npusim.Config()
    assert cfg["channels"] == 4 and cfg["array_rows"] == 16
    assert cfg.set("npu.channels", 2) is cfg
    assert cfg["channels"] == 2
    assert cfg.sets == ["npu.channels=2"]
    assert npusim.Config("edge-small")["channels"] == 1
    assert npusim.Config("large")["channels"] == 8
    text = npusim.explain()
    assert "npu.channels" in text and text == cfg.explain()


def test_config_errors_carry_message_and_path():
    cfg = npusim.Config()
    with pytest.raises(npusim.ConfigError) as e:
        cfg.set("npu.channels", 0)
    assert e.value.path == "$.npu.channels"
    assert "npu.channels" in e.value.message and "\n" not in e.value.message
    assert cfg["channels"] == 4 and cfg.sets == []  # the bad value was not kept
    with pytest.raises(npusim.ConfigError) as e:
        cfg.set("npu.no_such_thing", 1)
    assert "unknown parameter" in e.value.message
    with pytest.raises(npusim.ConfigError) as e:
        npusim.Config("/nonexistent/hw.json")
    assert "/nonexistent/hw.json" in e.value.message
    assert isinstance(e.value, ValueError)


def test_config_file_error_path(tmp_path):
    bad = tmp_path / "hw.json"
    bad.write_text(json.dumps({"base": npusim.configs_dir() + "/npu/default.json", "npu": {"channels": "four"}}))
    with pytest.raises(npusim.ConfigError) as e:
        npusim.Config(str(bad))
    assert e.value.path == "$.npu.channels"
    assert str(bad) in e.value.message


# --- models ---------------------------------------------------------------------------------------

def test_zoo_and_model_info():
    z = npusim.zoo()
    assert "mobilenet_v2_quant8" in set(z["name"])
    m = npusim.Model("zoo:mobilenet_v2_quant8@64")
    assert m.inputs[0]["dims"] == [1, 64, 64, 3]
    assert m.outputs[0]["dims"] == [1, 1000]
    assert m.macs > 0 and m.parameters > 3_000_000
    assert isinstance(m.operations, pd.DataFrame) and len(m.operations) > 50


def test_model_errors(tmp_path):
    with pytest.raises(npusim.ModelError) as e:
        npusim.Model(str(tmp_path / "missing.json")).check()
    assert "missing.json" in e.value.message
    with pytest.raises(npusim.ModelError):
        npusim.Model("zoo:no_such_model").check()
    doc = {"operands": [{"type": "TENSOR_FLOAT32", "dimensions": [1, "x"], "lifetime": "SUBGRAPH_INPUT"}],
           "operations": [], "inputIndexes": [0], "outputIndexes": [0]}
    with pytest.raises(npusim.ModelError) as e:
        npusim.Model.from_json(doc, name="bad.json").check()
    assert e.value.path == "$.operands[0].dimensions[1]"
    # run() reports a model error from its child process the same way.
    with pytest.raises(npusim.ModelError) as e:
        npusim.run(npusim.Model.from_json(doc, name="bad.json"))
    assert e.value.path == "$.operands[0].dimensions[1]"


def test_builder_errors():
    b = npusim.ModelBuilder()
    with pytest.raises(ValueError, match="unknown tensor type"):
        b.input("TENSOR_FLOAT99", [1, 2])
    x = b.input("TENSOR_FLOAT32", [1, 4, 4, 2])
    with pytest.raises(ValueError, match="padding"):
        b.conv_2d(x, 2, 3, 3, padding="full")
    with pytest.raises(ValueError, match="operand 99 does not exist"):
        b.add(x, 99)
    with pytest.raises(ValueError, match="no output"):
        b.build()


def test_model_json_round_trip(tmp_path):
    m, _ = tiny_quant_model()
    path = m.save(str(tmp_path / "tiny.json"))
    again = npusim.Model(path)
    assert again.to_json() == m.to_json()
    a, b = npusim.run(m, layers=False), npusim.run(again, layers=False)
    assert a.npu_cycles == b.npu_cycles
    np.testing.assert_array_equal(a.output, b.output)


# --- run ------------------------------------------------------------------------------------------

def test_run_builder_model_outputs_stats_layers():
    m, out = tiny_quant_model()
    r = npusim.run(m, check=True)
    assert r.check["mismatches"] == 0 and r.check["elements"] == 16 * 4 * 4
    assert r.output.shape == (1, 4, 4, 16) and r.output.dtype == np.uint8
    np.testing.assert_array_equal(r.output, r.reference_outputs[out])
    assert r.latency_us > 0 and r.device_us > 0 and r.npu_cycles > 0 and r.command_buffers >= 1
    stats = r.stats
    assert stats.loc["hal.execution.latency_us", "value"] == r.latency_us
    assert stats.loc["hal.execution.latency_us", "unit"] == "us"
    assert stats.loc["hal.execution.npu_cycles", "value"] == r.npu_cycles == r.stat("hal.execution.npu_cycles")
    layers = r.layers
    assert list(layers["type"]) == ["CONV_2D", "MAX_POOL_2D"]
    assert set(layers["where"]) == {"npu"}
    assert layers.loc[0, "macs"] == 16 * 8 * 8 * 3 * 3 * 8
    assert list(layers.loc[1, "output_dims"]) == [1, 4, 4, 16]
    # Per-layer device times are inside the run's time on the device, in order.
    assert (layers["device_us"] > 0).all()
    assert layers["device_us"].sum() <= r.device_us + 1  # device_us is whole µs
    assert layers.loc[0, "start_us"] + layers.loc[0, "device_us"] <= layers.loc[1, "start_us"]


def test_run_inputs_as_arrays_equal_file_inputs(tmp_path):
    m, _ = tiny_quant_model()
    x = np.random.default_rng(5).integers(0, 256, (1, 8, 8, 8), dtype=np.uint8)
    index = m.inputs[0]["index"]
    a = npusim.run(m, {index: x}, layers=False)
    path = tmp_path / "in.json"
    path.write_text(json.dumps({str(index): x.reshape(-1).tolist()}))
    b = npusim.run(m, str(path), layers=False)
    np.testing.assert_array_equal(a.inputs[index], x)
    np.testing.assert_array_equal(a.output, b.output)
    assert a.stats_tree == b.stats_tree


def test_run_hardware_changes_timing_not_values():
    m, _ = tiny_quant_model()
    one = npusim.run(m, set={"npu.channels": 1}, layers=False)
    four = npusim.run(m, hw=npusim.Config().set("npu.channels", 4), layers=False)
    assert one.hardware["channels"] == 1 and four.hardware["channels"] == 4
    np.testing.assert_array_equal(one.output, four.output)
    assert four.device_us != one.device_us and four.npu_cycles != one.npu_cycles


def test_run_cpu_device_and_timing_only_model():
    m, _ = tiny_quant_model()
    cpu = npusim.run(m, device="cpu")
    assert cpu.npu_cycles == 0 and cpu.placement == "cpu"
    assert set(cpu.layers["where"]) == {"cpu"} and cpu.layers["device_us"].isna().all()
    np.testing.assert_array_equal(cpu.output, npusim.run(m, layers=False).output)
    dec = npusim.run("zoo:decoder_1b_decode@64", layers=False)
    assert dec.timing_only and dec.outputs == {} and dec.npu_cycles > 0


def test_run_trace_file(tmp_path):
    m, _ = tiny_quant_model()
    path = tmp_path / "t.json"
    npusim.run(m, trace=str(path), layers=False)
    trace = json.loads(path.read_text())
    assert any(e.get("name") == "command buffer" for e in trace["traceEvents"])
    # Named like `npusim run --trace`'s: which build wrote it.
    made_by = trace["metadata"]["npusim"]
    assert made_by["version"] and made_by["git"]


def test_run_bad_inputs():
    m, _ = tiny_quant_model()
    with pytest.raises(npusim.InputError) as e:
        npusim.run(m, {99: np.zeros((1, 8, 8, 8), np.uint8)})
    assert e.value.path == '$["99"]'
    with pytest.raises(npusim.InputError) as e:
        npusim.run(m, {m.inputs[0]["index"]: np.zeros((1, 8, 8, 4), np.uint8)})
    assert e.value.path is not None and e.value.path.startswith('$["%d"]' % m.inputs[0]["index"])
    with pytest.raises(npusim.InputError):
        npusim.run(m, [1, 2, 3])
    with pytest.raises(ValueError):
        npusim.run(m, device="gpu")


def test_run_simulation_error():
    # A valid config whose DRAM is too small for the driver: the platform fails to come up.
    m, _ = tiny_quant_model()
    with pytest.raises(npusim.SimulationError) as e:
        npusim.run(m, set={"npu.dram.size_mib": 8, "npu.weight_memory.mib": 2})
    assert "device memory too small" in e.value.message and "\n" not in e.value.message


def test_bench():
    m, _ = tiny_quant_model()
    b = npusim.bench(m, iterations=3)
    assert len(b.iterations) == 3 and b.latency_us["p50"] > 0
    assert b.accuracy["max_abs_error"] == 0
    assert isinstance(b.iterations, pd.DataFrame) and (b.iterations["npu_cycles"] > 0).all()
    with pytest.raises(ValueError):
        npusim.bench(m, iterations=0)


def test_scenario_dataframes_and_errors(tmp_path):
    with pytest.raises(npusim.ScenarioError):
        npusim.scenario(str(tmp_path / "none.json"))
    with pytest.raises(npusim.ScenarioError, match="unknown baseline"):
        npusim.scenario("camera_llm", policy="lottery", scale=0.01)
    with pytest.raises(npusim.ScenarioError, match="fifo"):
        npusim.scenario("camera_llm", policy="fifo", scale=0.01)
    r = npusim.scenario("camera_llm", policy="default", scale=0.01)
    assert list(r.policies.index) == ["default"]
    assert set(r.apps.index.get_level_values("app")) == {a["name"] for a in r.runs[0]["apps"]}
    assert not math.isnan(r.policies.loc["default", "energy_j"])


def test_stats_flatten_units():
    m, _ = tiny_quant_model()
    stats = npusim.run(m, layers=False).stats
    assert stats.index.is_unique and len(stats) > 20
    assert (stats["unit"].str.len() >= 0).all()
    assert stats.loc["hal.execution.channel_parallelism", "unit"] == "channels"


def test_child_process_failures_become_exceptions():
    from npusim import _process

    m, _ = tiny_quant_model()
    with pytest.raises(npusim.SimulationError, match="longer than"):
        npusim.run(m, timeout=0.001)
    # A request the C++ side rejects by exception (no "inputs") still comes back as one line.
    with pytest.raises(npusim.SimulationError) as e:
        _process.call("run", {"model": m.spec})
    assert e.value.message.startswith("run: ") and "\n" not in e.value.message
    with pytest.raises(npusim.SimulationError, match="unknown function"):
        _process.call("sweep", {})


def test_an_escaped_exception_is_one_line(tmp_path):
    # A 40 MB model JSON (20 M numbers) under a 400 MiB address-space cap: std::bad_alloc while the child
    # parses it. It came back as "run: std::bad_alloc"; the C++ guard names it as the CLI does.
    import subprocess
    import sys

    big = tmp_path / "big.json"
    big.write_text("[" + "0," * 20_000_000 + "0]")
    code = ("import json, resource, npusim\n"
            "cap = 400 * 1024 * 1024\n"
            "resource.setrlimit(resource.RLIMIT_AS, (cap, cap))\n"
            "try:\n"
            "    npusim.run(%r)\n"
            "except npusim.Error as e:\n"
            "    print(json.dumps([type(e).__name__, e.message]))\n" % str(big))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    name, message = json.loads(p.stdout)
    assert name == "SimulationError"
    assert message == "run: out of host memory", message


ENDLESS_WHILE = """{"operands": [
  {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
  {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
  {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_OUTPUT"},
  {"type": "SUBGRAPH", "lifetime": "SUBGRAPH", "subgraph": 0},
  {"type": "SUBGRAPH", "lifetime": "SUBGRAPH", "subgraph": 1}],
 "operations": [{"type": "WHILE", "inputs": [3, 4, 0, 1], "outputs": [2]}],
 "inputIndexes": [0, 1], "outputIndexes": [2],
 "referenced": [
  {"operands": [{"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
                {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
                {"type": "TENSOR_BOOL8", "dimensions": [1], "lifetime": "SUBGRAPH_OUTPUT"}],
   "operations": [{"type": "LESS_EQUAL", "inputs": [0, 1], "outputs": [2]}],
   "inputIndexes": [0, 1], "outputIndexes": [2]},
  {"operands": [{"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
                {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
                {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "SUBGRAPH_OUTPUT"},
                {"type": "TENSOR_FLOAT32", "dimensions": [1], "lifetime": "CONSTANT_COPY", "data": [1]},
                {"type": "INT32", "lifetime": "CONSTANT_COPY", "data": 0}],
   "operations": [{"type": "MUL", "inputs": [0, 3, 4], "outputs": [2]}],
   "inputIndexes": [0, 1], "outputIndexes": [2]}]}"""


def test_run_loop_timeout(tmp_path):
    # x = x * 1 while x <= n never ends: NNAPI's loop timeout ends it with MISSED_DEADLINE_TRANSIENT.
    path = tmp_path / "endless.json"
    path.write_text(ENDLESS_WHILE)
    for device in ("npu", "cpu"):
        with pytest.raises(npusim.SimulationError) as e:
            npusim.run(str(path), {0: [1.0], 1: [2.0]}, device=device, loop_timeout_ms=1)
        assert "MISSED_DEADLINE_TRANSIENT" in e.value.message and "1000000 ns" in e.value.message
    with pytest.raises(ValueError):
        npusim.run(str(path), loop_timeout_ms=15001)
    with pytest.raises(ValueError):
        npusim.run(str(path), loop_timeout_ms=1.5)

"""Twenty runs in parallel from one script give the same results as the same twenty run one after
another: every simulation is its own child process, so nothing is shared between them."""

import numpy as np

import npusim
from conftest import npusim_cli


def jobs(model, inputs):
    # Different designs, so a mix-up between runs would show.
    out = []
    for i in range(20):
        out.append({"model": model, "inputs": inputs,
                    "set": {"npu.channels": 1 + i % 4, "npu.dram.bandwidth_gbps": 6.4 * (1 + i % 5)}})
    return out


def same(a, b):
    def timing(r):
        return (r.latency_us, r.device_us, r.npu_cycles, r.jobs, r.stages, r.command_buffers)

    assert timing(a) == timing(b)
    assert a.stats_tree == b.stats_tree
    assert a.raw["layers"] == b.raw["layers"]
    assert sorted(a.outputs) == sorted(b.outputs)
    for k in a.outputs:
        np.testing.assert_array_equal(a.outputs[k], b.outputs[k])


def test_twenty_parallel_runs_equal_sequential(tmp_path):
    npusim_cli("example", "conv-quant8", "--dir", tmp_path)
    model, inputs = str(tmp_path / "conv-quant8.model.json"), str(tmp_path / "conv-quant8.inputs.json")
    js = jobs(model, inputs)
    sequential = [npusim.run(**j) for j in js]
    parallel = npusim.run_many(js, workers=20)
    assert len(parallel) == 20
    for s, p in zip(sequential, parallel):
        same(s, p)
    # The designs differ, so the runs differ: the comparison above could have failed.
    assert len({r.device_us for r in sequential}) > 1


def test_threads_calling_run_directly():
    import concurrent.futures as cf

    b = npusim.ModelBuilder(2)
    x = b.input("TENSOR_FLOAT32", [1, 6, 6, 4])
    b.output(b.conv_2d(x, 8, 3, 3, activation="relu"))
    m = b.build("float_conv")
    with cf.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda c: npusim.run(m, set={"npu.channels": c}), [1, 2, 3, 4, 1, 2, 3, 4]))
    for a, b2 in zip(results[:4], results[4:]):
        same(a, b2)


def test_run_many_raises_the_first_error_after_all_ran():
    good = {"model": "zoo:mobilenet_v1_quant8@32", "layers": False}
    bad = {"model": "zoo:mobilenet_v1_quant8@32", "set": {"npu.channels": 0}}
    try:
        npusim.run_many([good, bad, good], workers=3)
    except npusim.ConfigError as e:
        assert e.path == "$.npu.channels"
    else:
        raise AssertionError("run_many did not raise")

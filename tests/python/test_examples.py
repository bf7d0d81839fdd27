"""The examples under examples/python run with their --quick settings and write their plots."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT

EXAMPLES = os.path.join(ROOT, "examples", "python")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run_example(name, out, *args):
    p = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), "--quick", "--out", str(out), *args],
                       capture_output=True, text=True, cwd=ROOT, env=dict(os.environ, MPLBACKEND="Agg"))
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def assert_png(path):
    with open(path, "rb") as f:
        head = f.read(8)
    assert head == PNG_MAGIC
    assert os.path.getsize(path) > 10_000  # axes, lines and labels, not an empty canvas


def test_design_sweep(tmp_path):
    out = run_example("design_sweep.py", tmp_path)
    assert_png(tmp_path / "design_sweep.png")
    import pandas as pd

    table = pd.read_csv(tmp_path / "design_sweep.csv")
    assert sorted(zip(table["array"], table["channels"])) == [("16x16", 1), ("16x16", 4), ("8x8", 1), ("8x8", 4)]
    assert (table["latency_us"] > 0).all() and (table["npu_cycles"] > 0).all()
    assert "plot written to" in out


def test_scenario_policies(tmp_path):
    run_example("scenario_policies.py", tmp_path)
    assert_png(tmp_path / "scenario_policies.png")
    import pandas as pd

    policies = pd.read_csv(tmp_path / "scenario_policies.csv")
    assert set(policies["policy"]) == {"fcfs", "hpf", "prema", "rr", "edf", "default"}


def test_onnx_accuracy(tmp_path):
    pytest.importorskip("onnx")
    out = run_example("onnx_accuracy.py", tmp_path)
    assert_png(tmp_path / "onnx_accuracy.png")
    assert "max |error|" in out

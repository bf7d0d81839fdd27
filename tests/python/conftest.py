"""Shared fixtures of the Python package tests (run by ctest as python.*, see python/CMakeLists.txt).

NPUSIM_CLI names the npusim binary of the same build (ctest sets it, with PYTHONPATH=build/python);
the tests run from the repository root."""

import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cli_path():
    return os.environ.get("NPUSIM_CLI") or os.path.join(ROOT, "build", "tools", "npusim")


def npusim_cli(*args, check=True):
    """Runs the CLI; returns the CompletedProcess (text)."""
    p = subprocess.run([cli_path(), *map(str, args)], capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))
    if check and p.returncode != 0:
        raise AssertionError("npusim %s failed (%d): %s" % (" ".join(map(str, args)), p.returncode, p.stderr))
    return p


@pytest.fixture
def cli():
    return npusim_cli


@pytest.fixture(scope="session")
def example_conv(tmp_path_factory):
    """The CLI's seeded example conv-quant8: (model path, inputs path)."""
    d = tmp_path_factory.mktemp("example")
    npusim_cli("example", "conv-quant8", "--dir", d)
    return str(d / "conv-quant8.model.json"), str(d / "conv-quant8.inputs.json")


def read_json(path):
    with open(path) as f:
        return json.load(f)

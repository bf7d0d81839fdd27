"""Where the shipped configs (configs/npu, configs/scenarios) are: beside the installed package, or in
the source tree the build tree was configured from."""

import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def configs_dir():
    installed = os.path.join(_HERE, "configs")
    if os.path.isdir(installed):
        return installed
    try:
        from . import _build_paths
    except ImportError:
        return installed
    return _build_paths.CONFIGS_DIR


def _resolve(kind, name_or_path):
    """The CLI's own resolution (npu/common/shipped.h in the C++ module), told where this package's
    configs are: NPUSIM_DATA_DIR, which the simulations this process starts inherit too."""
    import json
    from . import errors
    from ._native import module
    os.environ.setdefault("NPUSIM_DATA_DIR", os.path.dirname(configs_dir()))
    reply = json.loads(module().resolve_shipped(kind, os.fspath(name_or_path)))
    if "error" in reply:
        raise errors.from_reply(reply)
    return reply["path"]


def hardware_config(name_or_path):
    """A hardware config path: a file as given, or a preset name ("default", "edge-small", "large")."""
    return _resolve("npu", name_or_path)


def scenario_file(name_or_path):
    """A scenario path: a file as given, or a shipped scenario's name ("camera_llm", ...)."""
    return _resolve("scenarios", name_or_path)


def cli():
    """The npusim executable: the build tree's beside this package, else `npusim` on PATH (installed)."""
    try:
        from . import _build_paths
        if os.path.exists(_build_paths.CLI):
            return _build_paths.CLI
    except ImportError:
        pass
    import shutil
    found = shutil.which("npusim")
    if not found:
        raise FileNotFoundError("npusim: the executable is neither in this build tree nor on PATH")
    return found

"""Exceptions of the npusim package.

Every error npusim reports is one line naming what is wrong and where (the file, and the JSON path
inside it when there is one). The exception keeps that line as ``message`` and the JSON path as
``path`` (``"$.npu.channels"``, ``'$["7"]'``, ``"$.operands[3].dimensions[1]"``; ``None`` when the
error has none), so a script can tell a bad input from a failed simulation.
"""

import re

_PATH = re.compile(r'(?<![\w$])(\$(?:\.[A-Za-z_]\w*|\[[^\]]*\])*)')
_SET = re.compile(r'^--set ([A-Za-z_][\w.]*)[:=]')


def json_path(message):
    """The first JSON path in an npusim error message, or None."""
    m = _SET.match(message)
    if m:
        return "$." + m.group(1)
    m = _PATH.search(message)
    return m.group(1) if m else None


class Error(Exception):
    """Base class: ``message`` (the one line), ``path`` (its JSON path or None), ``kind``."""

    kind = "simulation"

    def __init__(self, message, path=None):
        super().__init__(message)
        self.message = message
        self.path = path if path is not None else json_path(message)


class ConfigError(Error, ValueError):
    """A hardware config file or parameter override is wrong."""

    kind = "config"


class ModelError(Error, ValueError):
    """A model cannot be read, imported or validated."""

    kind = "model"


class InputError(Error, ValueError):
    """Inputs do not fit the model (operand, shape, type or value range)."""

    kind = "inputs"


class ScenarioError(Error, ValueError):
    """A scenario file is wrong."""

    kind = "scenario"


class SweepError(Error, ValueError):
    """A sweep file is wrong, or the sweep could not run (its database, a backend)."""

    kind = "sweep"


class OutputError(Error, OSError):
    """A file npusim was asked to write cannot be written."""

    kind = "output"


class SimulationError(Error, RuntimeError):
    """The simulation itself failed: preparation, execution, a time limit, or its process died."""

    kind = "simulation"


_BY_KIND = {c.kind: c for c in (ConfigError, ModelError, InputError, ScenarioError, SweepError, OutputError,
                                SimulationError)}


def from_reply(reply):
    """The exception for an error reply {"error": message, "kind": kind} of the C++ module."""
    return _BY_KIND.get(reply.get("kind"), SimulationError)(reply["error"])

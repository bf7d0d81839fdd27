"""Hardware configs: a config file (or preset name) plus ``path=value`` overrides, as ``npusim --hw FILE
--set path=value`` takes them. Every change is checked at once by the same loader the CLI uses, so a
bad value raises ConfigError here, not later in a simulation."""

import json

from . import _paths, errors


from ._native import module as _module  # noqa: E402


def _check(path, sets):
    reply = json.loads(_module().config_summary(path, list(sets)))
    if "error" in reply:
        raise errors.from_reply(reply)
    return reply


def explain():
    """Every hardware parameter with its default, unit and description (``npusim config --explain``)."""
    return _module().explain_config()


class Config:
    """A hardware config: ``Config()`` is configs/npu/default.json; ``Config("large")`` a preset;
    ``Config("my.json")`` a file. ``set("npu.channels", 2)`` overrides a parameter (chainable)."""

    def __init__(self, path="default", **overrides):
        self.path = _paths.hardware_config(path)
        self.sets = []
        self.summary = _check(self.path, self.sets)
        if overrides:
            self.update({key.replace("__", "."): value for key, value in overrides.items()})

    def set(self, path, value):
        """Overrides parameter ``path`` (e.g. "npu.channels") with ``value``; returns the config. A bad
        value raises ConfigError and leaves the config as it was."""
        return self.update({path: value})

    def update(self, overrides):
        """Overrides several parameters at once ({path: value}), checked together: for values that
        constrain each other (npu.dram.size_mib and npu.weight_memory.mib, say)."""
        sets = list(self.sets)
        for path, value in overrides.items():
            if not isinstance(path, str) or not path:
                raise errors.ConfigError("set: expected a parameter path such as npu.channels, got %r" % (path,))
            text = value if isinstance(value, str) else json.dumps(value)
            sets.append("%s=%s" % (path, text))
        try:
            self.summary = _check(self.path, sets)
        except errors.ConfigError as e:
            # The JSON path in the message, else the parameter set last (the one that made it invalid).
            path = errors.json_path(e.message) or ("$." + list(overrides)[-1] if overrides else None)
            raise errors.ConfigError(e.message, path=path) from None
        self.sets = sets
        return self

    def copy(self):
        c = Config.__new__(Config)
        c.path, c.sets, c.summary = self.path, list(self.sets), dict(self.summary)
        return c

    @staticmethod
    def explain():
        return explain()

    def __getitem__(self, key):
        """The summary figures: channels, array_rows, array_cols, sram_kib, clock_mhz, compute_core."""
        return self.summary[key]

    def __repr__(self):
        s = self.summary
        return "Config(%r%s: %d channels of %dx%d %s at %g MHz, %d KiB SRAM each)" % (
            self.path, "".join(", " + x for x in self.sets), s["channels"], s["array_rows"], s["array_cols"],
            s["compute_core"], s["clock_mhz"], s["sram_kib"])


def as_config(hw, overrides=None):
    """A Config from what run()/bench() accept: None (default), a path or preset name, or a Config;
    ``overrides`` ({path: value}) are applied on a copy."""
    if hw is None:
        cfg = Config()
    elif isinstance(hw, Config):
        cfg = hw.copy()
    else:
        cfg = Config(hw)
    if overrides:
        cfg.update(dict(overrides))
    return cfg

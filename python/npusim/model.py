"""Models: a model JSON file, an ONNX file (imported on the fly), a zoo name ("zoo:mobilenet_v2_quant8"),
or a small graph built in Python with ModelBuilder. A Model is a description, cheap to pass around and
to send to a simulation's child process; its details (inputs, outputs, operations) are read on first
use, by the same loader and validator the CLI uses."""

import json
import os

from . import errors


from ._native import module as _module  # noqa: E402


def _reply(text):
    reply = json.loads(text)
    if isinstance(reply, dict) and "error" in reply and "kind" in reply:
        raise errors.from_reply(reply)
    return reply


_DTYPES = {
    "TENSOR_FLOAT32": "float32",
    "TENSOR_FLOAT16": "float16",
    "TENSOR_INT32": "int32",
    "TENSOR_QUANT8_ASYMM": "uint8",
    "TENSOR_QUANT8_ASYMM_SIGNED": "int8",
    "TENSOR_QUANT8_SYMM": "int8",
    "TENSOR_QUANT8_SYMM_PER_CHANNEL": "int8",
    "TENSOR_QUANT16_ASYMM": "uint16",
    "TENSOR_QUANT16_SYMM": "int16",
    "TENSOR_BOOL8": "bool",
}


def dtype_of(operand_type):
    """The numpy dtype name of an NNAPI tensor type."""
    return _DTYPES.get(operand_type, "float64")


class Model:
    """``Model("m.json")``, ``Model("net.onnx", cpu_fallback=True, shapes={"x": [1, 3, 32, 32]})``,
    ``Model("zoo:mobilenet_v2_quant8")``, or ``Model.from_json(dict_or_text)``."""

    def __init__(self, source, *, cpu_fallback=False, shapes=None, values=None):
        if isinstance(source, Model):
            self._spec = dict(source._spec)
            self.name = source.name
            self._info = source._info
            return
        if not isinstance(source, (str, os.PathLike)):
            raise errors.ModelError("Model: expected a file path or zoo:NAME, got %r" % (source,))
        source = os.fspath(source)
        spec = {"source": source if source.startswith("zoo:") else os.path.abspath(source),
                "cpu_fallback": bool(cpu_fallback)}
        spec["shapes"] = ["%s=%s" % (k, "x".join(str(int(d)) for d in v)) for k, v in (shapes or {}).items()]
        spec["values"] = ["%s=%s" % (k, ",".join(repr(float(x)) for x in (v if hasattr(v, "__iter__") else [v])))
                          for k, v in (values or {}).items()]
        self._spec = spec
        self.name = source
        self._info = None

    @classmethod
    def from_json(cls, model, name="model"):
        """A model from model JSON (NNAPI shape): a dict, or its text."""
        m = cls.__new__(cls)
        text = model if isinstance(model, str) else json.dumps(model)
        m._spec = {"json": text, "name": name}
        m.name = name
        m._info = None
        return m

    @property
    def spec(self):
        """What the C++ module loads it from (sent to the simulation's child process)."""
        return dict(self._spec)

    def _load_info(self):
        if self._info is None:
            self._info = _reply(_module().model_info(json.dumps(self._spec)))
        return self._info

    def check(self):
        """Loads and validates the model now (raises ModelError); returns the model."""
        self._load_info()
        return self

    @property
    def inputs(self):
        """Graph inputs: [{index, type, dims, scale, zero_point}, ...]."""
        return self._load_info()["inputs"]

    @property
    def outputs(self):
        """Graph outputs: [{index, type, dims, scale, zero_point}, ...]."""
        return self._load_info()["outputs"]

    @property
    def operations(self):
        """The main graph's operations as a DataFrame (type, inputs, outputs)."""
        import pandas as pd

        return pd.DataFrame(self._load_info()["operations"]).rename_axis("operation")

    @property
    def macs(self):
        return self._load_info()["macs"]

    @property
    def parameters(self):
        return self._load_info()["parameters"]

    @property
    def timing_only(self):
        return self._load_info()["timing_only"]

    def to_json(self):
        """The model JSON (NNAPI shape) as a dict, every constant inline."""
        return _reply(_module().model_json(json.dumps(self._spec)))["model"]

    def save(self, path):
        """Writes the model JSON to ``path`` (for the CLI: ``npusim run --model path``)."""
        with open(path, "w") as f:
            json.dump(self.to_json(), f)
        return path

    def random_inputs(self, seed=1):
        """Seeded random inputs {operand: numpy array}, the ones run() uses when given none (and the ones
        ``npusim zoo write`` writes for a zoo model)."""
        reply = _reply(_module().random_inputs(json.dumps(self._spec), int(seed)))["inputs"]
        types = {i["index"]: i["type"] for i in self.inputs}
        return {int(k): to_array(v, types[int(k)]) for k, v in reply.items()}

    def __repr__(self):
        return "Model(%r)" % (self.name,)


def as_model(model):
    return model if isinstance(model, Model) else Model(model)


def to_array(value, operand_type):
    """An io-JSON value ({"dimensions", "data"} or a flat list) as a numpy array of the operand's type."""
    import numpy as np

    if isinstance(value, dict):
        dims, data = value.get("dimensions", []), value["data"]
    else:
        dims, data = [len(value)], value
    data = [float("nan") if x == "NaN" else float("inf") if x == "Infinity" else float("-inf") if x == "-Infinity"
            else x for x in data] if operand_type in ("TENSOR_FLOAT32", "TENSOR_FLOAT16") else data
    return np.asarray(data, dtype=dtype_of(operand_type)).reshape(dims)


def inputs_json(inputs):
    """run()'s ``inputs`` as io JSON: {operand: array-like} → {"<operand>": {"dimensions", "data"}}."""
    out = {}
    for key, value in inputs.items():
        try:
            index = int(key)
        except (TypeError, ValueError):
            raise errors.InputError("inputs: keys must be operand indexes, got %r" % (key,), path="$") from None
        try:
            import numpy as np

            arr = np.asarray(value)
            dims, data = list(arr.shape), arr.reshape(-1).tolist()
        except ImportError:  # plain Python lists without numpy: flat values
            dims, data = None, list(value)
        entry = {"data": data}
        if dims is not None:
            entry["dimensions"] = dims
        out[str(index)] = entry
    return out


def zoo():
    """The model zoo as a DataFrame: name, kind, description, timing_only (``npusim zoo list``)."""
    import pandas as pd

    return pd.DataFrame(json.loads(_module().zoo_list()))


class ModelBuilder:
    """Small graphs in NNAPI conventions with seeded random weights (the C++ ModelBuilder the examples and
    zoo use). Each layer returns its output operand::

        b = ModelBuilder(seed=1)
        x = b.input("TENSOR_QUANT8_ASYMM", [1, 16, 16, 8], scale=0.02, zero_point=128)
        y = b.conv_2d(x, 16, 3, 3, activation="relu", filter_scale=0.01, out_scale=0.05, out_zero_point=0)
        b.output(y)
        model = b.build("tiny")

    Float models ignore the scale arguments. Mistakes raise ValueError naming the argument.
    """

    def __init__(self, seed=1):
        self._b = _module().Builder(int(seed))

    def input(self, type, dims, scale=0.0, zero_point=0):
        return self._b.input(type, list(dims), float(scale), int(zero_point))

    def conv_2d(self, x, out_channels, kh, kw, padding="same", stride=1, activation="none", filter_scale=0.0,
                out_scale=0.0, out_zero_point=0):
        return self._b.conv_2d(x, out_channels, kh, kw, padding, stride, activation, filter_scale, out_scale,
                               out_zero_point)

    def depthwise_conv_2d(self, x, kh, kw, padding="same", stride=1, activation="none", filter_scale=0.0,
                          out_scale=0.0, out_zero_point=0):
        return self._b.depthwise_conv_2d(x, kh, kw, padding, stride, activation, filter_scale, out_scale,
                                         out_zero_point)

    def fully_connected(self, x, units, activation="none", weight_scale=0.0, out_scale=0.0, out_zero_point=0):
        return self._b.fully_connected(x, units, activation, weight_scale, out_scale, out_zero_point)

    def max_pool(self, x, kh, kw, padding="valid", stride=2):
        return self._b.pool_2d("max", x, kh, kw, padding, stride)

    def average_pool(self, x, kh, kw, padding="valid", stride=2):
        return self._b.pool_2d("average", x, kh, kw, padding, stride)

    def add(self, a, b, activation="none", out_scale=0.0, out_zero_point=0):
        return self._b.elementwise("add", a, b, activation, out_scale, out_zero_point)

    def mul(self, a, b, activation="none", out_scale=0.0, out_zero_point=0):
        return self._b.elementwise("mul", a, b, activation, out_scale, out_zero_point)

    def reshape(self, x, dims):
        return self._b.reshape(x, list(dims))

    def softmax(self, x, beta=1.0):
        return self._b.softmax(x, float(beta))

    def logistic(self, x):
        return self._b.logistic(x)

    def concatenation(self, xs, axis):
        return self._b.concatenation(list(xs), axis)

    def dims(self, operand):
        """The dimensions of an operand built so far."""
        return list(self._b.dims(operand))

    def output(self, operand):
        """Marks ``operand`` as a graph output."""
        self._b.mark_output(operand)
        return operand

    def build(self, name="built"):
        """The validated Model."""
        return Model.from_json(self._b.build(), name=name)

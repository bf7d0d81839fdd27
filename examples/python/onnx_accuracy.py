#!/usr/bin/env python3
"""Accuracy of an ONNX model on the simulated NPU against an independent reference: onnxruntime when it
is installed, else a float64 numpy evaluation of the same graph written here from the ONNX operator
definitions. The model is a small CNN this script builds with the onnx package (Conv, Relu, MaxPool,
depthwise Conv, GlobalAveragePool, Flatten, Gemm, Softmax) with seeded weights, so it needs no download.
Prints the largest error and writes a plot of device output against reference.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/onnx_accuracy.py --out /tmp/acc
    ... --quick   (a 16x16 input, two inputs: the test suite's setting)
"""

import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import npusim  # noqa: E402


def build_onnx(path, size, seed):
    """A seeded CNN: 3 x size x size image -> 10 class probabilities. Returns the weights too."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    w = {
        "w1": rng.uniform(-0.5, 0.5, (16, 3, 3, 3)).astype(np.float32),
        "b1": rng.uniform(-0.1, 0.1, 16).astype(np.float32),
        "w2": rng.uniform(-0.5, 0.5, (16, 1, 3, 3)).astype(np.float32),
        "b2": rng.uniform(-0.1, 0.1, 16).astype(np.float32),
        "w3": rng.uniform(-0.5, 0.5, (10, 16)).astype(np.float32),
        "b3": rng.uniform(-0.1, 0.1, 10).astype(np.float32),
    }
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], group=16),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "w3", "b3"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["y"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "small_cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        initializer=[numpy_helper.from_array(v, k) for k, v in w.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return w


def conv2d(x, w, b, pad, groups=1):
    """NCHW convolution, stride 1, float64."""
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    oh, ow = h - kh + 1, wd - kw + 1
    y = np.zeros((n, m, oh, ow))
    mg = m // groups
    for g in range(groups):
        xs = x[:, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                y[:, g * mg:(g + 1) * mg] += np.einsum("nchw,mc->nmhw", xs[:, :, i:i + oh, j:j + ow],
                                                       w[g * mg:(g + 1) * mg, :, i, j])
    return y + b[None, :, None, None]


def numpy_reference(x, w):
    x = x.astype(np.float64)
    r1 = np.maximum(conv2d(x, w["w1"].astype(np.float64), w["b1"], 1), 0)
    n, c, h, wd = r1.shape
    p1 = r1.reshape(n, c, h // 2, 2, wd // 2, 2).max(axis=(3, 5))
    r2 = np.maximum(conv2d(p1, w["w2"].astype(np.float64), w["b2"], 1, groups=16), 0)
    f = r2.mean(axis=(2, 3))
    logits = f @ w["w3"].T.astype(np.float64) + w["b3"]
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=".", help="folder for onnx_accuracy.png and small_cnn.onnx")
    ap.add_argument("--quick", action="store_true", help="a 16x16 input and two samples")
    ap.add_argument("--samples", type=int, default=None, help="inputs to compare (default 8, 2 with --quick)")
    args = ap.parse_args()
    size = 16 if args.quick else 32
    samples = args.samples or (2 if args.quick else 8)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "small_cnn.onnx")
    weights = build_onnx(path, size, seed=7)

    try:
        import onnxruntime

        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
        reference_name = "onnxruntime " + onnxruntime.__version__

        def reference(x):
            return session.run(None, {"x": x})[0]
    except ImportError:
        reference_name = "numpy (float64, this script)"

        def reference(x):
            return numpy_reference(x, weights)

    model = npusim.Model(path)
    (inp,) = model.inputs
    (out,) = model.outputs
    print("imported %s: input operand %d %s %s, output operand %d %s, %d operations" % (
        path, inp["index"], inp["type"], inp["dims"], out["index"], out["dims"], len(model.operations)))
    rng = np.random.default_rng(1)
    xs = [rng.uniform(-1, 1, (1, 3, size, size)).astype(np.float32) for _ in range(samples)]
    # The importer keeps the ONNX input's extents when they are its operand's; an NHWC operand takes the
    # image transposed.
    nhwc = list(inp["dims"]) == [1, size, size, 3]
    runs = npusim.run_many([{"model": model, "inputs": {inp["index"]: x.transpose(0, 2, 3, 1) if nhwc else x},
                             "layers": False} for x in xs])
    got = np.concatenate([r.outputs[out["index"]].reshape(1, -1) for r in runs])
    want = np.concatenate([np.asarray(reference(x)).reshape(1, -1) for x in xs])
    err = np.abs(got.astype(np.float64) - want)
    agree = float(np.mean(got.argmax(axis=1) == want.argmax(axis=1)))
    print("reference: %s" % reference_name)
    print("placement: %s" % runs[0].placement)
    print("max |error| %.3g, mean |error| %.3g over %d outputs, top-1 agreement %.0f%%" % (
        err.max(), err.mean(), err.size, agree * 100))

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.scatter(want.ravel(), got.ravel(), s=8)
    ax1.plot([0, want.max()], [0, want.max()], color="grey", lw=0.5)
    ax1.set(xlabel="reference (%s)" % reference_name.split(" ")[0], ylabel="npusim NPU", title="class probabilities")
    ax2.hist(err.ravel(), bins=30)
    ax2.set(xlabel="|npusim - reference|", ylabel="outputs", title="max |error| %.2g" % err.max())
    fig.tight_layout()
    png = os.path.join(args.out, "onnx_accuracy.png")
    fig.savefig(png, dpi=100)
    print("plot written to", png)
    if err.max() > 1e-4:
        raise SystemExit("accuracy check failed: max |error| %.3g > 1e-4" % err.max())


if __name__ == "__main__":
    main()

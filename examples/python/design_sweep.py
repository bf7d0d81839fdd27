#!/usr/bin/env python3
"""A design sweep: one model on a grid of NPU designs (channels x MAC-array size), all runs in parallel
child processes, results in a DataFrame and a plot of latency and NPU cycles against channel count.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/design_sweep.py --out /tmp/sweep
    ... --quick   (a 64x64 MobileNet v2 and two channel counts: the test suite's setting)
"""

import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import npusim  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None, help="model (default zoo:mobilenet_v2_quant8, @64 with --quick)")
    ap.add_argument("--out", default=".", help="folder for design_sweep.png and design_sweep.csv")
    ap.add_argument("--quick", action="store_true", help="a small model and a small grid")
    args = ap.parse_args()
    model = args.model or ("zoo:mobilenet_v2_quant8@64" if args.quick else "zoo:mobilenet_v2_quant8")
    channels = [1, 4] if args.quick else [1, 2, 4, 8]
    arrays = [8, 16] if args.quick else [8, 16, 32]

    designs = [{"npu.channels": c, "npu.channel.array.rows": a, "npu.channel.array.cols": a}
               for a in arrays for c in channels]
    # layers=False: only the totals are plotted, so the runs skip recording the trace.
    results = npusim.run_many([{"model": model, "set": d, "layers": False} for d in designs])
    table = pd.DataFrame([{"channels": d["npu.channels"], "array": "%dx%d" % ((d["npu.channel.array.rows"],) * 2),
                           "latency_us": r.latency_us, "device_us": r.device_us, "npu_cycles": r.npu_cycles,
                           "parallelism": r.stat("hal.execution.channel_parallelism"),
                           "dram_gbps": r.stat("npu.dram.bandwidth_gbps")}
                          for d, r in zip(designs, results)])
    print(table.to_string(index=False))

    os.makedirs(args.out, exist_ok=True)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for array, group in table.groupby("array", sort=False):
        ax1.plot(group["channels"], group["latency_us"], marker="o", label=array)
        ax2.plot(group["channels"], group["npu_cycles"], marker="o", label=array)
    ax1.set(xlabel="channels", ylabel="latency (simulated us)", title=model)
    ax2.set(xlabel="channels", ylabel="NPU busy cycles", title="work (all channels)")
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.set_xticks(channels, [str(c) for c in channels])
        ax.legend(title="MAC array")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    png = os.path.join(args.out, "design_sweep.png")
    fig.savefig(png, dpi=100)
    table.to_csv(os.path.join(args.out, "design_sweep.csv"), index=False)
    print("plot written to", png)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A scenario policy comparison: one multi-tenant scenario under every scheduling baseline (fcfs, hpf,
prema, rr, edf, default), the per-policy and per-app metrics as DataFrames, and a plot of each app's deadline
misses and p99 latency per policy.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/scenario_policies.py --out /tmp/policies
    ... --quick   (camera_llm scaled to 0.05 of its length: the test suite's setting)
"""

import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import npusim  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="camera_llm", help="a shipped scenario name or a scenario file")
    ap.add_argument("--scale", type=float, default=None, help="duration scale (default 0.2, 0.05 with --quick)")
    ap.add_argument("--out", default=".", help="folder for scenario_policies.png and the CSV tables")
    ap.add_argument("--quick", action="store_true", help="a short run")
    args = ap.parse_args()
    scale = args.scale or (0.05 if args.quick else 0.2)

    r = npusim.scenario(args.scenario, compare=True, scale=scale)
    policies, apps = r.policies, r.apps
    print("%s, %g s simulated" % (r.scenario, r.duration_s))
    print(policies[["antt", "stp", "fairness", "preemptions", "energy_j", "peak_junction_c"]].to_string())
    print(apps[["deadline_miss_rate", "p50_ms", "p99_ms", "ntt", "npu_s"]].to_string())

    os.makedirs(args.out, exist_ok=True)
    misses = apps["deadline_miss_rate"].unstack("app") * 100
    p99 = apps["p99_ms"].unstack("app")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    misses.plot.bar(ax=ax1, rot=0)
    ax1.set(ylabel="deadline misses (%)", title="%s: misses by policy" % r.scenario)
    p99.plot.bar(ax=ax2, rot=0)
    ax2.set(ylabel="p99 latency (ms)", title="p99 latency by policy")
    for ax in (ax1, ax2):
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    png = os.path.join(args.out, "scenario_policies.png")
    fig.savefig(png, dpi=100)
    policies.to_csv(os.path.join(args.out, "scenario_policies.csv"))
    apps.to_csv(os.path.join(args.out, "scenario_apps.csv"))
    print("plot written to", png)


if __name__ == "__main__":
    main()

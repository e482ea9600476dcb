"""Per-operation bottleneck chart for one model: which unit limits each operation.

    PYTHONPATH=<build>/python /usr/bin/python3 operation_bottlenecks.py OUT_DIR [--case DIR] [--top N]
        [--set NAME=VALUE ...]

Writes OUT_DIR/bottleneck.png and OUT_DIR/bottleneck.csv (the per-operation table with the occupancies).

Per kernel operation, each unit's occupancy is the share of the operation's cycles it was busy: the MAC
array, the weight decoder (WD) and the output unit (AO) from their busy cycles, and the two AXI ports from
the bytes they moved over their peak bandwidth (bytes per cycle). The busiest unit is the operation's
bottleneck; when no unit is busy half of the time, the operation mostly waits (memory latency, block
dependencies, DMAs it depends on). DMAs run beside the kernel operations and are left out of the chart.
The chart shows the longest operations, in stream order: their cycles coloured by bottleneck, and the
occupancy of every unit.
"""

import argparse
import os
import sys
from pathlib import Path

import ethosu_sim

UNITS = ["MAC", "WD", "AO", "AXI0 (SRAM)", "AXI1 (DRAM)"]
WAITS = "waits"  # no unit busy half of the operation's cycles
BUSY_ENOUGH = 0.5
COLOURS = {"MAC": "#2ca02c", "WD": "#9467bd", "AO": "#8c564b", "AXI0 (SRAM)": "#1f77b4", "AXI1 (DRAM)": "#d62728",
           WAITS: "#bbbbbb"}


def occupancy(result):
    """Per kernel operation: unit -> share of its cycles busy, and the bottleneck."""
    bw = [result.config["mem.axi0.bytes_per_cycle"], result.config["mem.axi1.bytes_per_cycle"]]
    rows = []
    for op in result.ops:
        if op["kind"] == "DMA":
            continue
        cycles = max(1, op["cycles"])
        busy = {
            "MAC": op["mac_busy_cycles"],
            "WD": op["wd_busy_cycles"],
            "AO": op["ao_busy_cycles"],
            "AXI0 (SRAM)": (op["axi0_read_bytes"] + op["axi0_write_bytes"]) / bw[0],
            "AXI1 (DRAM)": (op["axi1_read_bytes"] + op["axi1_write_bytes"]) / bw[1],
        }
        share = {unit: min(1.0, b / cycles) for unit, b in busy.items()}
        busiest = max(UNITS, key=lambda u: share[u])
        rows.append({**op, **{f"occupancy {u}": s for u, s in share.items()},
                     "bottleneck": busiest if share[busiest] >= BUSY_ENOUGH else WAITS})
    return ethosu_sim.Table(rows)


def label(op):
    return f"#{op['index']} {op['kind']} {op['ofm_h']}x{op['ofm_w']}x{op['ofm_c']}"


def plot(result, table, top, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    longest = sorted(table, key=lambda op: op["cycles"], reverse=True)[:top]
    ops = sorted(longest, key=lambda op: op["index"])  # stream order, top to bottom
    share = sum(op["cycles"] for op in ops) / max(1, sum(op["cycles"] for op in table))
    height = max(4.0, 0.32 * len(ops) + 1.8)
    fig, (bars, heat) = plt.subplots(1, 2, figsize=(15, height), sharey=True,
                                     gridspec_kw={"width_ratios": [1.5, 1.0], "wspace": 0.04})
    y = list(range(len(ops)))
    bars.barh(y, [op["cycles"] / 1e3 for op in ops], color=[COLOURS[op["bottleneck"]] for op in ops])
    bars.set_yticks(y, [label(op) for op in ops], fontsize=8)
    bars.invert_yaxis()
    bars.set_xlabel("operation cycles (thousands)")
    bars.grid(True, axis="x", alpha=0.3)
    bars.legend(handles=[Patch(color=c, label=u) for u, c in COLOURS.items()], title="bottleneck", fontsize=8,
                ncol=3, loc="lower left", bbox_to_anchor=(0.0, 1.0))
    grid = [[op[f"occupancy {u}"] for u in UNITS] for op in ops]
    image = heat.imshow(grid, aspect="auto", cmap="Greys", vmin=0, vmax=1)
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            heat.text(j, i, f"{100 * v:.0f}", ha="center", va="center", fontsize=7,
                      color="white" if v > 0.55 else "black")
    heat.set_xticks(range(len(UNITS)), UNITS, fontsize=9)
    heat.xaxis.tick_top()
    heat.set_title("occupancy (% of the operation's cycles)", fontsize=10, pad=24)
    fig.colorbar(image, ax=heat, fraction=0.04, pad=0.02)
    fig.suptitle(f"{result.job_name} on {result.variant}: {result.total_cycles:,} cycles, MAC utilisation "
                 f"{100 * result.mac_utilisation:.1f}%; the {len(ops)} longest kernel operations ({100 * share:.0f}% "
                 "of kernel-operation cycles)", fontsize=11)
    fig.subplots_adjust(left=0.17, right=0.97, top=1 - 1.6 / height, bottom=0.7 / height)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    shared = Path(os.environ.get("ETHOSU_SIM_SHARED_DIR", "../shared"))
    parser.add_argument("--case", type=Path, default=shared / "corpus" / "yolo_face_detect_int8_nxp",
                        help="case folder or Vela .tflite (default: the corpus's yolo_face_detect_int8_nxp)")
    parser.add_argument("--top", type=int, default=30, help="how many of the longest operations to show")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a parameter (repeatable)")
    args = parser.parse_args(argv)
    if not args.case.exists():
        sys.exit(f"bottleneck: {args.case} not found (give --case or set ETHOSU_SIM_SHARED_DIR)")
    params = dict(s.split("=", 1) for s in args.set)
    result = ethosu_sim.run(args.case, params=params)
    table = occupancy(result)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out_dir / "bottleneck.csv")
    plot(result, table, args.top, args.out_dir / "bottleneck.png")
    counts = {u: sum(op["cycles"] for op in table if op["bottleneck"] == u) for u in COLOURS}
    total = max(1, sum(counts.values()))
    print(f"{result.job_name}: {result.total_cycles} cycles; kernel-operation cycles by bottleneck: " +
          ", ".join(f"{u} {100 * c / total:.0f}%" for u, c in counts.items()))
    print(f"wrote {args.out_dir / 'bottleneck.png'} and bottleneck.csv")


if __name__ == "__main__":
    main()

"""Memory-system sweep: MAC count x on-chip SRAM size x DRAM latency and bandwidth, for two corpus models.

    PYTHONPATH=<build>/python /usr/bin/python3 memory_sweep.py OUT_DIR [--shared DIR] [--quick]

Writes OUT_DIR/memory_sweep.png (cycles and MAC utilisation) and OUT_DIR/memory_sweep.csv (every run).

MAC count: the U65-512's second core only works on a stream compiled for it, so each model runs as Vela's
ethos-u65-256 build on a U65-256 and as its ethos-u65-512 build (the corpus's u65_512/ folder) on a U65-512.
SRAM size: the streams are compiled, so their regions have fixed sizes; the SRAM size decides which of them
a driver can place in on-chip SRAM (AXI0) instead of DRAM (AXI1). Regions go to SRAM while they fit, in the
order cache (region 2), arena (region 1), constants (region 0); the rest stays in DRAM.
"""

import argparse
import os
import sys
from pathlib import Path

import ethosu_sim

MODELS = ["ic_resnet8_mlperf", "yolo_face_detect_int8_nxp"]
VARIANTS = [("ethos-u65-256", ""), ("ethos-u65-512", "u65_512")]
SRAM_KIB = [0, 128, 256, 1024]
DRAM_LATENCY = [250, 500, 1000, 2000]  # read latency in cycles; writes take half, as in the presets
DRAM_BYTES_PER_CYCLE = [1.875, 3.75, 7.5, 15.0]  # 1.9 to 15 GB/s at 1 GHz; 3.75 is the i.MX 93's LPDDR4X
DEFAULT_LATENCY, DEFAULT_BANDWIDTH = 500, 3.75


def sram_placement(job, sram_bytes):
    """The region -> AXI port parameters for an SRAM of sram_bytes: regions fill it while they fit."""
    sizes = job.region_sizes
    ports, free = {}, sram_bytes
    for region in (2, 1, 0):
        fits = 0 < sizes[region] <= free
        ports[f"regions.{region}.port"] = 0 if fits else 1
        free -= sizes[region] if fits else 0
    return ports


def points(shared, quick):
    latencies = [DEFAULT_LATENCY, 2000] if quick else DRAM_LATENCY
    bandwidths = [DEFAULT_BANDWIDTH, 15.0] if quick else DRAM_BYTES_PER_CYCLE
    srams = [0, 1024] if quick else SRAM_KIB
    out = []
    for model in MODELS[:1] if quick else MODELS:
        for variant, folder in VARIANTS:
            job = ethosu_sim.Job(shared / "corpus" / model / folder)
            for kib in srams:
                memory = {"mem.sram.size_bytes": kib * 1024, **sram_placement(job, kib * 1024)}
                for lat in latencies:
                    for bw in bandwidths:
                        if lat != DEFAULT_LATENCY and bw != DEFAULT_BANDWIDTH:
                            continue  # one axis at a time around the i.MX 93 defaults
                        out.append({"job": job, "variant": variant, **memory,
                                    "mem.axi1.read_latency_cycles": lat, "mem.axi1.write_latency_cycles": lat // 2,
                                    "mem.axi1.bytes_per_cycle": bw})
    return out


def plot(table, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for r in table:
        r["sram_kib"] = r["mem.sram.size_bytes"] // 1024
    models = list(dict.fromkeys(table["job"]))
    srams = sorted(set(table["sram_kib"]))
    colours = dict(zip(srams, ["#222222", "#1f77b4", "#2ca02c", "#d62728", "#ff7f0e", "#8c564b"]))
    styles = {"ethos-u65-256": ("-", "o"), "ethos-u65-512": ("--", "s")}
    fig, axes = plt.subplots(len(models), 3, figsize=(17, 5.2 * len(models)), squeeze=False)
    for row, model in zip(axes, models):
        runs = table.where(job=model)
        for variant, (line, marker) in styles.items():
            for kib in srams:
                label = f"{variant[-3:]} MACs, SRAM {kib} KiB"
                sel = runs.where(variant=variant, sram_kib=kib)
                by_bw = sorted((r["mem.axi1.bytes_per_cycle"], r["total_cycles"]) for r in sel
                               if r["mem.axi1.read_latency_cycles"] == DEFAULT_LATENCY)
                by_lat = sorted((r["mem.axi1.read_latency_cycles"], r["total_cycles"]) for r in sel
                                if r["mem.axi1.bytes_per_cycle"] == DEFAULT_BANDWIDTH)
                style = dict(color=colours[kib], linestyle=line, marker=marker, label=label)
                row[0].plot([x for x, _ in by_bw], [y / 1e3 for _, y in by_bw], **style)
                row[1].plot([x for x, _ in by_lat], [y / 1e3 for _, y in by_lat], **style)
        row[0].set_xscale("log", base=2)
        row[0].set_xticks(sorted(set(runs["mem.axi1.bytes_per_cycle"])))
        row[0].get_xaxis().set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        row[0].set_xlabel("DRAM bandwidth (bytes/cycle = GB/s at 1 GHz)")
        row[0].set_title(f"{model}\ncycles vs DRAM bandwidth (read latency {DEFAULT_LATENCY} cycles)")
        row[1].set_xlabel("DRAM read latency (cycles)")
        row[1].set_title(f"{model}\ncycles vs DRAM read latency ({DEFAULT_BANDWIDTH} bytes/cycle)")
        for ax in row[:2]:
            ax.set_ylabel("NPU cycles (thousands)")
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
        # MAC utilisation at the i.MX 93 memory figures.
        width = 0.8 / len(styles)
        for k, variant in enumerate(styles):
            util = [100 * runs.where(variant=variant, sram_kib=kib, **{"mem.axi1.read_latency_cycles": DEFAULT_LATENCY,
                                                                       "mem.axi1.bytes_per_cycle": DEFAULT_BANDWIDTH})
                    [0]["mac_utilisation"] for kib in srams]
            xs = [i + (k - 0.5) * width for i in range(len(srams))]
            bars = row[2].bar(xs, util, width, label=f"{variant[-3:]} MACs", color=["#7f7f7f", "#9467bd"][k])
            row[2].bar_label(bars, fmt="%.0f%%", fontsize=8)
        row[2].set_xticks(range(len(srams)), [f"{kib} KiB" for kib in srams])
        row[2].set_xlabel("on-chip SRAM")
        row[2].set_ylabel("MAC utilisation (%)")
        row[2].set_title(f"{model}\nMAC utilisation (DRAM {DEFAULT_BANDWIDTH} bytes/cycle, latency {DEFAULT_LATENCY})")
        row[2].legend(loc="upper left", fontsize=9)
        row[2].set_ylim(0, row[2].get_ylim()[1] * 1.15)  # room for the bar labels
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(srams), fontsize=9, frameon=False)
    fig.suptitle("Ethos-U65 on the i.MX 93 memory system: MAC count, on-chip SRAM, DRAM latency and bandwidth", fontsize=13)
    fig.tight_layout(rect=(0, 0.07 if len(models) > 1 else 0.12, 1, 0.97))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--shared", type=Path, default=Path(os.environ.get("ETHOSU_SIM_SHARED_DIR", "../shared")),
                        help="conformance data root (default: $ETHOSU_SIM_SHARED_DIR or ../shared)")
    parser.add_argument("--quick", action="store_true", help="a few points of one model (for the test suite)")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    args = parser.parse_args(argv)
    if not (args.shared / "corpus").is_dir():
        sys.exit(f"memory_sweep: no corpus under {args.shared} (give --shared or set ETHOSU_SIM_SHARED_DIR)")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    table = ethosu_sim.sweep(None, points(args.shared, args.quick), max_workers=args.workers, progress=not args.quick)
    bad = [r for r in table if r["status"] != "ok" or r["exact"] is False]
    if bad:
        sys.exit(f"memory_sweep: {len(bad)} runs faulted or gave wrong outputs, first: {bad[0]}")
    table.to_csv(args.out_dir / "memory_sweep.csv")
    plot(table, args.out_dir / "memory_sweep.png")
    print(f"{len(table)} runs in {table.wall_seconds:.1f} s ({table.runs_per_second:.1f} runs/s); "
          f"wrote {args.out_dir / 'memory_sweep.png'} and memory_sweep.csv")


if __name__ == "__main__":
    main()

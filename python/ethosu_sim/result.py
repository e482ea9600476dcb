"""Result: what one run produced, as Python objects.

``report`` is the simulator's JSON report (the `ethosu-sim run --report` file) as dicts and lists; the
other attributes are its figures and views of it. ``ops`` is the flat per-operation table: one row per operation with the
same columns for every row (zeros where a column does not apply, such as the OFM shape of a DMA).

Time, three ways: ``cycles`` is an operation's duration (operations overlap, so durations do not add up);
``exclusive_cycles`` the cycles charged to it alone, split by what it was doing (exclusive_<cause> columns,
causes in ethosu_sim.time_causes()): each cycle of the run goes once to the oldest operation in flight, or to the
command controller when none is, so the operations' exclusive cycles plus the controller's own time
(Result.time_breakdown) add up to total_cycles. ``stall_<cause>`` are the MAC's and AO's waits inside an
operation and ``held_<cause>`` the cycles the controller held it back before its start (BLOCKDEP, a SHRAM layout
change). start_cycle and end_cycle count from the job's start.
"""

import functools
import html
import json

import numpy as np

from . import _ethosu_sim
from .table import Table

STALL_CAUSES = tuple(_ethosu_sim.stall_names())
# The controller's gates, which hold an operation back before it starts (an operation's held_<cause> columns).
HELD_CAUSES = ("blockdep", "shram_reconfig")
# The MAC's and AO's waits inside an operation (its stall_<cause> columns).
UNIT_STALL_CAUSES = tuple(c for c in STALL_CAUSES if c.startswith(("mac_", "ao_")))
# What an operation was doing in the cycles charged to it alone (its exclusive_<cause> columns).
OP_TIME_CAUSES = tuple(_ethosu_sim.op_time_names())


def _port_bytes(traffic, port, direction):
    return sum(traffic.get(port, {}).get(direction, {}).values())


def flatten_op(op):
    """One report operation as a flat row of scalars."""
    shape = op.get("ofm_shape") or [0, 0, 0]
    block = op.get("block_config") or [0, 0, 0]
    busy = op.get("busy_cycles") or {}
    traffic = op.get("traffic") or {}
    row = {
        "index": op["index"],
        "offset": op["offset"],
        "kind": op["kind"],
        "layer": op.get("layer", ""),
        "start_cycle": op["start_cycle"],
        "end_cycle": op["end_cycle"],
        "cycles": op["cycles"],
        "exclusive_cycles": sum((op.get("exclusive_cycles") or {}).values()),
        "ofm_h": shape[0], "ofm_w": shape[1], "ofm_c": shape[2],
        "block_h": block[0], "block_w": block[1], "block_c": block[2],
        "tiles": op.get("tiles", 0),
        "macs": op.get("macs", 0),
        "mac_utilisation": float(op.get("mac_utilisation", 0.0)),
        "mac_busy_cycles": busy.get("mac", 0),
        "wd_busy_cycles": busy.get("wd", 0),
        "ao_busy_cycles": busy.get("ao", 0),
    }
    for port in ("axi0", "axi1"):
        for direction in ("read", "write"):
            row[f"{port}_{direction}_bytes"] = _port_bytes(traffic, port, f"{direction}_bytes")
    exclusive = op.get("exclusive_cycles") or {}
    for cause in OP_TIME_CAUSES:
        row[f"exclusive_{cause}"] = exclusive.get(cause, 0)
    stalls = op.get("stall_cycles") or {}
    for cause in UNIT_STALL_CAUSES:
        row[f"stall_{cause}"] = stalls.get(cause, 0)
    held = op.get("held_cycles") or {}
    for cause in HELD_CAUSES:
        row[f"held_{cause}"] = held.get(cause, 0)
    return row


class Result:
    """One run. Timing attributes are None for functional runs (functional=True).

    The summary figures are read at once; report, config, ops and the detailed traffic and stall views are
    built on first use (for a small job that costs more than the simulation, and sweeps rarely need them).
    time_breakdown is total_cycles split so that it adds up: {cause: cycles} for what the oldest operation in
    flight was doing (ethosu_sim.time_causes()) and "controller" for the command controller's own time (by cause
    in controller_cycles: "parse" and its waits).
    """

    def __init__(self, job, raw):
        record = raw["record"]
        self._record = record
        self.job_name = job.name
        self.fault = raw["fault"]
        self.summary = raw["summary"]
        self.hazards = list(raw["hazards"])
        self.variant = record.param("npu.variant")
        self.macs_per_cycle = record.param("npu.mac.per_core") * record.param("npu.cores")
        self.output_names = [t["name"] for t in job.outputs]
        self.outputs = [np.frombuffer(data, dtype=t["dtype"]).reshape(t["shape"]).copy()
                        for data, t in zip(raw["outputs"], job.outputs)]
        self.comparisons = raw["comparisons"]
        self.run_seconds = raw["run_seconds"]  # host wall time of the simulation itself (C++ run_job)
        self.timed = record.timed
        self.total_cycles = record.total_cycles if self.timed else None
        self.clock_hz = record.clock_hz if self.timed else None
        self.time_s = self.total_cycles / self.clock_hz if self.timed and self.clock_hz else None
        self.status = (record.status or "ok") if self.timed else ("ok" if self.fault is None else self.fault)
        self.pmu = record.pmu
        self.macs = record.macs
        ops_time, self.controller_cycles = record.time_breakdown if self.timed else ({}, {})
        self.time_breakdown = ({cause: ops_time[cause] for cause in OP_TIME_CAUSES} |
                               {"controller": sum(self.controller_cycles.values())}) if self.timed else None
        self._port_bytes = {(f"axi{p}", d): record.port_bytes(p, d == "write") for p in (0, 1) for d in ("read", "write")}

    @functools.cached_property
    def config_detail(self):
        """name -> {value, type, unit, source, origin, description} of every parameter of the run."""
        return json.loads(self._record.config_json())

    @functools.cached_property
    def config(self):
        """name -> resolved value."""
        return {name: p["value"] for name, p in self.config_detail.items()}

    @functools.cached_property
    def report(self):
        """The full report (as `ethosu-sim run --report` writes it), or None for functional runs."""
        text = self._record.report_json()
        if text is None:
            return None
        report = json.loads(text)
        report["config"] = self.config_detail
        return report

    @property
    def meta(self):
        """What ran: the ethosu_sim version, the job, the variant, its total cycles and every parameter's value
        (the metadata of the ops table)."""
        return {"ethosu_sim": _ethosu_sim.__version__, "job": self.job_name, "variant": self.variant,
                "total_cycles": self.total_cycles, "status": self.status, "config": self.config}

    @functools.cached_property
    def ops(self):
        """The flat per-operation Table."""
        return Table((flatten_op(op) for op in (self.report or {}).get("ops", [])), self.meta)

    @property
    def traffic(self):
        """Bytes per port, direction and traffic class."""
        return (self.report or {}).get("traffic", {})

    @property
    def stats(self):
        """Every block's counters for the run: {"npu.mac.active_cycles": value, ...} (units and descriptions in
        report["stats"]); the PMU events count these same counters."""
        return {f"{component}.{name}": c["value"]
                for component, counters in (self.report or {}).get("stats", {}).items()
                for name, c in counters.items()}

    @property
    def cc_stall_cycles(self):
        """The command controller's own waits by cause."""
        return dict((self.report or {}).get("cc_stall_cycles", {}))

    @property
    def mac_utilisation(self):
        """MACs done over what the MAC array could do in total_cycles."""
        if not self.total_cycles:
            return None
        return self.macs / (self.total_cycles * self.macs_per_cycle)

    @property
    def stall_cycles(self):
        """Stall cycles by cause: the MAC's and AO's waits summed over the operations, and the command controller's
        waits (BLOCKDEP and SHRAM gates among them, counted once). Waits of different units overlap in time: for
        where the time went, see time_breakdown."""
        out = dict.fromkeys(STALL_CAUSES, 0)
        for cause in UNIT_STALL_CAUSES:
            out[cause] = int(sum(op[f"stall_{cause}"] for op in self.ops))
        for cause, cycles in self.cc_stall_cycles.items():
            out[cause] = out.get(cause, 0) + cycles
        return out

    def port_bytes(self, port, direction):
        """Total bytes on 'axi0'/'axi1' in 'read'/'write' direction."""
        return self._port_bytes[(port, direction)]

    @property
    def exact(self):
        """True when every output with an expected file matches it bit for bit; None when none has one."""
        known = [c for c in self.comparisons if c is not None]
        return all(c["exact"] for c in known) if known else None

    def output(self, key):
        """An output by index or name."""
        if isinstance(key, str):
            if key not in self.output_names:
                raise KeyError(f"no output '{key}' (outputs: {', '.join(self.output_names)})")
            key = self.output_names.index(key)
        return self.outputs[key]

    def summary_row(self):
        """The scalar figures of the run (a sweep's default row)."""
        return {
            "variant": self.variant,
            "status": "ok" if self.fault is None else self.fault,
            "exact": self.exact,
            "total_cycles": self.total_cycles,
            "time_s": self.time_s,
            "macs": self.macs,
            "mac_utilisation": self.mac_utilisation,
            "axi0_read_bytes": self.port_bytes("axi0", "read"),
            "axi0_write_bytes": self.port_bytes("axi0", "write"),
            "axi1_read_bytes": self.port_bytes("axi1", "read"),
            "axi1_write_bytes": self.port_bytes("axi1", "write"),
            **{f"cycles_{cause}": cycles for cause, cycles in (self.time_breakdown or {}).items()},
        }

    def __getstate__(self):
        # The native record stays in its process: pickle the rendered report and configuration instead.
        for name in ("config_detail", "config", "report", "ops"):
            getattr(self, name)
        return {k: v for k, v in self.__dict__.items() if k != "_record"}

    def _repr_html_(self, top=8):
        """A notebook's view: the figures, where the time went (a bar that adds up to the total) and the
        operations that took most of it."""
        title = (f"<b>{html.escape(self.job_name)}</b> on {html.escape(self.variant)}: status "
                 f"{html.escape(str(self.status))}, outputs exact: {self.exact}")
        if not self.timed:
            return f"<p>{title} (functional run, no timing)</p>"
        figures = (f"{self.total_cycles:,} cycles = {self.time_s * 1e3:.3f} ms at {self.clock_hz / 1e6:.0f} MHz; "
                   f"{self.macs:,} MACs, MAC utilisation {100 * self.mac_utilisation:.1f}%; "
                   f"AXI0 {self.port_bytes('axi0', 'read'):,} B read, {self.port_bytes('axi0', 'write'):,} B written; "
                   f"AXI1 {self.port_bytes('axi1', 'read'):,} B read, {self.port_bytes('axi1', 'write'):,} B written")
        colours = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#bab0ac", "#9c755f"]
        shares = [(cause, cycles, colours[k % len(colours)]) for k, (cause, cycles) in
                  enumerate(self.time_breakdown.items()) if cycles]
        total = self.total_cycles or 1
        bar = "".join(f'<div title="{cause}: {cycles:,} cycles" style="width:{100 * cycles / total:.3f}%;'
                      f'background:{colour};height:14px"></div>' for cause, cycles, colour in shares)
        legend = " ".join(f'<span style="color:{colour}">&#9632;</span> {cause} {100 * cycles / total:.1f}%'
                          for cause, cycles, colour in shares)
        rows = sorted(self.ops, key=lambda r: r["exclusive_cycles"], reverse=True)[:top]
        head = "".join(f"<th>{h}</th>" for h in ("#", "kind", "layer", "cycles", "exclusive", "mostly"))
        body = "".join(
            f"<tr><td>{r['index']}</td><td>{html.escape(r['kind'])}</td>"
            f"<td>{html.escape(r['layer'].split(';')[0])}</td><td>{r['cycles']:,}</td>"
            f"<td>{r['exclusive_cycles']:,}</td>"
            f"<td>{max(OP_TIME_CAUSES, key=lambda c: r['exclusive_' + c])}</td></tr>"
            for r in rows if r["exclusive_cycles"])
        return (f"<p>{title}<br>{figures}</p>"
                f'<div style="display:flex;width:100%;max-width:48em">{bar}</div><p><small>time by cause (each cycle '
                f"once): {legend}</small></p><p>Operations with the most exclusive cycles:</p>"
                f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")

    def __repr__(self):
        timing = f"{self.total_cycles} cycles, " if self.timed else "functional, "
        return (f"Result({self.job_name!r} on {self.variant}: {timing}{len(self.outputs)} outputs, "
                f"status {self.status!r})")

#!/usr/bin/env python3
"""One self-contained HTML report (tables and plots, opens offline) from what weft wrote.

    weft_report.py INPUT... --out REPORT.html [--plots DIR]

An INPUT is a `weft run` or `weft layers` JSON report, or a `weft sweep` directory. The page
holds, for each report: its per-layer table, stacked breakdowns of where each layer's cycles and
energy go and a roofline of its configuration; for a sweep: its totals, the Pareto views (cycles against
area and against energy) and utilization heat maps over the grid, and a roofline per
configuration. Plots are matplotlib figures inlined as SVG; --plots also writes each as .svg and
.png (for papers). `weft report` and `--html` on `weft run` / `weft layers` run this script.
"""
import argparse
import html
import io
import json
import math
import os
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("weft report: python3-matplotlib is needed (scripts/setup.sh installs it)")

matplotlib.rcParams.update({"svg.fonttype": "none", "font.size": 9, "figure.dpi": 100,
                            "svg.hashsalt": "weft"})  # stable SVG ids: the same input gives the same page

BREAKDOWN = [("useful", "#2b8cbe", "the unit's peak work: MACs (or lane operations) / peak per cycle"),
             ("busy, not useful", "#a6bddb", "the unit busy beyond that: fill and drain, padded lanes, partial tiles"),
             ("DRAM stall", "#e34a33", "the unit idle while the DMA waits on DRAM"),
             ("other", "#bdbdbd", "the rest: waiting for tokens, commands, the store")]


class ReportError(Exception):
    pass


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise ReportError(f"{path}: cannot read it as JSON ({e})")


# ---- inputs, turned into one shape: a run of layers on one configuration ----

def layer_from_run(l):
    c = l["cycles"]
    busy = l["busy"]["vector"] if l["unit"] == "vector" else l["busy"]["array"]
    return {"name": l["name"], "op": l["operation"], "unit": l["unit"], "cycles": c, "macs": l["macs"],
            "peak": l["peakOpsPerCycle"], "util": l["utilization"], "busy": busy,
            "dram_stall": l["busy"]["dramStall"], "rd": l["dramReadBytes"], "wr": l["dramWriteBytes"],
            "energy": l.get("energy", {}).get("totalPj", 0.0), "energy_parts": l.get("energy", {}),
            "dram": l.get("dram")}


def layer_from_table(l, rows, cols):
    c = l["cycles"]
    k = l.get("counters", {})
    busy = k.get("COMPUTE_ACTIVE", 0) / c if c else 0
    stall = min(1.0, (k.get("STALL_DRAM_RD", 0) + k.get("STALL_DRAM_WR", 0)) / c) if c else 0
    # `weft layers` of an ONNX model lists the operations the accelerator leaves to the CPU too.
    unit = "cpu" if l.get("device") == "weft-cpu" else "array"
    return {"name": l["name"], "op": l["operation"], "unit": unit, "cycles": c, "macs": l["macs"],
            "peak": rows * cols if unit == "array" else 0, "util": l["overallUtilPct"] / 100.0, "busy": busy, "dram_stall": stall,
            "rd": l["dramReadBytes"], "wr": l["dramWriteBytes"], "energy": l.get("energy", {}).get("totalPj", 0.0),
            "energy_parts": l.get("energy", {}), "dram": l.get("dram")}


def run_from_report(report, path):
    hw = report.get("hw", {})
    config = {"name": hw.get("config", "?"), "rows": hw.get("rows", 0), "cols": hw.get("cols", 0),
              "clockMHz": hw.get("clockMHz", 0), "dramBytesPerCycle": hw.get("dramBytesPerCycle")}
    if "network" in report:
        layers = [layer_from_run(l) for l in report["layers"]]
        title = f"{report['network']} on {config['name']} ({report.get('backend', '?')})"
        energy = report.get("acceleratorEnergy", {}).get("totalPj")
    elif "table" in report:
        layers = [layer_from_table(l, config["rows"], config["cols"]) for l in report["layers"]]
        title = f"{report['table']} on {config['name']} ({report.get('backend', '?')})"
        energy = report.get("energy", {}).get("totalPj")
    else:
        raise ReportError(f"{path}: not a weft run or weft layers report (no \"network\" or \"table\")")
    area = report.get("estimates", {}).get("areaUm2")
    # A cycle-level DRAM over the run (device, counters, figures, energyPj), else None.
    return {"title": title, "path": path, "config": config, "layers": layers, "energy": energy, "area": area,
            "dram": report.get("dram")}


def load_sweep(d):
    plan = read_json(os.path.join(d, "plan.json"))
    rows = []
    path = os.path.join(d, "results.jsonl")
    try:
        with open(path, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        raise ReportError(f"{path}: cannot read the sweep's results ({e}); run weft sweep --collect first")
    runs = []  # the reports of the points' runs, for rooflines
    for p in plan["points"]:
        for w in plan["workloads"]:
            rp = os.path.join(d, "work", p["id"], w["label"] + ".json")
            if os.path.exists(rp):
                try:
                    r = run_from_report(read_json(rp), rp)
                    r["point"] = p["id"]
                    r["workload"] = w["label"]
                    r["config"]["dramBytesPerCycle"] = p["config"]["params"]["DramBytesPerCycle"]
                    runs.append(r)
                except (ReportError, KeyError):
                    pass
    return {"dir": d, "plan": plan, "rows": rows, "runs": runs}


# ---- plots ----

class Plots:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.count = 0

    def figure(self, fig, name, caption):
        buf = io.StringIO()
        fig.savefig(buf, format="svg", bbox_inches="tight")
        if self.out_dir:
            os.makedirs(self.out_dir, exist_ok=True)
            fig.savefig(os.path.join(self.out_dir, name + ".svg"), bbox_inches="tight")
            fig.savefig(os.path.join(self.out_dir, name + ".png"), bbox_inches="tight", dpi=200)
        plt.close(fig)
        self.count += 1
        svg = buf.getvalue()
        svg = svg[svg.index("<svg"):]  # drop the XML prolog and doctype: inline SVG
        return (f'<figure class="plot" data-plot="{html.escape(name)}">{svg}'
                f"<figcaption>{html.escape(caption)}</figcaption></figure>\n")


def slug(text):
    return "".join(c if c.isalnum() else "-" for c in text).strip("-").lower()


def breakdown_plot(plots, run):
    layers = [l for l in run["layers"] if l["cycles"] > 0]
    if not layers:
        return ""
    parts = []
    for l in layers:
        c = l["cycles"]
        useful = min(l["util"], 1.0) * c
        busy = max(0.0, l["busy"] * c - useful)
        stall = min(l["dram_stall"], max(0.0, 1.0 - l["busy"])) * c
        parts.append([useful, busy, stall, max(0.0, c - useful - busy - stall)])
    fig, ax = plt.subplots(figsize=(max(6, 0.28 * len(layers) + 2), 3.4))
    x = range(len(layers))
    bottom = [0.0] * len(layers)
    for i, (label, colour, _) in enumerate(BREAKDOWN):
        values = [p[i] for p in parts]
        ax.bar(x, values, bottom=bottom, color=colour, label=label, width=0.8)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xticks(list(x))
    ax.set_xticklabels([l["name"] for l in layers], rotation=90, fontsize=7)
    ax.set_ylabel("device cycles")
    ax.set_title(f"Where each layer's cycles go: {run['title']}")
    ax.legend(fontsize=7, ncol=4, loc="upper right")
    return plots.figure(fig, "breakdown-" + slug(run["title"]),
                        "Stacked per layer: " + "; ".join(f"{n}: {d}" for n, _, d in BREAKDOWN))


ENERGY_PARTS = [("macPj", "array MACs", "#2b8cbe"), ("vectorPj", "vector lanes", "#e6550d"),
                ("scratchpadPj", "scratchpads", "#74c476"), ("accumulatorPj", "accumulator", "#31a354"),
                ("dramPj", "DRAM", "#de2d26"), ("leakagePj", "leakage", "#969696")]


def energy_plot(plots, run):
    layers = [l for l in run["layers"] if l["cycles"] > 0 and l.get("energy_parts")]
    if not layers:
        return ""
    fig, ax = plt.subplots(figsize=(max(6, 0.28 * len(layers) + 2), 3.4))
    x = range(len(layers))
    bottom = [0.0] * len(layers)
    for key, label, colour in ENERGY_PARTS:
        values = [l["energy_parts"].get(key, 0.0) * 1e-6 for l in layers]
        ax.bar(x, values, bottom=bottom, color=colour, label=label, width=0.8)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xticks(list(x))
    ax.set_xticklabels([l["name"] for l in layers], rotation=90, fontsize=7)
    ax.set_ylabel("energy (µJ)")
    ax.set_title(f"Where each layer's energy goes: {run['title']}")
    ax.legend(fontsize=7, ncol=3, loc="upper right")
    return plots.figure(fig, "energy-" + slug(run["title"]),
                        "Stacked per layer: the energy model's parts (the coefficients and their sources are in the "
                        "report's JSON under estimates); register accesses count in the execution's total only.")


def roofline_axes(ax, run):
    cfg = run["config"]
    layers = [l for l in run["layers"] if l["cycles"] > 0 and l["macs"] > 0]
    peak = max([l["peak"] for l in layers] + [cfg["rows"] * cfg["cols"]])
    bw = cfg.get("dramBytesPerCycle")
    ois = [l["macs"] / max(1, l["rd"] + l["wr"]) for l in layers]
    lo = min(ois + [0.1]) / 2
    hi = max(ois + [peak / bw if bw else 100]) * 2
    if bw:
        xs = [lo * (hi / lo) ** (i / 100) for i in range(101)]
        ax.plot(xs, [min(peak, bw * x) for x in xs], color="black", lw=1.2, label=f"roof: {peak} MAC/cycle, {bw} B/cycle")
    else:
        ax.axhline(peak, color="black", lw=1.2, label=f"peak {peak} MAC/cycle")
    for unit, marker, colour in (("array", "o", "#2b8cbe"), ("vector", "s", "#e6550d")):
        pts = [(oi, l["macs"] / l["cycles"]) for oi, l in zip(ois, layers) if l["unit"] == unit]
        if pts:
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], marker=marker, s=14, color=colour, label=f"{unit} layers")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("operations per DRAM byte")
    ax.set_ylabel("operations per cycle")
    ax.grid(True, which="both", alpha=0.3)


def roofline_plot(plots, run):
    if not any(l["cycles"] > 0 and l["macs"] > 0 for l in run["layers"]):
        return ""
    fig, ax = plt.subplots(figsize=(6, 4))
    roofline_axes(ax, run)
    ax.set_title(f"Roofline: {run['title']}")
    ax.legend(fontsize=7)
    return plots.figure(fig, "roofline-" + slug(run["title"]),
                        "Each layer's attained operations per cycle against its operations per DRAM byte (DMA "
                        "bytes), under the configuration's peak and DRAM bandwidth.")


def pareto_front(points):
    """The points no other point beats on both coordinates (smaller is better)."""
    front = [p for p in points if not any(q[0] <= p[0] and q[1] <= p[1] and q != p for q in points)]
    return sorted(front)


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def swept_order(plan, param, values):
    """A swept parameter's values in axis order: numbers ascending; an enumerated parameter's
    value names ("WS", "OS") as the plan first meets them (the spec's order), not alphabetically."""
    values = set(values)
    if all(is_number(v) for v in values):
        return sorted(values)
    seen = []
    for p in plan["points"]:
        v = p.get("values", {}).get(param)
        if v in values and v not in seen:
            seen.append(v)
    return seen + sorted((v for v in values if v not in seen), key=str)


def sweep_plots(plots, sweep):
    out = []
    name = slug(os.path.basename(os.path.abspath(sweep["dir"])))
    totals = [r for r in sweep["rows"] if r["layer"] == "total" and r["status"] == "ok"]
    workloads = sorted({r["workload"] for r in totals})
    for axis, key, label in (("area", "area_um2", "area (mm²)"), ("energy", "energy_pj", "energy (µJ)")):
        fig, axes = plt.subplots(1, len(workloads), figsize=(5 * len(workloads), 3.8), squeeze=False)
        for ax, w in zip(axes[0], workloads):
            mine = [r for r in totals if r["workload"] == w]
            scale = 1e-6
            pts = [(r[key] * scale, r["cycles"], r["point"]) for r in mine]
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=16, color="#9ecae1", label="points")
            front = pareto_front([(p[0], p[1]) for p in pts])
            ax.plot([p[0] for p in front], [p[1] for p in front], "-o", color="#08519c", ms=4, label="Pareto front")
            for p in pts:
                if (p[0], p[1]) in front:
                    ax.annotate(p[2], (p[0], p[1]), fontsize=6, xytext=(3, 3), textcoords="offset points")
            ax.set_xlabel(label)
            ax.set_ylabel("cycles")
            ax.set_yscale("log")
            ax.set_title(w)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
        fig.suptitle(f"Cycles against {axis}")
        out.append(plots.figure(fig, f"{name}-pareto-{axis}", f"Each point's total cycles against its {axis}; the line joins "
                                "the points no other beats on both (Pareto front)."))
    swept = sweep["plan"]["swept"]
    if len(swept) >= 2:
        px, py = swept[1], swept[0]
        rest = swept[2:]
        for w in workloads:
            mine = [r for r in sweep["rows"] if r["layer"] == "total" and r["workload"] == w]
            plan = sweep["plan"]
            order = {p: swept_order(plan, p, [r[p] for r in mine]) for p in swept}
            groups = sorted({tuple(r[p] for p in rest) for r in mine},
                            key=lambda g: [order[p].index(v) for p, v in zip(rest, g)])[:8]
            xs = order[px]
            ys = order[py]
            fig, axes = plt.subplots(1, len(groups), figsize=(3.6 * len(groups) + 1, 3.4), squeeze=False)
            for ax, g in zip(axes[0], groups):
                grid = [[math.nan] * len(xs) for _ in ys]
                for r in mine:
                    if tuple(r[p] for p in rest) == g and r["status"] == "ok" and r["util_pct"] is not None:
                        grid[ys.index(r[py])][xs.index(r[px])] = r["util_pct"]
                im = ax.imshow(grid, origin="lower", cmap="viridis", vmin=0, vmax=100, aspect="auto")
                for i in range(len(ys)):
                    for j in range(len(xs)):
                        if not math.isnan(grid[i][j]):
                            ax.text(j, i, f"{grid[i][j]:.0f}", ha="center", va="center", fontsize=7,
                                    color="white" if grid[i][j] < 60 else "black")
                ax.set_xticks(range(len(xs)))
                ax.set_xticklabels(xs)
                ax.set_yticks(range(len(ys)))
                ax.set_yticklabels(ys)
                ax.set_xlabel(px)
                ax.set_ylabel(py)
                ax.set_title(", ".join(f"{p}={v}" for p, v in zip(rest, g)) or w, fontsize=8)
            fig.colorbar(im, ax=list(axes[0]), label="utilization %")
            fig.suptitle(f"Utilization over the grid: {w}")
            out.append(plots.figure(fig, f"{name}-heatmap-{slug(w)}", f"Total utilization (%) of {w} per grid point; "
                                    "blank: failed."))
    runs = sweep["runs"][:16]
    if runs:
        n = len(runs)
        cols = min(4, n)
        fig, axes = plt.subplots((n + cols - 1) // cols, cols, figsize=(3.6 * cols, 3.0 * ((n + cols - 1) // cols)),
                                 squeeze=False)
        for ax, r in zip([a for row in axes for a in row], runs):
            roofline_axes(ax, r)
            ax.set_title(f"{r['point']}: {r['workload']}", fontsize=8)
        for ax in [a for row in axes for a in row][n:]:
            ax.set_visible(False)
        out.append(plots.figure(fig, f"{name}-rooflines", "Roofline per configuration" +
                                (f" (the first 16 of {len(sweep['runs'])})" if len(sweep["runs"]) > 16 else "")))
    return "".join(out)


# ---- tables and the page ----

def table(headers, rows, numeric):
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = []
    for r in rows:
        cells = "".join(f'<td class="{"num" if n else ""}">{html.escape(str(v))}</td>' for v, n in zip(r, numeric))
        body.append(f"<tr>{cells}</tr>")
    return f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>\n'


def fmt(v, digits=1):
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:,.{digits}f}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def dram_summary(run):
    """One line on a cycle-level DRAM's figures, as weft run and weft layers print it."""
    d = run.get("dram")
    if d is None:
        return ""
    f = d["figures"]
    line = (f"DRAM ({d['device']}): row hits {f['rowHitPct']:.1f} %, {f['activates']:,} activates, "
            f"{f['refreshes']:,} refreshes; average latency {f['readLatencyCycles']:.1f} DRAM cycles a read, "
            f"{f['writeLatencyCycles']:.1f} a write (to its command); bank-level parallelism "
            f"{f['bankLevelParallelism']:.2f}")
    if d.get("energyPj") is not None:
        line += f"; energy {d['energyPj'] * 1e-6:,.1f} µJ"
        if run.get("energy"):
            line += f" ({100 * d['energyPj'] / run['energy']:.0f} % of the total)"
    return f'<p class="dram">{html.escape(line)}</p>'


def run_section(plots, run):
    # A layer table on a cycle-level DRAM has each layer's DRAM counters: its row-hit rate.
    row_hits = any(l.get("dram") is not None for l in run["layers"])
    rows = [[l["name"], l["op"], l["unit"], fmt(l["cycles"]), fmt(100 * l["util"]) if l["cycles"] else "",
             fmt(l["rd"]), fmt(l["wr"])]
            + ([fmt(l["dram"]["rowHitPct"]) if l.get("dram") else ""] if row_hits else [])
            + [fmt(l["energy"] * 1e-6, 3) if l["cycles"] else ""] for l in run["layers"]]
    total = sum(l["cycles"] for l in run["layers"])
    summary = f"{len(run['layers'])} layers, {total:,} device cycles"
    if run.get("energy") is not None:
        summary += f", {run['energy'] * 1e-6:,.1f} µJ"
    if run.get("area") is not None:
        summary += f", area {run['area'] * 1e-6:.3f} mm² (estimates: see the report's JSON)"
    headers = (["layer", "operation", "unit", "cycles", "util %", "DRAM rd B", "DRAM wr B"]
               + (["DRAM row hits %"] if row_hits else []) + ["energy µJ"])
    return (f"<section><h2>{html.escape(run['title'])}</h2><p>{html.escape(summary)}</p>" + dram_summary(run)
            + table(headers, rows, [False, False, False] + [True] * (len(headers) - 3))
            + breakdown_plot(plots, run) + energy_plot(plots, run) + roofline_plot(plots, run) + "</section>\n")


def sweep_section(plots, sweep):
    plan = sweep["plan"]
    totals = [r for r in sweep["rows"] if r["layer"] == "total"]
    # Points on a cycle-level DRAM have its row-hit rate (empty for the simple pipe's).
    row_hits = any(r.get("dram_row_hit_pct") is not None for r in totals)
    headers = (["point"] + plan["swept"] + ["workload", "status", "cycles", "util %", "energy µJ", "area mm²"]
               + (["DRAM row hits %"] if row_hits else []))
    rows = [[r["point"]] + [r[p] for p in plan["swept"]] +
            [r["workload"], r["status"], fmt(r["cycles"]), fmt(r["util_pct"]),
             fmt(r["energy_pj"] * 1e-6, 3) if r["energy_pj"] is not None else "",
             fmt(r["area_um2"] * 1e-6, 4) if r["area_um2"] is not None else ""]
            + ([fmt(r.get("dram_row_hit_pct"))] if row_hits else []) for r in totals]
    failed = [r for r in totals if r["status"] != "ok"]
    note = f"{len(plan['points'])} points x {len(plan['workloads'])} workloads on {plan['backend']}"
    if failed:
        note += f"; {len(failed)} failed (reasons in results.csv)"
    return (f"<section><h2>Sweep {html.escape(os.path.basename(os.path.abspath(sweep['dir'])))}</h2>"
            f"<p>{html.escape(note)}; spec {html.escape(plan['spec'])}</p>"
            + table(headers, rows, [False] + [all(is_number(r[p]) for r in totals) for p in plan["swept"]]
                    + [False, False, True, True, True, True] + ([True] if row_hits else []))
            + sweep_plots(plots, sweep) + "</section>\n")


STYLE = """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.8em; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ddd; padding: 2px 6px; } th { background: #f2f2f2; cursor: pointer; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure.plot { margin: 1em 0; } figure.plot svg { max-width: 100%; height: auto; }
figcaption { font-size: 0.8em; color: #555; }
"""

# Sorting by a click on a header, and a self-check the browser test reads: every plot drawn
# (an SVG with a size and marks in it) and no script error, into <body data-...>.
SCRIPT = """
window.weftErrors = [];
window.addEventListener('error', function (e) { window.weftErrors.push(String(e.message)); });
document.querySelectorAll('table.sortable th').forEach(function (th, col) {
  th.addEventListener('click', function () {
    var body = th.closest('table').tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var num = function (r) { return parseFloat(r.cells[col].textContent.replace(/,/g, '')); };
    var asc = th.dataset.asc !== '1';
    rows.sort(function (a, b) {
      var x = num(a), y = num(b);
      var d = (!isNaN(x) && !isNaN(y)) ? x - y : a.cells[col].textContent.localeCompare(b.cells[col].textContent);
      return asc ? d : -d;
    });
    th.dataset.asc = asc ? '1' : '0';
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
window.addEventListener('load', function () {
  var drawn = 0, plots = document.querySelectorAll('figure.plot');
  plots.forEach(function (f) {
    var svg = f.querySelector('svg');
    if (!svg) return;
    var box = svg.getBoundingClientRect();
    var marks = svg.querySelectorAll('path, use, rect, text, image').length;
    if (box.width > 50 && box.height > 50 && marks > 10) drawn++;
  });
  document.body.dataset.plots = String(plots.length);
  document.body.dataset.plotsDrawn = String(drawn);
  document.body.dataset.scriptErrors = String(window.weftErrors.length);
  document.body.dataset.errorText = window.weftErrors.join(' | ');
  document.body.dataset.checked = 'yes';
});
"""


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+", help="weft run / weft layers JSON reports, weft sweep directories")
    ap.add_argument("--out", required=True, help="the HTML file to write")
    ap.add_argument("--plots", help="also write every plot as .svg and .png here")
    args = ap.parse_args(argv)
    plots = Plots(args.plots)
    sections = []
    for path in args.inputs:
        if os.path.isdir(path):
            sections.append(sweep_section(plots, load_sweep(path)))
        elif os.path.isfile(path):
            sections.append(run_section(plots, run_from_report(read_json(path), path)))
        else:
            raise ReportError(f"{path}: no such report or sweep directory")
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>weft report</title>"
            f"<style>{STYLE}</style></head><body><h1>weft report</h1>\n" + "".join(sections)
            + f"<script>{SCRIPT}</script></body></html>\n")
    tmp = args.out + ".tmp"
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(tmp, args.out)
    print(f"report written to {args.out} ({plots.count} plots)")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except ReportError as e:
        sys.exit(f"weft report: error: {e}")

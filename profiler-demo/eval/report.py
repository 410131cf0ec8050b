#!/usr/bin/env python3
"""report.py OUT_DIR - the walk-mode evaluation report from the runs eval.sh left in OUT_DIR:
a table on stdout and OUT_DIR/report.html (self-contained: inline SVG, no scripts, no
network). Reads OUT_DIR/manifest.tsv (label, workload, mode, jdk, elapsed ms, exit status)
and per run LABEL.err (the agent's summary, its "stats:" line), LABEL.out (the workload's
own figures), LABEL.collapsed (our samples) and LABEL.json (JFR's samples)."""
import argparse
import html
import json
import os
import re
import statistics

MODES = ["signal", "thread", "queue", "jfr", "jfr25", "none"]
HOT, ORD = "EvalBias.hot", "EvalBias.ordinary"


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def stats_line(text):
    """The agent's key=value stats line as a dict of floats/strings."""
    m = re.search(r"^stats: (.*)$", text, re.M)
    out = {}
    for kv in (m.group(1).split() if m else []):
        k, _, v = kv.partition("=")
        try:
            out[k] = float(v)
        except ValueError:
            out[k] = v
    return out


def collapsed_split(path):
    """Samples whose stack holds hot / ordinary (collapsed: frames;...;frames count)."""
    hot = ordinary = total = 0
    for line in read(path).splitlines():
        stack, _, n = line.rpartition(" ")
        n = int(n) if n.isdigit() else 0
        total += n
        if HOT in stack:
            hot += n
        elif ORD in stack:
            ordinary += n
    return hot, ordinary, total


def jfr_samples(path):
    """JFR ExecutionSample events as lists of "Class.method" names, top frame first."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return []
    out = []
    for ev in data.get("recording", {}).get("events", []):
        frames = (ev.get("values", {}).get("stackTrace") or {}).get("frames", [])
        names = []
        for fr in frames:
            m = fr.get("method", {})
            cls = (m.get("type") or {}).get("name", "?")
            names.append(cls.replace("/", ".") + "." + m.get("name", "?"))
        out.append(names)
    return out


def mode_of(row):
    mode = row["mode"]
    return "jfr25" if mode == "jfr" and "25" in row["jdk"] else mode


def load(out_dir):
    rows = []
    for line in read(os.path.join(out_dir, "manifest.tsv")).splitlines():
        p = line.split("\t")
        if len(p) < 6:
            continue
        row = dict(label=p[0], workload=p[1], mode=p[2], jdk=p[3], elapsed=float(p[4]),
                   rc=int(p[5]))
        base = os.path.join(out_dir, "runs", row["label"])
        row["stats"] = stats_line(read(base + ".err"))
        row["out"] = read(base + ".out")
        row["base"] = base
        row["m"] = mode_of(row)
        rows.append(row)
    return rows


def num(text, key):
    m = re.search(r"\b%s (\d+)" % key, text)
    return float(m.group(1)) if m else None


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def work_ms(row):
    """The run's own work time: the workload's work_ms, or a user program's elapsed time."""
    return num(row["out"], "work_ms") or (row["elapsed"] if row["workload"] == "user" else None)


def timed(rows):
    """The runs that time the work (the slowdown's): mixed or user, without compare."""
    return [r for r in rows if r["workload"] in ("mixed", "user") and "compare" not in r["label"]]


def baselines(rows):
    """(jdk, workload) -> (median work time without a profiler, its runs): a slowdown is
    only measured against the same JDK running the same workload."""
    out = {}
    for key in sorted({(r["jdk"], r["workload"]) for r in timed(rows) if r["mode"] == "none"}):
        same = [r for r in timed(rows) if r["mode"] == "none" and (r["jdk"], r["workload"]) == key]
        ms = median([work_ms(r) for r in same])
        if ms:
            out[key] = (ms, len(same))
    return out


def slowdown(mine, base):
    """A mode's slowdown: per JDK and workload its median work time against that JDK's and
    workload's baseline; the median of those if the mode ran on several."""
    per = []
    for key in sorted({(r["jdk"], r["workload"]) for r in mine}):
        ms = median([work_ms(r) for r in mine if (r["jdk"], r["workload"]) == key])
        if ms and key in base:
            per.append(ms / base[key][0] - 1)
    return median(per)


def bias_of(row):
    """(measured hot share, true hot share, samples in either phase) of a bias run."""
    h_ms, o_ms = num(row["out"], "hot_ms"), num(row["out"], "ordinary_ms")
    if row["mode"] == "jfr":
        hot = ordinary = 0
        for names in jfr_samples(row["base"] + ".json"):
            if any(n.endswith(HOT) for n in names):
                hot += 1
            elif any(n.endswith(ORD) for n in names):
                ordinary += 1
    else:
        hot, ordinary, _ = collapsed_split(row["base"] + ".collapsed")
    if not h_ms or not o_ms or hot + ordinary == 0:
        return None, (h_ms / (h_ms + o_ms) if h_ms and o_ms else None), hot + ordinary
    return hot / (hot + ordinary), h_ms / (h_ms + o_ms), hot + ordinary


def summarize(rows):
    """Per mode: the figures of the report."""
    res = {}
    for m in MODES:
        mine = [r for r in rows if r["m"] == m]
        if not mine:
            continue
        d = {"runs": len(mine), "failed": sum(1 for r in mine if r["rc"] != 0)}
        work = timed(mine)
        d["work_ms"] = median([work_ms(r) for r in work])
        st = [r["stats"] for r in work if r["stats"]]
        if st:
            tot = lambda k: sum(s.get(k, 0) for s in st)
            d.update(events=tot("events"), records=tot("records"), ok=tot("ok"),
                     enqueued=tot("enqueued"), handled=tot("handled"), stale=tot("stale"),
                     full=tot("full"), no_queue=tot("no_queue"), folded=tot("folded"),
                     dropped=tot("dropped"), samples=tot("samples"),
                     not_answering=tot("not_answering"), request_full=tot("request_full"),
                     lag_med=median([s.get("lag_median_us") for s in st]),
                     lag_p90=median([s.get("lag_p90_us") for s in st]),
                     handler_us=median([s.get("handler_us") for s in st]),
                     handler_p99=median([s.get("handler_p99_us") for s in st]),
                     handler_max=max((s["handler_max_us"] for s in st if "handler_max_us" in s),
                                     default=None),
                     sampler_us=median([s.get("sampler_us") for s in st]),
                     held_us=median([s.get("held_us") for s in st]))
        if m in ("jfr", "jfr25"):
            d["records"] = d["ok"] = sum(len(jfr_samples(r["base"] + ".json")) for r in work)
        cmp_rows = [r["stats"] for r in mine if "compare" in r["label"] and r["stats"]]
        if cmp_rows:
            c = sum(s.get("compared", 0) for s in cmp_rows)
            d["compared"] = c
            d["agree"] = sum(s.get("same", 0) for s in cmp_rows) / c if c else None
            d["agree_top"] = sum(s.get("top_same", 0) for s in cmp_rows) / c if c else None
        elif m == "signal":
            d["agree"] = d["agree_top"] = 1.0  # it is the in-handler walk
        bias = [r for r in mine if r["workload"] == "bias"]
        if bias:
            d["hot_share"], d["truth"], d["bias_samples"] = bias_of(bias[0])
        res[m] = d
    base = baselines(rows)
    for m, d in res.items():
        if m != "none":
            d["slowdown"] = slowdown(timed([r for r in rows if r["m"] == m]), base)
    return res, base


def pct(x, digits=1):
    return "-" if x is None else f"{100 * x:.{digits}f}%"


def us(x):
    return "-" if x is None else (f"{x:.1f}" if x < 1000 else f"{x / 1000:.1f}ms")


def owner_cost(d):
    """The sampled thread's time in our handler per sample: "mean/p99" us."""
    if d.get("handler_us") is None:
        return "-"
    p99 = d.get("handler_p99")
    return us(d["handler_us"]) + ("" if p99 is None else "/" + us(p99))


def table_rows(res):
    """(header, rows of strings) of the terminal table."""
    head = ["mode", "samples", "ok/events", "walk ok", "agree", "top agree", "hot share",
            "true", "bias", "stale", "lag med us", "lag p90 us", "owner us", "thread us",
            "sampler us", "slowdown"]
    out = []
    for m in MODES:
        d = res.get(m)
        if not d:
            continue
        ev, rec, ok = d.get("events"), d.get("records"), d.get("ok")
        bias = (d["hot_share"] - d["truth"]) if d.get("hot_share") is not None and d.get("truth") else None
        thread_us = None
        if d.get("handler_us") is not None:
            thread_us = d["handler_us"] + (d.get("held_us") or 0 if m == "thread" else 0)
        stale = d["stale"] / d["handled"] if d.get("handled") else None
        out.append([m, "-" if rec is None else f"{int(rec)}",
                    pct(ok / ev) if ev and ok is not None else "-",
                    pct(ok / rec) if rec else "-", pct(d.get("agree")), pct(d.get("agree_top")),
                    pct(d.get("hot_share")), pct(d.get("truth")), "-" if bias is None else f"{100 * bias:+.1f}pp",
                    pct(stale, 2), us(d.get("lag_med")), us(d.get("lag_p90")), owner_cost(d),
                    us(thread_us), us(d.get("sampler_us") if m != "signal" else None),
                    "-" if d.get("slowdown") is None else f"{100 * d['slowdown']:+.1f}%"])
    return head, out


def print_table(head, rows, res):
    w = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    fmt = "  ".join("%%-%ds" % x if i == 0 else "%%%ds" % x for i, x in enumerate(w))
    print(fmt % tuple(head))
    for r in rows:
        print(fmt % tuple(r))
    print("true: the hot loop's share of the thread's CPU time, measured by the workload itself")
    print("owner us: the sampled thread's time in our signal handler per sample, mean/p99 "
          "(queue: the enqueue with its bounded wait; signal: the walk; thread: the handler's part)")
    q = res.get("queue")
    if q and q.get("enqueued") is not None:
        print(f"queue: enqueued {int(q['enqueued'])}, handled {int(q.get('handled', 0))}, "
              f"stale {int(q.get('stale', 0))}, full {int(q.get('full', 0))}, "
              f"no queue {int(q.get('no_queue', 0))}, samples folded into queued elements "
              f"{int(q.get('folded', 0))} of {int(q.get('samples', 0))}, dropped at "
              f"deregistration {int(q.get('dropped', 0))}, longest handler "
              + ("-" if q.get("handler_max") is None else f"{q['handler_max']:.0f} us"))
    t = res.get("thread")
    if t and t.get("events") is not None:
        print(f"thread: targets not answering {int(t.get('not_answering', 0))}, requests "
              f"dropped (ring full) {int(t.get('request_full', 0))}")


def svg_bars(title, items, unit="", truth=None, fmt=lambda v: f"{v:.1f}"):
    """A horizontal bar chart: items are (label, value or None)."""
    vals = [v for _, v in items if v is not None]
    if not vals:
        return ""
    top = max(vals + ([truth] if truth is not None else []) + [1e-9])
    lo = min(vals + [0])
    span = top - lo or 1
    bw, lw, rh = 360, 70, 22
    h = rh * len(items) + 34
    x0 = lw + (-lo / span) * bw
    parts = [f'<svg width="{lw + bw + 90}" height="{h}" xmlns="http://www.w3.org/2000/svg" '
             f'font-family="sans-serif" font-size="12">',
             f'<text x="0" y="14" font-weight="bold">{html.escape(title)}</text>']
    colours = {"signal": "#4e79a7", "thread": "#f28e2b", "queue": "#59a14f", "jfr": "#b07aa1",
               "jfr25": "#9c755f", "none": "#bab0ac"}
    for i, (label, v) in enumerate(items):
        y = 24 + i * rh
        parts.append(f'<text x="0" y="{y + 14}">{html.escape(label)}</text>')
        if v is None:
            parts.append(f'<text x="{lw}" y="{y + 14}" fill="#888">n/a</text>')
            continue
        x = lw + ((min(v, 0) - lo) / span) * bw
        w = abs(v) / span * bw
        parts.append(f'<rect x="{x:.1f}" y="{y + 3}" width="{max(w, 1):.1f}" height="{rh - 6}" '
                     f'fill="{colours.get(label, "#888")}"/>')
        parts.append(f'<text x="{x + max(w, 1) + 4:.1f}" y="{y + 14}">{fmt(v)}{unit}</text>')
    if lo < 0:
        parts.append(f'<line x1="{x0:.1f}" y1="20" x2="{x0:.1f}" y2="{h}" stroke="#333"/>')
    if truth is not None:
        tx = lw + ((truth - lo) / span) * bw
        parts.append(f'<line x1="{tx:.1f}" y1="20" x2="{tx:.1f}" y2="{h}" stroke="red" '
                     f'stroke-dasharray="4 3"/><text x="{tx + 3:.1f}" y="{h - 2}" fill="red">'
                     f'truth {fmt(truth)}{unit}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def write_html(path, head, rows, res, args):
    ms = [m for m in MODES if m in res]
    get = lambda k, scale=1: [(m, None if res[m].get(k) is None else res[m][k] * scale) for m in ms]
    truth = next((d["truth"] for d in res.values() if d.get("truth")), None)
    thread_cost = [(m, None if res[m].get("handler_us") is None else res[m]["handler_us"] +
                    ((res[m].get("held_us") or 0) if m == "thread" else 0)) for m in ms]
    stale = [(m, 100 * res[m]["stale"] / res[m]["handled"] if res[m].get("handled") else None)
             for m in ms]
    succ = [(m, 100 * res[m]["ok"] / res[m]["events"] if res[m].get("events") else None)
            for m in ms]
    charts = [
        svg_bars("Samples with a Java stack per event (%)", succ, "%"),
        svg_bars("Agreement with the in-handler walk, identical stacks (%)", get("agree", 100), "%"),
        svg_bars("Safepoint bias: share of samples in the hot counted loop (%)",
                 get("hot_share", 100), "%", truth=None if truth is None else 100 * truth),
        svg_bars("Stale queue elements (% of handled)", stale, "%", fmt=lambda v: f"{v:.2f}"),
        svg_bars("Event to walk, median (us)", get("lag_med"), " us"),
        svg_bars("CPU per sample on the sampled thread (us)", thread_cost, " us",
                 fmt=lambda v: f"{v:.2f}"),
        svg_bars("Owner's time in our handler per sample, p99 (us)", get("handler_p99"), " us",
                 fmt=lambda v: f"{v:.1f}"),
        svg_bars("CPU per sample on the sampler side (us)",
                 [(m, v if m != "signal" else None) for m, v in get("sampler_us")], " us",
                 fmt=lambda v: f"{v:.2f}"),
        svg_bars("Slowdown against no profiler (%)", get("slowdown", 100), "%"),
    ]
    table = "<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"
    for r in rows:
        table += "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>"
    table += "</table>"
    doc = f"""<!doctype html><html><head><meta charset="utf-8"><title>asgst walk modes</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1100px}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:3px 7px;text-align:right}}td:first-child{{text-align:left}}
.charts{{display:flex;flex-wrap:wrap;gap:24px}}</style></head><body>
<h1>ASGST walk modes: signal, thread, queue (and JFR)</h1>
<p>event={html.escape(args.event)}, interval={html.escape(args.interval)}, JDK {html.escape(args.jdk)}.
Rows: <b>signal</b> walks in the signal handler; <b>thread</b> walks out of thread from a sampler
thread (ASGST_RunWithIteratorOnThread); <b>queue</b> enqueues in the handler and walks at the
thread's next safe point; <b>jfr</b> is JFR's jdk.ExecutionSample (jfr25: JDK 25, cooperative);
<b>none</b> is the baseline. See profiler-demo/README.md, "Walk modes", for how to read this.</p>
{table}
<p>samples: records with a stack; ok/events: of the events (signals, or out-of-thread attempts)
how many gave a Java stack; agree: identical method+bci frame by frame with the in-handler walk of
the same sample (compare runs); hot share / bias: samples in the poll-free counted loop, against the
true share of CPU time; stale: queue elements whose frame had gone; lag: event to walk start;
owner us: the sampled thread's time in our signal handler per sample, mean/p99 (queue: the
enqueue with its bounded wait for the suspension; signal: the whole walk; thread: the handler's
part, without the time held while walked); thread us / sampler us: CPU per sample on the sampled thread (handler, plus the time held while
walked for thread) and on the sampler side (walker thread or queue handler); slowdown: median work
time against no profiler on the same JDK and workload.</p>
<div class="charts">{''.join(f'<div>{c}</div>' for c in charts if c)}</div>
</body></html>"""
    with open(path, "w") as f:
        f.write(doc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--event", default="cpu")
    ap.add_argument("--interval", default="1ms")
    ap.add_argument("--jdk", default="")
    args = ap.parse_args()
    rows = load(args.out)
    failed = [r["label"] for r in rows if r["rc"] != 0]
    res, base = summarize(rows)
    head, table = table_rows(res)
    print_table(head, table, res)
    for (jdk, workload), (ms, n) in base.items():
        print(f"slowdown baseline: {workload} on {jdk} without a profiler, median work "
              f"{ms:.0f} ms of {n} run{'s' if n != 1 else ''}")
    if failed:
        print("runs that failed (see their .err): " + ", ".join(failed))
    path = os.path.join(args.out, "report.html")
    write_html(path, head, table, res, args)
    print(f"report: {path}")


if __name__ == "__main__":
    main()

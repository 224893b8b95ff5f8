#!/usr/bin/env python3
"""Draw the timeline of docs/tour.md from two real runs of the same scenario.

    go run ./cmd/netvm run --trace /tmp/tour-trace.json fixtures/netvm/scenarios/tour.json
    python3 docs/tour/timeline.py /tmp/tour-trace.json fixtures/netvm/tour/tour.out \
        docs/tour/write.svg docs/tour/write.txt

The host threads, the DMA blocks and the packets come from the Perfetto
trace (netvm run --trace); the firmware's phases from the stops of the
debugger session (fixtures/netvm/tour/tour.out, TestTourScript), which
the debugger does not perturb (TestDebugDoesNotPerturb), so both have the
same times. Only the phase names below are written by hand. Standard
library only.
"""
import json
import re
import sys

# The firmware's phases: (node, the stop that starts it, the stop that
# ends it, name). A stop is named by the routine of the transcript's "=>"
# line (offsets dropped: they move with the code); "*" is the node's first
# stop. Each phase starts at or after the end of the node's previous one.
PHASES = [
    (0, "*", "write_check", "poll, take slot"),
    (0, "write_check", "send_step", "check WRITE"),
    (0, "send_step", "spt_lookup", "window, credit, buffer"),
    (0, "spt_lookup", "send_step", "SPT lookup"),
    (0, "send_step", "dma_sync", "lock"),
    (0, "dma_sync", "send_step", "wait for the DMA"),
    (0, "send_step", "tx_new", "unlock, header, queue"),
    (0, "tx_new", "tx_new", "send (SMP, SMLT)"),
    (0, "rx_ack", "rx_take", "ACK: free the buffer"),
    (1, "rx_take", "rx_data", "re-arm, CRC, header"),
    (1, "rx_data", "spt_lookup", "window, keys, bounds"),
    (1, "spt_lookup", "rx_data", "SPT lookup"),
    (1, "rx_data", "dma_sync", "lock"),
    (1, "dma_sync", "rx_data", "wait for the DMA"),
    (1, "rx_data", "ctr_apply", "unlock, accept"),
    (1, "ctr_apply", "ctr_apply", "counter + 1, its DMA"),
    (1, "tx_ctrl", "send_range", "build the ACK"),
]


def stops(path):
    """(node, time us, cycle, routine) of every stop of the transcript."""
    out, pending = [], None
    head = re.compile(r"node (\d+),? at ([0-9.]+) us \(cycle (\d+)\)")
    for line in open(path):
        m = head.search(line)
        if m and not line.startswith("  ["):
            pending = (int(m.group(1)), float(m.group(2)), int(m.group(3)))
        elif line.startswith("=>") and pending:
            sym = line.split()[2].strip("<>").split("+")[0]
            out.append(pending + (sym,))
            pending = None
    return out


def phases(st):
    res, cursor = [], {}
    for node, a, b, name in PHASES:
        c = cursor.get(node, 0)
        if a == "*":
            i = next(i for i, s in enumerate(st) if s[0] == node)
        else:
            i = next(i for i in range(c, len(st)) if st[i][0] == node and st[i][3] == a)
        j = next(j for j in range(i + 1, len(st)) if st[j][0] == node and st[j][3] == b)
        cursor[node] = j
        res.append((node, st[i][1], st[j][1], name))
    return res


def trace_rows(path, lo, hi):
    d = json.load(open(path))
    ev = d["traceEvents"] if isinstance(d, dict) else d
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"}
    rows = {}
    for e in ev:
        if e.get("ph") == "M":
            continue
        t0 = e["ts"]
        t1 = t0 + e.get("dur", 0)
        if t0 < lo or t0 > hi:  # only what starts in the window (not the setup's last DMA)
            continue
        name = names.get((e["pid"], e["tid"]), "?")
        if name.startswith("host ") and name not in ("host stream", "host stream sink"):
            continue
        rows.setdefault((e["pid"], name), []).append((max(t0, lo), min(t1, hi), e["name"], e["ph"]))
    return rows


def main():
    trace, transcript, svg_out, txt_out = sys.argv[1:5]
    st = stops(transcript)
    ph = phases(st)
    post = None
    d = json.load(open(trace))
    for e in d["traceEvents"] if isinstance(d, dict) else d:
        if e.get("ph") == "X" and e["name"] == "cpu" and e["pid"] == 0 and e["tid"] >= 100:
            # the stream thread's first span near the first stop is lib.Write
            if abs(e["ts"] - st[0][1]) < 1:
                post = e["ts"]
    lo, hi = post - 0.1, max(p[2] for p in ph) + 0.3
    rows = trace_rows(trace, lo, hi)
    order = []
    for node in (0, 1):
        host = "host stream" if node == 0 else "host stream sink"
        order += [(node, host, "host: " + ("sender process" if node == 0 else "receiving process")),
                  (node, "firmware", "LANai firmware"),
                  (node, "DMA ch2 (from host)", "PCI DMA host->SRAM"),
                  (node, "DMA ch0 (to host)", "PCI DMA SRAM->host"),
                  (node, "link tx", "link tx"),
                  (node, "link rx", "link rx")]
    for node, a, b, name in ph:
        rows.setdefault((node, "firmware"), []).append((a, b, name, "X"))

    # ---- SVG
    W, left, top, rowh = 980, 200, 74, 24
    scale = (W - left - 20) / (hi - lo)
    x = lambda t: left + (t - lo) * scale
    n = len(order)
    H = top + n * rowh + 10 + 36 + 16 + 14 * ((len(ph) + 2) // 3) + 10 + 24
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">' % (W, H),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="10" y="18" font-size="13" font-weight="bold">One 4-byte WRITE with a counter, node 0 to node 1 (fixtures/netvm/scenarios/tour.json)</text>',
         '<text x="10" y="34">t = 0 at %.3f us of simulated time, when the library starts its PIO writes. Drawn by docs/tour/timeline.py from</text>' % post,
         '<text x="10" y="48">netvm run --trace fixtures/netvm/scenarios/tour.json and from the debugger session fixtures/netvm/tour/tour.out.</text>']
    t = int(lo - post) - 1
    while post + t <= hi:
        if post + t >= lo:
            o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (x(post + t), top - 8, x(post + t), top + n * rowh + 10))
            o.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%d us</text>' % (x(post + t), top - 12, t))
        t += 1
    colors = {"cpu": "#3a6ea5", "wait": "#cfe0f1", "sleep": "#cfe0f1", "dma": "#d98c2b", "link": "#4b9e4b"}
    ypos = {}
    num = {}  # firmware phase -> its number in the legend
    for node, a, b, name in sorted(ph, key=lambda p: p[1]):
        num[(node, a)] = len(num) + 1
    for i, (node, key, label) in enumerate(order):
        y = top + i * rowh + (10 if node == 1 else 0)
        ypos[(node, key)] = y
        if i % 6 == 0:
            o.append('<text x="10" y="%d" font-weight="bold">node %d</text>' % (y + 15, node))
        o.append('<text x="62" y="%d">%s</text>' % (y + 15, label))
        o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#eee"/>' % (left, y + rowh - 2, W - 20, y + rowh - 2))
        for k, (a, b, name, phv) in enumerate(sorted(rows.get((node, key), []))):
            if phv == "i":
                o.append('<path d="M%.1f %d l5 7 l-5 7 l-5 -7 z" fill="#4b9e4b"/>' % (x(a), y + 4))
                o.append('<text x="%.1f" y="%d" fill="#333">%s</text>' % (x(a) + 7, y + 15, name))
                continue
            if key == "firmware":
                fill = ["#8e6bb8", "#b9a3d6"][k % 2]
            else:
                fill = colors.get(name, colors.get(key.split()[0].lower(), "#999"))
                if key.startswith("DMA"):
                    fill = colors["dma"]
                if key.startswith("link"):
                    fill = colors["link"]
            w = max(x(b) - x(a), 1.5)
            o.append('<rect x="%.1f" y="%d" width="%.1f" height="16" fill="%s"><title>%s %.3f-%.3f us</title></rect>' % (x(a), y + 3, w, fill, name, a, b))
            label = name
            if key.startswith("host"):
                label = {"cpu": "CPU", "wait": "spin on the counter"}.get(name, name)
                if node == 0 and name == "cpu":
                    label = "nvm_write: 4 PIO writes"
            if key == "firmware":
                label = str(num[(node, a)])
                o.append('<text x="%.1f" y="%d" font-size="10" text-anchor="middle" fill="%s">%s</text>' % (
                    x(a) + w / 2, y + 15 if w >= 12 else y + 1, "white" if w >= 12 else "#333", label))
                continue
            if w >= 6.2 * len(label):
                o.append('<text x="%.1f" y="%d" fill="white">%s</text>' % (x(a) + 3, y + 15, label))
            else:
                o.append('<text x="%.1f" y="%d" fill="#333">%s</text>' % (x(b) + 3, y + 15, label))
    # the two packets: from the start on one link to "stored" at the other
    for (sn, rn) in ((0, 1), (1, 0)):
        tx = sorted(rows.get((sn, "link tx"), []))
        rx = sorted(rows.get((rn, "link rx"), []))
        for (a, b, _, _), (r, _, _, _) in zip(tx, rx):
            o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#4b9e4b" stroke-dasharray="3,2"/>' % (x(a), ypos[(sn, "link tx")] + 19, x(r), ypos[(rn, "link rx")] + 4))
    y = top + n * rowh + 36
    o.append('<text x="10" y="%d" font-weight="bold">Firmware phases</text>' % y)
    legend = sorted(((num[(node, a)], node, a, b, name) for node, a, b, name in ph))
    per = (len(legend) + 2) // 3
    for k, (i, node, a, b, name) in enumerate(legend):
        o.append('<text x="%d" y="%d">%d  node %d %s: %.3f to %.3f us</text>' % (10 + 320 * (k // per), y + 16 + 14 * (k % per), i, node, name, a - post, b - post))
    y += 16 + 14 * per + 10
    o.append('<text x="10" y="%d" fill="#555">Phases end at the debugger\'s stops; gaps are the main loop. Host: dark = CPU, light = spinning on the counter.</text>' % y)
    o.append('<text x="10" y="%d" fill="#555">Orange: PCI DMA blocks (fetch to write-back). Green: packets on the wire (41 B DATA, 37 B ACK) and where they are stored.</text>' % (y + 14))
    o.append("</svg>")
    open(svg_out, "w").write("\n".join(o) + "\n")

    # ---- text: one character per 0.1 us, then the events with their times
    cols = int((hi - lo) / 0.1) + 1
    lines = ["One 4-byte WRITE with a counter, node 0 -> node 1; one column = 0.1 us; t = 0 at %.3f us." % post,
             "Drawn by docs/tour/timeline.py from netvm run --trace and fixtures/netvm/tour/tour.out.", ""]
    axis = [" "] * cols
    for t in range(0, int(hi - post) + 1, 1):
        c = int((post + t - lo) / 0.1)
        for k, ch in enumerate(str(t)):
            if 0 <= c + k < cols:
                axis[c + k] = ch
    lines.append("%-28s %s" % ("t (us)", "".join(axis)))
    legend = []
    for node, key, label in order:
        cells = [" "] * cols
        for k, (a, b, name, phv) in enumerate(sorted(rows.get((node, key), []))):
            c0, c1 = int((a - lo) / 0.1), max(int((b - lo) / 0.1), int((a - lo) / 0.1) + 1)
            if phv == "i":
                ch = "*"
            elif key == "firmware":
                ch = chr(ord("a") + len(legend))
                legend.append("%s = node %d %s (%.3f-%.3f us)" % (ch, node, name, a - post, b - post))
            elif key.startswith("host"):
                ch = "#" if name == "cpu" else "."
            elif key.startswith("DMA"):
                ch = "="
            else:
                ch = ">"
            for c in range(c0, min(c1, cols)):
                cells[c] = ch
        lines.append("%-28s %s" % ("n%d %s" % (node, label), "".join(cells).rstrip()))
    lines.append("")
    lines.append("Firmware phases (times from t = 0):")
    lines += ["  " + l for l in legend]
    lines.append("")
    lines.append("Host, DMA and link spans (times from t = 0):")
    for node, key, label in order:
        if key == "firmware":
            continue
        for a, b, name, phv in sorted(rows.get((node, key), [])):
            if phv == "i":
                lines.append("  node %d %-20s %-12s at %7.3f us" % (node, label, name, a - post))
            else:
                lines.append("  node %d %-20s %-12s %7.3f-%7.3f us (%.3f us)" % (node, label, name, a - post, b - post, b - a))
    open(txt_out, "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

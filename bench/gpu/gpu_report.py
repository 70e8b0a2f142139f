"""The GPU benchmark's report (issue 6): joins model_bench's and torch_bench's JSON rows
into one table and writes it as markdown (ready for bench/README.md) and CSV.
Standard library only (the device machine's python may lack everything else).
"""

import csv
import json

COLUMNS = ["model", "batch", "graphd_e2e_ms", "graphd_execute_ms", "graphd_server_total_ms", "torch_e2e_ms",
           "torch_compute_ms", "torch_compile_e2e_ms", "ratio", "target_met", "outputs_agree", "graphd_checksum", "torch_checksum"]


def parse_json_lines(text):
    """The JSON objects among `text`'s lines (lines starting with '{'); other lines are ignored."""
    rows = []
    for line in (text or "").splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                rows.append(json.loads(line))
            except ValueError:
                pass
    return rows


def _ms(row, key):
    v = row.get(key)
    return v / 1000.0 if isinstance(v, (int, float)) else None


def checksums_agree(a, b, batch):
    """Whether two output sums agree within fp32 tolerance (as bench/run_models.py checks)."""
    if a is None or b is None:
        return None
    scale = max(1.0, abs(a), abs(b))
    return abs(a - b) <= 1e-3 * scale * (1 + batch)


def build_table(cases, graphd_rows, torch_rows, compile_rows=()):
    """One dict per (model, batch) in `cases` (COLUMNS as keys; None where a figure is missing).

    graphd_rows: model_bench's case objects ("median_us", "execute_us", "server_total_us",
    "checksum"); torch_rows: torch_bench's ("median_us", "compute_us", "checksum").
    ratio is graphd end-to-end p50 over torch eager end-to-end p50; target_met is
    ratio <= 1.0 (issue 6's target).
    """
    def by_case(rows):
        return {(r.get("model"), r.get("batch")): r for r in rows if "model" in r}

    g_all, t_all, c_all = by_case(graphd_rows), by_case(torch_rows), by_case(compile_rows)
    table = []
    for model, batch in cases:
        g, t = g_all.get((model, batch), {}), t_all.get((model, batch), {})
        g_e2e, t_e2e = _ms(g, "median_us"), _ms(t, "median_us")
        ratio = g_e2e / t_e2e if g_e2e and t_e2e else None
        table.append({
            "model": model, "batch": batch, "graphd_e2e_ms": g_e2e, "graphd_execute_ms": _ms(g, "execute_us"),
            "graphd_server_total_ms": _ms(g, "server_total_us"), "torch_e2e_ms": t_e2e,
            "torch_compute_ms": _ms(t, "compute_us"),
            "torch_compile_e2e_ms": _ms(c_all.get((model, batch), {}), "median_us"), "ratio": ratio,
            "target_met": None if ratio is None else ratio <= 1.0,
            "outputs_agree": checksums_agree(g.get("checksum"), t.get("checksum"), batch),
            "graphd_checksum": g.get("checksum"), "torch_checksum": t.get("checksum"),
        })
    return table


def _fmt(v, spec=".3f"):
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "yes" if v else "NO"
    return format(v, spec)


def render_markdown(table, meta, errors):
    """The report as markdown: a heading line, the device line, the table, the errors.

    meta: "title", "device" (the device line), optional "when", "graphd", "torch",
    "echo_p50_ms", "settings" (free text lines).
    """
    lines = ["### %s" % meta.get("title", "graphd vs PyTorch eager"), ""]
    if meta.get("when"):
        lines.append("Run: %s." % meta["when"])
    lines.append("Device: %s." % (meta.get("device") or "unknown"))
    for key, label in (("graphd", "graphd"), ("torch", "PyTorch")):
        if meta.get(key):
            lines.append("%s: %s." % (label, meta[key]))
    for s in meta.get("settings", []):
        lines.append(s)
    if meta.get("echo_p50_ms") is not None:
        lines.append("gRPC echo p50 in the same server: %.3f ms." % meta["echo_p50_ms"])
    lines += ["", "| model | batch | graphd e2e p50 ms | graphd execute ms | torch eager p50 ms | "
              "torch compute ms | torch.compile p50 ms | ratio (e2e / torch) | target <= 1.0 | outputs agree |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    for r in table:
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["model"], r["batch"], _fmt(r["graphd_e2e_ms"]), _fmt(r["graphd_execute_ms"]),
            _fmt(r["torch_e2e_ms"]), _fmt(r["torch_compute_ms"]), _fmt(r.get("torch_compile_e2e_ms")),
            _fmt(r["ratio"], ".2f"),
            {True: "met", False: "missed", None: "n/a"}[r["target_met"]], _fmt(r["outputs_agree"])))
    lines.append("")
    if errors:
        lines.append("Errors (%d): the figures marked n/a are missing because of these:" % len(errors))
        lines.append("")
        for e in errors:
            lines.append("- " + " ".join(e.split()))
    else:
        lines.append("No step failed.")
    return "\n".join(lines) + "\n"


def write_csv(table, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for r in table:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in COLUMNS})

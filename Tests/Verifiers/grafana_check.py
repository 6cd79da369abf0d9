#!/usr/bin/env python3
"""Checks a Grafana dashboard (deploy/grafana/hallmark.json): every panel, rows' nested panels
included, has a unique integer id, a gridPos with integer x, y, w, h inside the 24-column grid,
and a datasource referencing the `${datasource}` template variable (so do its queries, when they
name one); and every PromQL expression parses, by `promtool check rules` on a temporary rules
file that records it.

Grafana's own interval variables ($__rate_interval, $__interval, $__range, ...) are replaced by a
duration before parsing; any other `$variable` in an expression is an error, since this
dashboard defines none for queries.

Usage: python3 Tests/Verifiers/grafana_check.py deploy/grafana/hallmark.json
Prints "ok: N panels, M queries"; exits 1 naming every failure (2 on bad usage or no promtool).
Python 3 standard library only; needs promtool on PATH (Debian: prometheus).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

DATASOURCE = "${datasource}"
# Grafana's built-in variables that stand for a duration in a range selector or offset.
DURATION_VARIABLES = {
    "__rate_interval": "1m",
    "__interval": "15s",
    "__range": "1h",
    "__range_s": "3600",
    "__range_ms": "3600000",
    "__interval_ms": "15000",
}
VARIABLE = re.compile(r"\$(?:\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]|(\w+))")


def walk_panels(panels):
    for panel in panels or []:
        yield panel
        yield from walk_panels(panel.get("panels"))


def references_datasource(datasource):
    if isinstance(datasource, str):
        return datasource in (DATASOURCE, "$datasource")
    if isinstance(datasource, dict):
        return datasource.get("uid") in (DATASOURCE, "$datasource")
    return False


def substitute(expr):
    """The expression with Grafana's duration variables replaced, and the unknown ones."""
    unknown = []

    def replace(match):
        name = match.group(1) or match.group(2) or match.group(3)
        if name in DURATION_VARIABLES:
            return DURATION_VARIABLES[name]
        unknown.append(match.group(0))
        return match.group(0)

    return VARIABLE.sub(replace, expr), unknown


def promtool_parses(promtool, expr, workdir):
    """None when promtool accepts `expr` as a recording rule's expression, else its message."""
    path = os.path.join(workdir, "rules.yaml")
    # JSON is YAML: no quoting of the expression to get wrong.
    rules = {"groups": [{"name": "g", "rules": [{"record": "x:y", "expr": expr}]}]}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(rules, f)
    result = subprocess.run([promtool, "check", "rules", path], capture_output=True, text=True)
    if result.returncode == 0:
        return None
    lines = [line.strip() for line in (result.stdout + result.stderr).splitlines() if line.strip()]
    return " | ".join(line for line in lines if not line.startswith("Checking")) or f"exit {result.returncode}"


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().split("\n\n")[2], file=sys.stderr)
        return 2
    promtool = shutil.which("promtool")
    if promtool is None:
        print("grafana_check: promtool not found on PATH", file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            dashboard = json.load(f)
    except (OSError, ValueError) as error:
        print(f"grafana_check: {argv[1]}: {error}", file=sys.stderr)
        return 1

    failures = []
    variables = [v.get("name") for v in dashboard.get("templating", {}).get("list", [])]
    if "datasource" not in variables:
        failures.append("templating: no `datasource` variable")

    panels = list(walk_panels(dashboard.get("panels")))
    if not panels:
        failures.append("the dashboard has no panels")
    seen_ids = {}
    queries = []  # (where, expr)
    for index, panel in enumerate(panels):
        title = panel.get("title") or f"panel #{index}"
        where = f"panel {panel.get('id')!r} {title!r}"
        panel_id = panel.get("id")
        if not isinstance(panel_id, int) or isinstance(panel_id, bool):
            failures.append(f"{where}: id is not an integer")
        elif panel_id in seen_ids:
            failures.append(f"{where}: id {panel_id} also used by {seen_ids[panel_id]!r}")
        else:
            seen_ids[panel_id] = title
        grid = panel.get("gridPos")
        if not isinstance(grid, dict) or not all(isinstance(grid.get(k), int) for k in "xywh"):
            failures.append(f"{where}: gridPos must have integer x, y, w, h (got {grid!r})")
        elif grid["x"] < 0 or grid["y"] < 0 or grid["w"] <= 0 or grid["h"] <= 0 or grid["x"] + grid["w"] > 24:
            failures.append(f"{where}: gridPos {grid!r} is outside the 24-column grid")
        if panel.get("type") == "row":
            continue  # a row holds panels; it queries nothing
        if not references_datasource(panel.get("datasource")):
            failures.append(f"{where}: datasource {panel.get('datasource')!r} does not reference {DATASOURCE}")
        targets = panel.get("targets") or []
        if not targets:
            failures.append(f"{where}: no queries")
        for target in targets:
            ref = f"{where} query {target.get('refId', '?')}"
            if "datasource" in target and not references_datasource(target["datasource"]):
                failures.append(f"{ref}: datasource {target['datasource']!r} does not reference {DATASOURCE}")
            expr = target.get("expr")
            if not isinstance(expr, str) or not expr.strip():
                failures.append(f"{ref}: no PromQL expr")
                continue
            queries.append((ref, expr))

    with tempfile.TemporaryDirectory(prefix="grafana-check-") as workdir:
        for ref, expr in queries:
            parsed, unknown = substitute(expr)
            if unknown:
                failures.append(f"{ref}: unknown variable(s) {', '.join(sorted(set(unknown)))} in {expr!r}")
                continue
            problem = promtool_parses(promtool, parsed, workdir)
            if problem:
                failures.append(f"{ref}: promtool refuses {expr!r}: {problem}")

    if failures:
        for failure in failures:
            print(f"FAIL: {failure}", file=sys.stderr)
        print(f"grafana_check: {len(failures)} failure(s) in {argv[1]}", file=sys.stderr)
        return 1
    print(f"ok: {len(panels)} panels, {len(queries)} queries")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

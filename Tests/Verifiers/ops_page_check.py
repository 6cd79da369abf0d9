#!/usr/bin/env python3
"""Loads the edge's /ops page in headless Chromium and checks what its charts drew.

usage: ops_page_check.py --url http://127.0.0.1:PORT/ops --token TOKEN
                         [--expect-chart NAME ...] [--expect-series-min N]
                         [--expect-refused] [--screenshot FILE] [--chromium PATH]

Chromium loads URL#token=TOKEN (the page moves the token out of the fragment), runs its script
under a virtual time budget and dumps the DOM. The check passes when the body says it rendered
(data-rendered >= 1, no data-error) and every expected chart card has at least N lines with
points; it prints {chart: {series: latest value}} as JSON. With --expect-refused it passes only
when the page says the token was refused and drew nothing. --screenshot also saves a 1280-wide
picture of the page. Exit 0 on success, 1 with a reason otherwise, 2 on bad usage.
"""
import argparse
import json
import sys
from html.parser import HTMLParser

import headless_chromium


class Page(HTMLParser):
    """The bits of the dumped DOM the check reads."""

    def __init__(self):
        super().__init__()
        self.body = {}
        self.charts = {}
        self.current = None
        self.login_hidden = None
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag == "form" and a.get("id") == "login":
            self.login_hidden = "hidden" in (a.get("class") or "").split()
        if tag == "section" and "data-chart" in a:
            self.current = a["data-chart"]
            self.charts[self.current] = {"paths": [], "latest": []}
        if self.current is None:
            return
        if tag == "path" and "data-series" in a:
            self.charts[self.current]["paths"].append((a["data-series"], int(a.get("data-points", "0"))))
        if tag == "b" and "data-latest" in a:
            self.charts[self.current]["latest"].append(float(a["data-latest"]))

    def handle_endtag(self, tag):
        if tag == "section":
            self.current = None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--expect-chart", action="append", default=[])
    parser.add_argument("--expect-series-min", type=int, default=1)
    parser.add_argument("--expect-refused", action="store_true")
    parser.add_argument("--screenshot")
    parser.add_argument("--chromium", default=headless_chromium.DEFAULT)
    args = parser.parse_args()
    if reason := headless_chromium.missing(args.chromium):
        print(reason)
        return 1
    target = f"{args.url}#token={args.token}"
    try:
        dom = headless_chromium.dump_dom(args.chromium, target, 15000, prefix="ops-chromium-")
    except headless_chromium.Failed as failure:
        print(failure)
        return 1
    page = Page()
    page.feed(dom)
    rendered = int(page.body.get("data-rendered", "0") or 0)
    error = page.body.get("data-error")
    if args.expect_refused:
        drawn = sum(len(c["paths"]) for c in page.charts.values())
        if error == "token refused" and rendered == 0 and drawn == 0 and page.login_hidden is False:
            print(json.dumps({"refused": True}))
            return 0
        print(f"expected a refused token: data-error={error!r}, rendered={rendered}, lines={drawn}")
        return 1
    if error or rendered < 1:
        print(f"the page did not render: data-error={error!r}, data-rendered={rendered}")
        return 1
    summary = {}
    for name in args.expect_chart:
        chart = page.charts.get(name)
        if chart is None:
            print(f"no chart {name!r}; the page has {sorted(page.charts)}")
            return 1
        lines = [(series, points) for series, points in chart["paths"] if points >= 1]
        if len(lines) < args.expect_series_min:
            print(f"chart {name!r} drew {len(lines)} lines with points, expected {args.expect_series_min}: {chart}")
            return 1
        summary[name] = {series: latest for (series, _), latest in zip(chart["paths"], chart["latest"])}
    if args.screenshot:
        try:
            headless_chromium.screenshot(args.chromium, target, 15000, "1280,1100", args.screenshot, prefix="ops-chromium-")
        except headless_chromium.Failed as failure:
            print(failure)
            return 1
    print(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())

extension OpsAssets {
    /// Dark on light, system fonts, a responsive grid of cards; colours by series index.
    static let style = #"""
        :root { --ink: #1d2330; --muted: #6b7385; --line: #dde1e8; --card: #fff; --bg: #f4f6f9; }
        * { box-sizing: border-box; }
        body { margin: 0; padding: 16px 24px; background: var(--bg); color: var(--ink);
          font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
        header { display: flex; align-items: baseline; gap: 16px; flex-wrap: wrap; }
        h1 { font-size: 20px; margin: 0 0 8px; }
        h2 { font-size: 14px; margin: 0 0 8px; font-weight: 600; }
        .state { padding: 2px 8px; border-radius: 10px; background: var(--line); font-size: 12px; }
        .state.live { background: #d8f3e2; color: #11693a; }
        .state.stale, .state.error { background: #fde2e1; color: #a11d17; }
        #generated { color: var(--muted); font-size: 12px; }
        .hidden { display: none; }
        form { margin: 8px 0 16px; display: flex; gap: 8px; align-items: center; }
        input { padding: 4px 8px; border: 1px solid var(--line); border-radius: 4px; min-width: 24em; }
        #refused { color: #a11d17; }
        .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(380px, 1fr)); gap: 16px; }
        .card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px;
          min-width: 0; overflow: hidden; }
        svg { width: 100%; height: 170px; display: block; }
        svg .axis { stroke: var(--line); stroke-width: 1; }
        svg .tick { fill: var(--muted); font-size: 10px; }
        svg path { fill: none; stroke-width: 1.6; }
        svg path.dashed { stroke-dasharray: 4 3; }
        .legend { list-style: none; margin: 6px 0 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 14px;
          font-size: 12px; }
        .legend li { display: flex; align-items: center; gap: 6px; min-width: 0; }
        .legend b { font-weight: 600; }
        .swatch { width: 10px; height: 10px; border-radius: 2px; display: inline-block; }
        .empty { color: var(--muted); font-size: 12px; padding: 24px 0; text-align: center; }
        .wide { margin-top: 16px; }
        .tables { display: grid; grid-template-columns: repeat(auto-fill, minmax(480px, 1fr)); gap: 16px; margin-top: 16px; }
        table { width: 100%; border-collapse: collapse; font-size: 12px; }
        th, td { text-align: left; padding: 3px 6px; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
        td.stale { color: #a11d17; }
        .c0 { stroke: #2f6fde; background: #2f6fde; } .c1 { stroke: #e0662a; background: #e0662a; }
        .c2 { stroke: #1f9e6e; background: #1f9e6e; } .c3 { stroke: #a23dbd; background: #a23dbd; }
        .c4 { stroke: #c9a100; background: #c9a100; } .c5 { stroke: #d03a62; background: #d03a62; }
        .c6 { stroke: #2aa3b8; background: #2aa3b8; } .c7 { stroke: #6b7385; background: #6b7385; }
        .c8 { stroke: #7a5230; background: #7a5230; } .c9 { stroke: #4b3bd1; background: #4b3bd1; }
        """#
}

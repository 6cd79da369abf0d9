extension VerifierAssets {
    /// The page's style: one column, readable on a phone, the verdict in colour and in words.
    static let style = #"""
        :root { font-family: system-ui, sans-serif; color: #1b1f24; background: #f6f7f9; }
        body { max-width: 46rem; margin: 0 auto; padding: 1rem; }
        h1 { margin-bottom: .25rem; }
        header p { color: #4a5260; }
        .drop { display: block; border: 2px dashed #8a94a6; border-radius: .75rem; padding: 2rem;
          text-align: center; background: #fff; cursor: pointer; }
        .drop.over { border-color: #2563eb; background: #eef4ff; }
        .drop input { display: block; margin: 0 auto .75rem; }
        form { display: flex; gap: .5rem; align-items: center; margin: 1rem 0; flex-wrap: wrap; }
        form input { flex: 1; min-width: 16rem; font-family: ui-monospace, monospace; padding: .4rem; }
        .card { background: #fff; border-radius: .75rem; padding: 1rem 1.25rem; margin: 1rem 0;
          box-shadow: 0 1px 3px rgba(0, 0, 0, .12); }
        .hidden { display: none; }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; margin: 0; }
        dt { color: #4a5260; }
        dd { margin: 0; font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
        body[data-state="verified"] #headline { color: #166534; }
        body[data-state="not-found"] #headline { color: #92400e; }
        body[data-state="refused"] #headline, body[data-state="error"] #headline { color: #b91c1c; }
        li { margin: .3rem 0; overflow-wrap: anywhere; }
        .mark { font-weight: 600; padding: 0 .35rem; border-radius: .3rem; }
        .attested, .ok { background: #dcfce7; color: #166534; }
        .claimed { background: #fef3c7; color: #92400e; }
        .missing { background: #fee2e2; color: #b91c1c; }
        .note { color: #4a5260; font-size: .9rem; }
        """#
}

/// The `/ops` page's files, compiled in so the edge needs nothing beside its binary: the HTML
/// (``html``), the script (``script``, in `OpsAssets+Script.swift`) and the style (``style``).
/// Vanilla HTML, CSS and JavaScript; the charts are SVG the script draws; nothing is loaded
/// from anywhere else.
package enum OpsAssets {}

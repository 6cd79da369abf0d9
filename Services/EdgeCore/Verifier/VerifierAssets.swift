/// The `/verify` page's files, compiled in so the edge needs nothing beside its binary: the HTML
/// (``html``), the script (``script``, in `VerifierAssets+Script.swift`) and the style
/// (``style``). Vanilla HTML, CSS and JavaScript; nothing is loaded from anywhere else, and the
/// photo never leaves the browser: only its SHA-256 is sent.
package enum VerifierAssets {}

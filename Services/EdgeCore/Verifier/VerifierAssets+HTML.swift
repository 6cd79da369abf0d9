extension VerifierAssets {
    /// The page: a drop zone (or a hash to paste), the verdict, what the log says of the photo,
    /// its witnesses and its provenance, and the keys it was checked with.
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>Check a photo — Hallmark</title>
        <link rel="stylesheet" href="/verify/verify.css">
        <script src="/verify/verify.js" defer></script>
        </head>
        <body data-state="idle">
        <header>
          <h1>Check a photo</h1>
          <p>Drop a photo. Your browser hashes it, asks the log about the hash, and checks the
          log's answer itself: the inclusion proof, the log's signature and the witnesses'.
          The photo never leaves this page.</p>
        </header>
        <main>
          <label id="drop" class="drop" for="file">
            <input id="file" type="file" accept="image/*,.dng,.raw">
            <span>Drop a photo here, or choose one</span>
          </label>
          <form id="by-hash">
            <label for="hash">or its SHA-256</label>
            <input id="hash" spellcheck="false" autocomplete="off" placeholder="64 hex digits">
            <button type="submit">Check</button>
          </form>
          <section id="verdict" class="card hidden" aria-live="polite">
            <h2 id="headline"></h2>
            <p id="detail"></p>
            <dl id="facts"></dl>
          </section>
          <section id="witnesses" class="card hidden">
            <h2>Witnesses</h2>
            <ul id="witness-list"></ul>
          </section>
          <section id="provenance" class="card hidden">
            <h2>Provenance</h2>
            <ol id="chain"></ol>
            <p class="note">Attested links are leaves of the log; claimed ones are what an editor
            said, which nobody has checked.</p>
          </section>
          <section id="keys" class="card">
            <h2>Checked with</h2>
            <dl id="trust"></dl>
          </section>
        </main>
        </body>
        </html>
        """#
}

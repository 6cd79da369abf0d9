extension OpsAssets {
    /// The page: a header, the chart cards the script fills, the instances and the latest
    /// security events, and the token form (shown only when there is no token or it was refused).
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>Hallmark operations</title>
        <link rel="stylesheet" href="/ops/ops.css">
        <script src="/ops/ops.js" defer></script>
        </head>
        <body>
        <header>
          <h1>Hallmark operations</h1>
          <p><span id="state" class="state">connecting</span> <span id="generated"></span></p>
        </header>
        <form id="login" class="hidden">
          <label for="token">Bearer token</label>
          <input id="token" type="password" autocomplete="off" spellcheck="false">
          <button type="submit">Open</button>
          <span id="refused" class="hidden">token refused</span>
        </form>
        <main id="charts" class="grid">
          <section class="card" data-chart="throughput"><h2>Throughput (messages/s out)</h2></section>
          <section class="card" data-chart="latency"><h2>Latency p50 / p99 (ms)</h2></section>
          <section class="card" data-chart="lag"><h2>Consumer lag (messages)</h2></section>
          <section class="card" data-chart="rejections"><h2>Rejections per minute</h2></section>
          <section class="card" data-chart="security"><h2>Security events per minute</h2></section>
          <section class="card" data-chart="log"><h2>Log size and witnessed checkpoints</h2></section>
        </main>
        <section class="card wide"><h2>Stages (latest values)</h2>
          <table><thead><tr><th>service</th><th>group</th><th>instances</th><th>in/s</th><th>out/s</th><th>p50 ms</th><th>p99 ms</th><th>lag</th></tr></thead>
          <tbody id="stages"></tbody></table></section>
        <section class="tables">
          <div class="card"><h2>Instances</h2>
            <table><thead><tr><th>service</th><th>instance</th><th>state</th></tr></thead><tbody id="instances"></tbody></table></div>
          <div class="card"><h2>Latest security events</h2>
            <table><thead><tr><th>time</th><th>service</th><th>kind</th><th>severity</th></tr></thead><tbody id="events"></tbody></table></div>
        </section>
        </body>
        </html>
        """#
}

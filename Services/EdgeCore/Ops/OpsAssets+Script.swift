extension OpsAssets {
    /// Reads the token (URL fragment, else session storage, else the form), polls
    /// `/ops/data` every 5 s and draws each chart as SVG. For tests and scripts, each chart's
    /// lines carry `data-series` and `data-points`, each legend entry `data-latest`, and the body
    /// `data-rendered` (renders so far) or `data-error`.
    static let script = #"""
        "use strict";
        (() => {
          const SVG = "http://www.w3.org/2000/svg";
          const W = 400, H = 170, PAD = { l: 44, r: 8, t: 8, b: 18 };
          const $ = (id) => document.getElementById(id);
          let timer = null, renders = 0;

          function takeToken() {
            const match = location.hash.match(/(?:^#|&)token=([^&]+)/);
            if (match) {
              sessionStorage.setItem("hallmark-ops-token", decodeURIComponent(match[1]));
              history.replaceState(null, "", location.pathname + location.search);
            }
            return sessionStorage.getItem("hallmark-ops-token");
          }

          function showLogin(refused) {
            $("login").classList.remove("hidden");
            $("refused").classList.toggle("hidden", !refused);
            setState(refused ? "error" : "", refused ? "token refused" : "token needed");
          }

          function setState(kind, text) {
            const state = $("state");
            state.className = "state " + kind;
            state.textContent = text;
          }

          function fail(message) {
            document.body.dataset.error = message;
            setState("error", message);
          }

          async function poll() {
            const token = sessionStorage.getItem("hallmark-ops-token");
            if (!token) { showLogin(false); return; }
            try {
              const response = await fetch("/ops/data", {
                headers: { Authorization: "Bearer " + token }, cache: "no-store", credentials: "omit",
              });
              if (response.status === 401) {
                sessionStorage.removeItem("hallmark-ops-token");
                clearInterval(timer); timer = null;
                showLogin(true);
                fail("token refused");
                return;
              }
              if (!response.ok) { fail("the edge answered " + response.status); return; }
              render(await response.json());
            } catch (error) {
              fail("cannot reach the edge");
            }
          }

          // The charts draw one line per service (its stages together: throughput and lag
          // summed, latency the worst stage's); the stages table below has each group's latest.
          function byService(stages, field, combine) {
            const services = new Map();
            stages.forEach((s) => {
              const points = services.get(s.service) || new Map();
              s.points.forEach((p) => {
                if (p[field] == null) return;
                points.set(p.t, points.has(p.t) ? combine(points.get(p.t), p[field]) : p[field]);
              });
              services.set(s.service, points);
            });
            return [...services.entries()].sort().map(([service, points]) => ({
              label: service, points: [...points.entries()].sort((a, b) => a[0] - b[0]),
            }));
          }

          function values(list, name) { return { label: name, points: (list || []).map((v) => [v.t, v.value]) }; }

          function latest(points, field) {
            for (let i = points.length - 1; i >= 0; i--) if (points[i][field] != null) return number(points[i][field]);
            return "–";
          }

          function render(data) {
            const stages = data.stages || [];
            const sum = (a, b) => a + b;
            const p99 = byService(stages, "p99_ms", Math.max).map((l) => Object.assign(l, { label: l.label + " p99", dashed: true }));
            const p50 = byService(stages, "p50_ms", Math.max).map((l) => Object.assign(l, { label: l.label + " p50" }));
            chart("throughput", byService(stages, "out_per_second", sum));
            // A service's p50 and p99 share its colour; p99 is dashed.
            chart("latency", p50.flatMap((line, i) => [line, p99[i]].filter(Boolean).map((l) => Object.assign(l, { colour: i }))));
            chart("lag", byService(stages, "lag", sum));
            chart("rejections", [values(data.rejections_per_minute, "all services")]);
            chart("security", [values(data.security_events_per_minute, "all services")]);
            const log = data.log || {};
            chart("log", [values(log.tree_size, "log size"), values(log.witnessed_tree_size, "witnessed size")]);
            table("stages", stages.map((s) => [
              s.service, s.group, String(s.instances), latest(s.points, "in_per_second"), latest(s.points, "out_per_second"),
              latest(s.points, "p50_ms"), latest(s.points, "p99_ms"), latest(s.points, "lag"),
            ]));
            table("instances", (data.instances || []).map((i) => [i.service, i.instance, i.stale ? "stale" : "live"]));
            table("events", (data.security_events || []).slice().reverse().map((e) => [e.produced_at, e.service, e.kind, e.severity]));
            const stale = (data.instances || []).some((i) => i.stale);
            setState(stale ? "stale" : "live", stale ? "live, some instances stale" : "live");
            $("generated").textContent = "as of " + data.generated_at + " · last " + Math.round(data.window_seconds / 60) + " min";
            delete document.body.dataset.error;
            document.body.dataset.rendered = String(++renders);
          }

          function number(v) {
            if (Math.abs(v) >= 1e6) return (v / 1e6).toFixed(1) + "M";
            if (Math.abs(v) >= 1e4) return (v / 1e3).toFixed(1) + "k";
            return Number.isInteger(v) ? String(v) : v.toFixed(Math.abs(v) < 10 ? 2 : 1);
          }

          function element(name, attributes, parent) {
            const node = document.createElementNS(SVG, name);
            for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
            if (parent) parent.appendChild(node);
            return node;
          }

          function chart(name, lines) {
            const card = document.querySelector('[data-chart="' + name + '"]');
            card.querySelectorAll("svg, ul, .empty").forEach((n) => n.remove());
            const drawn = lines.filter((l) => l.points.length > 0);
            if (drawn.length === 0) {
              const empty = document.createElement("div");
              empty.className = "empty";
              empty.textContent = "no data yet";
              card.appendChild(empty);
              return;
            }
            const all = drawn.flatMap((l) => l.points);
            const t0 = Math.min(...all.map((p) => p[0])), t1 = Math.max(...all.map((p) => p[0]));
            const top = Math.max(...all.map((p) => p[1]), 1), bottom = Math.min(0, ...all.map((p) => p[1]));
            const x = (t) => PAD.l + (t1 === t0 ? (W - PAD.l - PAD.r) / 2 : ((t - t0) / (t1 - t0)) * (W - PAD.l - PAD.r));
            const y = (v) => PAD.t + (1 - (v - bottom) / (top - bottom)) * (H - PAD.t - PAD.b);
            const svg = element("svg", { viewBox: "0 0 " + W + " " + H, preserveAspectRatio: "none", role: "img" });
            element("line", { class: "axis", x1: PAD.l, x2: W - PAD.r, y1: y(bottom), y2: y(bottom) }, svg);
            element("line", { class: "axis", x1: PAD.l, x2: PAD.l, y1: PAD.t, y2: H - PAD.b }, svg);
            const tick = (text, attrs) => { element("text", Object.assign({ class: "tick" }, attrs), svg).textContent = text; };
            tick(number(top), { x: PAD.l - 4, y: PAD.t + 8, "text-anchor": "end" });
            tick(number(bottom), { x: PAD.l - 4, y: H - PAD.b, "text-anchor": "end" });
            const time = (t) => new Date(t * 1000).toISOString().slice(11, 16);
            tick(time(t0), { x: PAD.l, y: H - 4 });
            tick(time(t1), { x: W - PAD.r, y: H - 4, "text-anchor": "end" });
            const legend = document.createElement("ul");
            legend.className = "legend";
            lines.forEach((line, index) => {
              if (line.points.length === 0) return;
              const colour = "c" + ((line.colour ?? index) % 10);
              const d = line.points.map((p, i) => (i ? "L" : "M") + x(p[0]).toFixed(1) + " " + y(p[1]).toFixed(1)).join(" ");
              element("path", {
                d: line.points.length === 1 ? d + " h1" : d, class: colour + (line.dashed ? " dashed" : ""),
                "data-series": line.label, "data-points": String(line.points.length), "vector-effect": "non-scaling-stroke",
              }, svg);
              const latest = line.points[line.points.length - 1][1];
              const item = document.createElement("li");
              const swatch = document.createElement("span");
              swatch.className = "swatch " + colour;
              const value = document.createElement("b");
              value.textContent = number(latest);
              value.dataset.latest = String(latest);
              item.append(swatch, document.createTextNode(line.label + " "), value);
              legend.appendChild(item);
            });
            card.append(svg, legend);
          }

          function table(id, rows) {
            const body = $(id);
            body.replaceChildren(...rows.map((cells) => {
              const row = document.createElement("tr");
              cells.forEach((text) => {
                const cell = document.createElement("td");
                cell.textContent = text;
                if (text === "stale") cell.className = "stale";
                row.appendChild(cell);
              });
              return row;
            }));
          }

          function start() {
            $("login").classList.add("hidden");
            poll();
            if (!timer) timer = setInterval(poll, 5000);
          }

          document.addEventListener("DOMContentLoaded", () => {
            $("login").addEventListener("submit", (event) => {
              event.preventDefault();
              const value = $("token").value.trim();
              if (value) { sessionStorage.setItem("hallmark-ops-token", value); $("token").value = ""; start(); }
            });
            if (takeToken()) start(); else showLogin(false);
          });
        })();
        """#
}

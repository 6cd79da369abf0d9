extension VerifierAssets {
    /// The page's script. It trusts the edge for nothing it can check: the log's answer is held
    /// to the keys of `/verify/trust.json` (shown on the page), the leaf rebuilt from the
    /// answer's record, the RFC 6962 inclusion proof followed to the root of the checkpoint, the
    /// C2SP signed note verified with the log's Ed25519 key and each witness's cosignature/v1
    /// with its own, all with WebCrypto. Its verdict is also on `<body>` (`data-state`,
    /// `data-reason`, `data-witnessed`, `data-leaf-index`), where a test reads it.
    static let script = #"""
        "use strict";
        const utf8 = new TextEncoder();
        const $ = (id) => document.getElementById(id);

        function hex(bytes) { return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""); }
        function unhex(text) {
          if (typeof text !== "string" || !/^([0-9a-f]{2})*$/.test(text)) throw new Refusal("the answer holds a hash that is not hex");
          const out = new Uint8Array(text.length / 2);
          for (let i = 0; i < out.length; i++) out[i] = parseInt(text.substr(2 * i, 2), 16);
          return out;
        }
        function unbase64(text) { return Uint8Array.from(atob(text), (c) => c.charCodeAt(0)); }
        function concat(...parts) {
          const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
          let at = 0;
          for (const p of parts) { out.set(p, at); at += p.length; }
          return out;
        }
        function same(a, b) { return a.length === b.length && a.every((x, i) => x === b[i]); }
        async function sha256(bytes) { return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)); }

        /// What the page refuses to believe, and why.
        class Refusal extends Error {}

        // RFC 6962: leaf and node hashes, and the root an inclusion proof leads to (RFC 9162 2.1.3.2).
        const leafHash = (leaf) => sha256(concat(Uint8Array.of(0), leaf));
        const nodeHash = (left, right) => sha256(concat(Uint8Array.of(1), left, right));
        async function rootFromProof(index, size, hash, proof) {
          if (!(Number.isSafeInteger(index) && Number.isSafeInteger(size) && index >= 0 && index < size)) {
            throw new Refusal("the leaf index is not inside the signed tree");
          }
          let fn = index, sn = size - 1, r = hash;
          for (const p of proof) {
            if (sn === 0) throw new Refusal("the inclusion proof is too long");
            if (fn % 2 === 1 || fn === sn) {
              r = await nodeHash(p, r);
              if (fn % 2 === 0) { while (fn % 2 === 0 && fn !== 0) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); } }
            } else {
              r = await nodeHash(r, p);
            }
            fn = Math.floor(fn / 2); sn = Math.floor(sn / 2);
          }
          if (sn !== 0) throw new Refusal("the inclusion proof is too short");
          return r;
        }

        // The BM-LOG leaf: image hash, u64be capture time, level, parent (zeros for none).
        function leafBytes(hash, answer) {
          const time = new Uint8Array(8);
          new DataView(time.buffer).setBigUint64(0, BigInt(answer.timestamp));
          const parent = answer.parent_image_hash ? unhex(answer.parent_image_hash) : new Uint8Array(32);
          const level = answer.modification_level;
          if (!(Number.isInteger(level) && level >= 0 && level < 256) || parent.length !== 32) {
            throw new Refusal("the answer's record cannot be a leaf");
          }
          return concat(unhex(hash), time, Uint8Array.of(level), parent);
        }

        // C2SP signed-note: the text, then a blank line and "— name base64" signature lines.
        function parseNote(note) {
          const end = note.indexOf("\n\n");
          if (end < 0) throw new Refusal("the checkpoint is not a signed note");
          const text = note.slice(0, end + 1);
          const signatures = note.slice(end + 2).split("\n").filter((l) => l.length > 0).map((line) => {
            const m = /^\u2014 (\S+) (\S+)$/.exec(line);
            if (!m) throw new Refusal("the checkpoint has a malformed signature line");
            return { name: m[1], bytes: unbase64(m[2]) };
          });
          const lines = text.split("\n");
          const size = Number(lines[1]);
          if (lines.length < 4 || !/^[0-9]+$/.test(lines[1]) || !Number.isSafeInteger(size)) {
            throw new Refusal("the checkpoint's text is malformed");
          }
          return { text, signatures, origin: lines[0], size, root: unbase64(lines[2]) };
        }

        // A vkey: name+hex(key hash)+base64(type ‖ public key), the key hash checked.
        async function parseVkey(vkey) {
          // The key's base64 may hold "+" too: the name and the hash end at the first two.
          const first = vkey.indexOf("+"), second = vkey.indexOf("+", first + 1);
          if (first < 1 || second < 0) throw new Error("a vkey is name+hash+key");
          const name = vkey.slice(0, first), hashText = vkey.slice(first + 1, second), keyText = vkey.slice(second + 1);
          const key = unbase64(keyText);
          const keyHash = (await sha256(concat(utf8.encode(name + "\n"), key))).slice(0, 4);
          if (hex(keyHash) !== hashText || key.length !== 33) throw new Error("the vkey's hash does not match its key");
          const publicKey = await crypto.subtle.importKey("raw", key.slice(1), { name: "Ed25519" }, false, ["verify"]);
          return { vkey, name, type: key[0], keyHash, publicKey };
        }
        const ed25519 = (key, signature, message) => crypto.subtle.verify({ name: "Ed25519" }, key.publicKey, signature, message);

        // The log's own signature (type 0x01) over the note's text.
        async function signedBy(key, note) {
          for (const s of note.signatures) {
            if (s.name === key.name && s.bytes.length === 68 && same(s.bytes.slice(0, 4), key.keyHash)
                && await ed25519(key, s.bytes.slice(4), utf8.encode(note.text))) return true;
          }
          return false;
        }
        // A witness's cosignature/v1 (type 0x04): time, then its signature over that time and the text.
        async function cosignedBy(key, note) {
          for (const s of note.signatures) {
            if (s.name !== key.name || s.bytes.length !== 76 || !same(s.bytes.slice(0, 4), key.keyHash)) continue;
            const time = new DataView(s.bytes.buffer, s.bytes.byteOffset + 4, 8).getBigUint64(0);
            const message = utf8.encode("cosignature/v1\ntime " + time.toString() + "\n" + note.text);
            if (await ed25519(key, s.bytes.slice(12), message)) return true;
          }
          return false;
        }
        // C2SP tlog-policy: a witness counts once it cosigned; a group once enough members count.
        function satisfied(name, policy, cosigned, depth = 0) {
          if (depth > 16) return false;
          if (policy.witnesses.some((w) => w.name === name)) return cosigned.has(name);
          const group = policy.groups.find((g) => g.name === name);
          if (!group) return false;
          const met = group.members.filter((m) => satisfied(m, policy, cosigned, depth + 1)).length;
          return met >= group.threshold;
        }

        async function getJSON(path) {
          const response = await fetch(path, { cache: "no-store" });
          if (response.status === 404) return null;
          if (!response.ok) throw new Error(path + " answered " + response.status);
          return response.json();
        }

        async function check(hash) {
          show("checking", "Checking…", "Asking the log about " + hash);
          const trust = await getJSON("/verify/trust.json");
          showTrust(trust);
          if (!trust || trust.logs.length === 0) throw new Refusal("this edge names no log key to check against");
          const answer = await getJSON("/api/v1/verify/" + hash);
          if (!answer || typeof answer.checkpoint !== "string") throw new Refusal("the log's answer has no signed checkpoint");
          const note = parseNote(answer.checkpoint);
          let logKey = null;
          for (const vkey of trust.logs) {
            const key = await parseVkey(vkey);
            if (key.type === 1 && key.name === note.origin && await signedBy(key, note)) { logKey = key; break; }
          }
          if (!logKey) throw new Refusal("the checkpoint is not signed by the log's key");
          if (answer.tree_size !== note.size) throw new Refusal("the answer's tree size is not the signed one");
          const witnesses = [];
          const cosigned = new Set();
          for (const w of trust.witnesses) {
            const ok = await cosignedBy(await parseVkey(w.vkey), note);
            if (ok) cosigned.add(w.name);
            witnesses.push({ name: w.name, ok });
          }
          const witnessed = trust.quorum ? satisfied(trust.quorum, trust, cosigned) : null;
          showWitnesses(witnesses, witnessed, trust.quorum);
          if (answer.verified !== true) {
            show("not-found", "Not in the log",
              "No leaf of the log's signed checkpoint of " + note.size + " images has this hash.", [
                ["Image hash", hash], ["Checkpoint", note.origin + ", " + note.size + " leaves (signature checked)"],
              ]);
            return;
          }
          if (answer.image_hash !== hash) throw new Refusal("the answer is about another image");
          const proof = (answer.inclusion_proof || []).map(unhex);
          if (proof.some((p) => p.length !== 32)) throw new Refusal("the inclusion proof holds a node that is not 32 bytes");
          const root = await rootFromProof(answer.leaf_index, note.size, await leafHash(leafBytes(hash, answer)), proof);
          if (!same(root, note.root)) throw new Refusal("the inclusion proof does not lead to the signed root");
          document.body.dataset.leafIndex = String(answer.leaf_index);
          const captured = new Date(answer.timestamp * 1000).toISOString();
          const levels = ["raw capture", "processed", "modified"];
          show("verified", "In the log",
            "The log signed a checkpoint that includes this photo, and your browser checked the proof.", [
              ["Image hash", hash], ["Captured", captured], ["Level", levels[answer.modification_level] || String(answer.modification_level)],
              ["Derived from", answer.parent_image_hash || "—"], ["Leaf", answer.leaf_index + " of " + note.size],
              ["Log", note.origin], ["Witnessed", witnessed === null ? "no quorum set" : witnessed ? "yes" : "no"],
              ["GPS hash (not in the proof)", answer.gps_hash || "—"], ["Owner hash (not in the proof)", answer.owner_hash || "—"],
            ]);
          showProvenance(await getJSON("/api/v1/provenance/" + hash));
        }

        function show(state, headline, detail, facts = []) {
          document.body.dataset.state = state;
          $("verdict").classList.remove("hidden");
          $("headline").textContent = headline;
          $("detail").textContent = detail;
          $("facts").replaceChildren(...facts.flatMap(([k, v]) => {
            const dt = document.createElement("dt"); dt.textContent = k;
            const dd = document.createElement("dd"); dd.textContent = v;
            return [dt, dd];
          }));
        }
        function mark(text, kind) {
          const span = document.createElement("span");
          span.className = "mark " + kind; span.textContent = text;
          return span;
        }
        function showWitnesses(witnesses, witnessed, quorum) {
          document.body.dataset.witnessed = String(witnesses.filter((w) => w.ok).length);
          if (witnesses.length === 0) return;
          $("witnesses").classList.remove("hidden");
          $("witness-list").replaceChildren(...witnesses.map((w) => {
            const li = document.createElement("li");
            li.append(mark(w.ok ? "cosigned" : "no cosignature", w.ok ? "ok" : "missing"), " " + w.name);
            return li;
          }));
          const li = document.createElement("li");
          li.textContent = "Quorum (" + quorum + "): " + (witnessed ? "met" : "not met");
          $("witness-list").append(li);
        }
        function showProvenance(chain) {
          if (!chain || !Array.isArray(chain.chain)) return;
          $("provenance").classList.remove("hidden");
          $("chain").replaceChildren(...chain.chain.map((link) => {
            const li = document.createElement("li");
            li.append(mark(link.status, link.status === "attested" ? "attested" : "claimed"),
              " " + link.type + ", level " + link.modification_level + ": " + link.hash);
            return li;
          }));
        }
        function showTrust(trust) {
          const rows = trust ? [["Log key", trust.logs.join(" ")], ...trust.witnesses.map((w) => ["Witness " + w.name, w.vkey])] : [];
          $("trust").replaceChildren(...rows.flatMap(([k, v]) => {
            const dt = document.createElement("dt"); dt.textContent = k;
            const dd = document.createElement("dd"); dd.textContent = v;
            return [dt, dd];
          }));
        }

        async function run(hash) {
          hash = hash.trim().toLowerCase();
          if (!/^[0-9a-f]{64}$/.test(hash)) { show("error", "Not a hash", "A SHA-256 is 64 hex digits."); return; }
          document.body.dataset.reason = "";
          try {
            await check(hash);
          } catch (e) {
            const refused = e instanceof Refusal;
            document.body.dataset.reason = e.message;
            show(refused ? "refused" : "error", refused ? "Do not trust this answer" : "Could not check",
              refused ? "The log's answer did not check out: " + e.message + "." : e.message);
          }
        }
        async function runFile(file) {
          show("checking", "Hashing…", file.name);
          run(hex(await sha256(new Uint8Array(await file.arrayBuffer()))));
        }

        $("file").addEventListener("change", (e) => { if (e.target.files[0]) runFile(e.target.files[0]); });
        const drop = $("drop");
        drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
        drop.addEventListener("dragleave", () => drop.classList.remove("over"));
        drop.addEventListener("drop", (e) => {
          e.preventDefault(); drop.classList.remove("over");
          if (e.dataTransfer.files[0]) runFile(e.dataTransfer.files[0]);
        });
        $("by-hash").addEventListener("submit", (e) => { e.preventDefault(); run($("hash").value); });
        // A link may name the hash: /verify#hash=…
        const named = new URLSearchParams(location.hash.slice(1)).get("hash");
        if (named) { $("hash").value = named; run(named); }
        else getJSON("/verify/trust.json").then(showTrust, () => {});
        """#
}

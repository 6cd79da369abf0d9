#!/usr/bin/env python3
"""Loads the edge's /verify page in headless Chromium and reads the browser's verdict.

usage: verify_page_check.py --url http://127.0.0.1:PORT --hash HEX
                            --expect verified|not-found|refused [--expect-witnesses N]
                            [--tamper proof|key] [--screenshot FILE] [--chromium PATH]

Chromium loads URL/verify#hash=HEX: the page asks the log about the hash and checks the answer
itself (inclusion proof, the log's Ed25519 signature, the witnesses' cosignatures, WebCrypto),
then writes its verdict on <body> (data-state, data-reason, data-witnessed, data-leaf-index).

--tamper puts a test double between the browser and the edge: a local HTTP server that passes
every request on to the edge but changes the verification answer before the browser reads it:
  proof  one node of the inclusion proof changed (the capture time, when the proof is empty);
  key    the log's signature line replaced by one from another Ed25519 key under the log's name
         (made with PyPI cryptography), so the checkpoint verifies under no trusted key.

The check passes when data-state is the expected one (and, with --expect-witnesses, at least N
witnesses cosigned); it prints the body's data as JSON. --screenshot also saves a picture.
Exit 0 on success, 1 with a reason otherwise.
"""
import argparse
import base64
import hashlib
import http.server
import json
import sys
import threading
import urllib.error
import urllib.request
from html.parser import HTMLParser

import headless_chromium


class Body(HTMLParser):
    def __init__(self):
        super().__init__()
        self.data = {}

    def handle_starttag(self, tag, attrs):
        if tag == "body":
            self.data = {k[5:]: v for k, v in attrs if k.startswith("data-")}


def forged_signature_line(note):
    """The log's Ed25519 signature line of `note` replaced by another key's, same name."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    end = note.index("\n\n")
    text, lines = note[:end + 1], note[end + 2:].splitlines()
    origin = text.split("\n", 1)[0]
    other = Ed25519PrivateKey.generate()
    public = other.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    key_hash = hashlib.sha256(origin.encode() + b"\n" + b"\x01" + public).digest()[:4]
    forged = "\u2014 " + origin + " " + base64.b64encode(key_hash + other.sign(text.encode())).decode()
    kept = []
    for line in lines:
        name, _, b64 = line[2:].partition(" ")
        # The log's own Ed25519 line (68 bytes) goes; cosignatures (76 bytes) stay.
        if name == origin and len(base64.b64decode(b64)) == 68:
            continue
        kept.append(line)
    return text + "\n" + "\n".join([forged] + kept) + "\n"


def tampered(answer, how):
    if how == "proof":
        proof = answer.get("inclusion_proof") or []
        if proof:
            first = proof[0]
            proof[0] = ("1" if first[0] != "1" else "2") + first[1:]
        else:
            answer["timestamp"] = answer["timestamp"] + 1
    elif how == "key":
        answer["checkpoint"] = forged_signature_line(answer["checkpoint"])
    return answer


def serve_double(upstream, how):
    """A local server passing requests on to `upstream`, tampering verification answers."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            try:
                with urllib.request.urlopen(upstream + self.path, timeout=30) as response:
                    status, body = response.status, response.read()
                    kind = response.headers.get("Content-Type", "application/octet-stream")
                    policy = response.headers.get("Content-Security-Policy")
            except urllib.error.HTTPError as error:
                status, body, kind, policy = error.code, error.read(), "application/json", None
            if self.path.startswith("/api/v1/verify/") and status == 200:
                body = json.dumps(tampered(json.loads(body), how)).encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            if policy:
                self.send_header("Content-Security-Policy", policy)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--hash", required=True)
    parser.add_argument("--expect", required=True, choices=["verified", "not-found", "refused"])
    parser.add_argument("--expect-witnesses", type=int, default=0)
    parser.add_argument("--tamper", choices=["proof", "key"])
    parser.add_argument("--screenshot")
    parser.add_argument("--chromium", default=headless_chromium.DEFAULT)
    args = parser.parse_args()
    if reason := headless_chromium.missing(args.chromium):
        print(reason)
        return 1
    base, server = args.url.rstrip("/"), None
    if args.tamper:
        server, base = serve_double(base, args.tamper)
    try:
        target = f"{base}/verify#hash={args.hash}"
        body = Body()
        body.feed(headless_chromium.dump_dom(args.chromium, target, 20000, prefix="verify-chromium-"))
        state, witnessed = body.data.get("state"), int(body.data.get("witnessed") or 0)
        if state != args.expect:
            print(f"expected {args.expect}, the page says {state!r} ({body.data.get('reason')!r})")
            return 1
        if witnessed < args.expect_witnesses:
            print(f"expected {args.expect_witnesses} witnesses, the page counted {witnessed}")
            return 1
        if args.screenshot:
            headless_chromium.screenshot(args.chromium, target, 20000, "900,1300", args.screenshot, prefix="verify-chromium-")
        print(json.dumps(body.data, sort_keys=True))
        return 0
    except headless_chromium.Failed as failure:
        print(failure)
        return 1
    finally:
        if server:
            server.shutdown()


if __name__ == "__main__":
    sys.exit(main())

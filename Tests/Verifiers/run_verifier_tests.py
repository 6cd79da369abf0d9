#!/usr/bin/env python3
"""Run both log verifiers (tlogcheck/main.go, tlog_scales_check.py) against test logs made by
make_test_log.py: they must accept good logs and refuse tampered entries, tampered tiles,
checkpoints signed by another key and inconsistent checkpoint pairs.

  run_verifier_tests.py [--py /tmp/tsvenv/bin/python] [--go-bin /tmp/tlogcheck] [--sizes 1,255,...]

Without --go-bin it builds tlogcheck offline in GOPATH mode against Debian's
golang-golang-x-mod-dev. The generator runs under this interpreter (needs `cryptography`);
--py is the venv interpreter that has tlog-scales. Ends with "N passed, N failed".
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_test_log  # noqa: E402  (tile paths)

HERE = os.path.dirname(os.path.abspath(__file__))
KEY_A, KEY_B = "11" * 32, "22" * 32


def build_go(out_dir: str) -> str:
    binary = os.path.join(out_dir, "tlogcheck")
    env = dict(os.environ, GO111MODULE="off", GOPATH="/usr/share/gocode", GOPROXY="off",
               GOCACHE=os.environ.get("GOCACHE", "/tmp/gocache"), GOFLAGS="")
    subprocess.run(["go", "build", "-o", binary, os.path.join(HERE, "tlogcheck", "main.go")],
                   env=env, check=True)
    return binary


class Runner:
    def __init__(self, go_bin: str, py: str):
        self.go_bin, self.py = go_bin, py
        self.passed = self.failed = 0

    def verifiers(self, vkey: str, d: str, old: str | None, extra=()):
        go = [self.go_bin, "-vkey", vkey, "-dir", d, "-n", "20"] + (["-old", old] if old else [])
        py = [self.py, os.path.join(HERE, "tlog_scales_check.py"), "--vkey", vkey, "--dir", d,
              "-n", "20"] + (["--old", old] if old else [])
        return [("go", go + [x.replace("--no-full", "-full=false") for x in extra]), ("py", py + list(extra))]

    def case(self, name: str, want_ok: bool, vkey: str, d: str, old: str | None = None, extra=()):
        for tool, cmd in self.verifiers(vkey, d, old, extra):
            r = subprocess.run(cmd, capture_output=True, text=True)
            ok = r.returncode == 0
            good = ok == want_ok and r.returncode in (0, 1) and "Traceback" not in r.stderr
            msg = (r.stdout + r.stderr).strip().splitlines()
            line = msg[-1] if msg else ""
            status = "PASS" if good else "FAIL"
            print(f"{status} [{tool}] {name}: want {'accept' if want_ok else 'refuse'}, "
                  f"rc={r.returncode}: {line[:220]}")
            if good:
                self.passed += 1
            else:
                self.failed += 1
                if r.stderr.strip() and r.stderr.strip() != line:
                    print(r.stderr[-2000:])


def gen(d: str, size: int, key: str, *args) -> str:
    cmd = [sys.executable, os.path.join(HERE, "make_test_log.py"), "--dir", d, "--size", str(size),
           "--key-seed", key, "--witness", *map(str, args)]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()


def flip(path: str, offset: int) -> bytes:
    data = bytearray(open(path, "rb").read())
    orig = bytes(data)
    data[offset] ^= 0x01
    open(path, "wb").write(data)
    return orig


def tile_files(d: str, size: int, kind: str) -> list[str]:
    """The hash tiles or entry bundles a tree of `size` needs (not stale partials of older sizes)."""
    out, level = [], 0
    while size >> (8 * level):
        count = size >> (8 * level)
        for n in range((count + 255) // 256):
            w = min(256, count - n * 256) % 256
            out.append(os.path.join(d, make_test_log.tile_path("entries" if kind == "entries" else level, n, w)))
        if kind == "entries":
            break
        level += 1
    for f in out:
        assert os.path.exists(f), f
    return out


def pick(files: list[str], rng: random.Random, limit: int) -> list[str]:
    """All files if few, else the first, last, some random ones and every non-level-0 tile."""
    if len(files) <= limit:
        return files
    keep = {files[0], files[-1], *rng.sample(files, limit - 2)}
    keep |= {f for f in files if f"{os.sep}tile{os.sep}0{os.sep}" not in f
             and f"{os.sep}entries{os.sep}" not in f}
    keep |= {f for f in files if ".p" in f}
    return sorted(keep)


def test_size(r: Runner, tmp: str, size: int, rng: random.Random) -> None:
    base = os.path.join(tmp, f"s{size}")
    d = base + "/log"
    old_size = size // 2 if size > 1 else 0
    vkey = gen(d, size, KEY_A, "--old-size", old_size, "--old-out", base + "/old",
               "--fork-size", size, "--fork-at", size - 1, "--fork-out", base + "/fork_same")
    gen(base + "/log_b", size, KEY_B)  # same leaves, another key

    r.case(f"size {size}: good log", True, vkey, d)
    r.case(f"size {size}: good log, sampled only", True, vkey, d, extra=["--no-full"])
    r.case(f"size {size}: consistent old size {old_size}", True, vkey, d, base + "/old")
    r.case(f"size {size}: old == current", True, vkey, d, d + "/checkpoint")
    r.case(f"size {size}: fork of same size", False, vkey, d, base + "/fork_same")
    if size > 1:
        gen(base + "/fork_gen", size, KEY_A, "--fork-size", old_size, "--fork-at", old_size - 1,
            "--fork-out", base + "/fork_small")
        r.case(f"size {size}: fork at smaller size {old_size}", False, vkey, d, base + "/fork_small")
    gen(base + "/bigger", size + 1, KEY_A)
    r.case(f"size {size}: old checkpoint larger than current", False, vkey, d, base + "/bigger/checkpoint")
    r.case(f"size {size}: old checkpoint by another key", False, vkey, d, base + "/log_b/checkpoint")

    # Checkpoint signed by another key (same origin, same tree).
    good_cp = open(d + "/checkpoint", "rb").read()
    shutil.copy(base + "/log_b/checkpoint", d + "/checkpoint")
    r.case(f"size {size}: checkpoint by another key", False, vkey, d)
    # Checkpoint whose only log-key signature is the 0x04 cosignature.
    lines = good_cp.decode().split("\n")
    sig_start = lines.index("") + 1
    no_log_sig = lines[:sig_start] + lines[sig_start + 1:]
    open(d + "/checkpoint", "w").write("\n".join(no_log_sig))
    r.case(f"size {size}: checkpoint with only the cosignature", False, vkey, d)
    # Corrupted log cosignature.
    bad_cos = list(lines)
    blob = bad_cos[sig_start + 1].rsplit(" ", 1)
    bad_cos[sig_start + 1] = blob[0] + " " + ("A" if blob[1][20] != "A" else "B").join(
        [blob[1][:20], blob[1][21:]])
    open(d + "/checkpoint", "w").write("\n".join(bad_cos))
    r.case(f"size {size}: corrupted log cosignature", False, vkey, d)
    # Validly signed, but with an extension line (allowed by tlog-checkpoint, not by Hallmark).
    key = make_test_log.Ed25519PrivateKey.from_private_bytes(bytes.fromhex(KEY_A))
    text = "\n".join(lines[:3]) + "\nextension line\n"
    blob = make_test_log.key_id(lines[0], 1, make_test_log.pub_bytes(key)) + key.sign(text.encode())
    sig = make_test_log.base64.b64encode(blob).decode()
    open(d + "/checkpoint", "w").write(f"{text}\n\u2014 {lines[0]} {sig}\n")
    r.case(f"size {size}: signed checkpoint with an extension line", False, vkey, d)
    open(d + "/checkpoint", "wb").write(good_cp)

    for kind in ("entries", "tiles"):
        for f in pick(tile_files(d, size, kind), rng, 8):
            n = os.path.getsize(f)
            off = rng.randrange(n)
            if kind == "entries" and rng.random() < 0.8:  # mostly inside entry bytes
                off = rng.randrange(n // 75) * 75 + 2 + rng.randrange(73)
            orig = flip(f, off)
            rel = os.path.relpath(f, d)
            r.case(f"size {size}: tampered {kind} {rel} byte {off}", False, vkey, d)
            open(f, "wb").write(orig)
    # Entry and its leaf hash rewritten together: only tile authentication can catch this.
    for f in pick(tile_files(d, size, "entries"), rng, 6):
        tile = f.replace(os.sep + "entries" + os.sep, os.sep + "0" + os.sep)
        entries, hashes = open(f, "rb").read(), open(tile, "rb").read()
        j = rng.randrange(len(hashes) // 32)
        e = bytearray(entries)
        e[j * 75 + 2] ^= 0x01
        h = bytearray(hashes)
        h[j * 32:(j + 1) * 32] = make_test_log.leaf_hash(bytes(e[j * 75 + 2:(j + 1) * 75]))
        open(f, "wb").write(e)
        open(tile, "wb").write(h)
        rel = os.path.relpath(f, d)
        r.case(f"size {size}: entry {j} of {rel} and its leaf hash rewritten", False, vkey, d)
        # Sampled mode reads bundle 0 for entry 0, so another entry there must still be caught.
        if j and rel.startswith(os.path.join("tile", "entries", "000")):
            r.case(f"size {size}: same, sampled mode -n 0", False, vkey, d, extra=["--no-full", "-n", "0"])
        open(f, "wb").write(entries)
        open(tile, "wb").write(hashes)

    stale = sorted(set(tile_files(d, old_size, "tiles")) - set(tile_files(d, size, "tiles")))
    if stale:  # partial tiles kept for the old checkpoint are not part of the current tree
        orig = flip(stale[0], 0)
        r.case(f"size {size}: stale old-size tile {os.path.relpath(stale[0], d)} tampered (not in tree)",
               True, vkey, d)
        open(stale[0], "wb").write(orig)
    r.case(f"size {size}: good log after restores", True, vkey, d, base + "/old")


def test_fallback(r: Runner, tmp: str) -> None:
    """A log that grew past its checkpoint and deleted that checkpoint's partial tiles: the
    verifiers fall back to the full tiles (allowed by tlog-tiles when nothing above is partial)."""
    base = os.path.join(tmp, "fallback")
    vkey = gen(base + "/log", 300, KEY_A, "--old-size", 200, "--old-out", base + "/old",
               "--no-old-partials")
    shutil.copy(base + "/old", base + "/log/checkpoint")
    r.case("size 200 served from full tiles of a 300 log", True, vkey, base + "/log")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--py", default="/tmp/tsvenv/bin/python", help="python with tlog-scales")
    ap.add_argument("--go-bin", help="prebuilt tlogcheck (default: build it)")
    ap.add_argument("--sizes", default="1,2,255,256,257,511,65536,65537,70000")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tlogverify.")
    try:
        r = Runner(a.go_bin or build_go(tmp), a.py)
        rng = random.Random(20240601)
        for size in map(int, a.sizes.split(",")):
            test_size(r, tmp, size, rng)
        test_fallback(r, tmp)
    finally:
        if a.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{r.passed} passed, {r.failed} failed")
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())

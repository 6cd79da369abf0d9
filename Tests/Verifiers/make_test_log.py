#!/usr/bin/env python3
"""Generate a C2SP tlog-tiles test log of Birthmark leaves, for the verifiers beside this file.

Independent of the Swift aggregator and of the verifiers: its own RFC 6962 hashing, tile
layout and signed-note code, using only the standard library and `cryptography` (Ed25519).

Writes DIR/checkpoint (log signature type 0x01 + the log's own tlog-cosignature type 0x04,
optionally a witness cosignature from an unrelated key), DIR/tile/<L>/<N>[.p/<W>] hash tiles
and DIR/tile/entries/<N>[.p/<W>] entry bundles, and prints the log's vkey on stdout.

  make_test_log.py --dir DIR --size 70000 [--key-seed HEX] [--seed 1] \
      [--old-size 50000 --old-out FILE] [--fork-size 60000 --fork-at 1234 --fork-out FILE]

--old-size writes an earlier checkpoint of the same history (and, like a log that grew, its
partial tiles); --fork-* writes a checkpoint of a different history (leaves from --fork-at on
differ) signed by the same key. Leaves are deterministic for a given --seed.
"""
import argparse
import base64
import hashlib
import os
import random
import struct
import sys
import time

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

LEAF_SIZE = 73  # imageHash(32) ‖ u64be(timestamp) ‖ u8(modification level) ‖ parentHash(32)


def sha256(b: bytes) -> bytes:
    return hashlib.sha256(b).digest()


def leaf_hash(entry: bytes) -> bytes:
    return sha256(b"\x00" + entry)


def node_hash(left: bytes, right: bytes) -> bytes:
    return sha256(b"\x01" + left + right)


def mth(hashes: list, lo: int, hi: int) -> bytes:
    """RFC 6962 MTH of the leaf hashes hashes[lo:hi], split at the largest power of two < n."""
    n = hi - lo
    if n == 0:
        return sha256(b"")
    if n == 1:
        return hashes[lo]
    k = 1 << ((n - 1).bit_length() - 1)
    return node_hash(mth(hashes, lo, lo + k), mth(hashes, lo + k, hi))


def make_leaves(count: int, seed: int) -> list:
    rng = random.Random(seed)
    leaves = []
    t = 1_750_000_000
    for i in range(count):
        image = rng.randbytes(32)
        t += rng.randrange(0, 5)
        level = rng.choice((0, 0, 0, 1, 2))
        parent = leaves[rng.randrange(i)][:32] if level and i else bytes(32)
        leaf = image + struct.pack(">QB", t, level if i else 0) + parent
        assert len(leaf) == LEAF_SIZE
        leaves.append(leaf)
    return leaves


def tile_path(level, n: int, width: int = 0) -> str:
    elems = [f"{n % 1000:03d}"]
    while n >= 1000:
        n //= 1000
        elems.insert(0, f"x{n % 1000:03d}")
    if width:
        elems[-1] += ".p"
        elems.append(str(width))
    return os.path.join("tile", str(level), *elems)


def write(path: str, data: bytes) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def write_tiles(root: str, entries: list, hashes0: list, size: int) -> int:
    """Tiles and bundles a tree of `size` needs: full ones plus each level's partial one."""
    written = 0
    level_hashes = hashes0[:size]
    level = 0
    while level_hashes:
        full, width = divmod(len(level_hashes), 256)
        for n in range(full + (1 if width else 0)):
            chunk = level_hashes[n * 256:(n + 1) * 256]
            w = len(chunk) if len(chunk) < 256 else 0
            write(os.path.join(root, tile_path(level, n, w)), b"".join(chunk))
            written += 1
            if level == 0:
                bundle = b"".join(struct.pack(">H", len(e)) + e for e in entries[n * 256:(n + 1) * 256])
                write(os.path.join(root, tile_path("entries", n, w)), bundle)
                written += 1
        # Each hash one level up is the MTH of a *full* tile below (RFC 6962 over 256 hashes).
        level_hashes = [mth(level_hashes, n * 256, (n + 1) * 256) for n in range(full)]
        level += 1
    return written


def key_id(name: str, alg: int, pub: bytes) -> bytes:
    return sha256(name.encode() + b"\n" + bytes([alg]) + pub)[:4]


def pub_bytes(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes_raw()


def vkey(name: str, key: Ed25519PrivateKey) -> str:
    pub = pub_bytes(key)
    blob = base64.b64encode(b"\x01" + pub).decode()
    return f"{name}+{key_id(name, 1, pub).hex()}+{blob}"


def cosig_line(name: str, key: Ed25519PrivateKey, text: str, ts: int) -> str:
    msg = f"cosignature/v1\ntime {ts}\n".encode() + text.encode()
    blob = key_id(name, 4, pub_bytes(key)) + struct.pack(">Q", ts) + key.sign(msg)
    return f"\u2014 {name} {base64.b64encode(blob).decode()}\n"


def checkpoint(origin: str, key: Ed25519PrivateKey, size: int, root: bytes, witness=None) -> bytes:
    text = f"{origin}\n{size}\n{base64.b64encode(root).decode()}\n"
    sig = key_id(origin, 1, pub_bytes(key)) + key.sign(text.encode())
    ts = int(time.time())
    out = text + "\n" + f"\u2014 {origin} {base64.b64encode(sig).decode()}\n"
    out += cosig_line(origin, key, text, ts)
    if witness is not None:
        out += cosig_line("witness.example/w1", witness, text, ts)
    return out.encode()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True, help="output directory (must not exist or be empty)")
    ap.add_argument("--size", type=int, required=True)
    ap.add_argument("--origin", default="hallmark.test/log")
    ap.add_argument("--seed", type=int, default=1, help="leaf generator seed")
    ap.add_argument("--key-seed", help="hex 32-byte Ed25519 seed (default: fresh random key)")
    ap.add_argument("--witness", action="store_true", help="add a witness cosignature (unknown key)")
    ap.add_argument("--old-size", type=int, help="also sign an earlier checkpoint of this size")
    ap.add_argument("--old-out", help="file for the earlier checkpoint")
    ap.add_argument("--no-old-partials", action="store_true",
                    help="don't keep the earlier checkpoint's partial tiles (as if deleted)")
    ap.add_argument("--fork-size", type=int, help="also sign a forked checkpoint of this size")
    ap.add_argument("--fork-at", type=int, default=0, help="first leaf index that differs in the fork")
    ap.add_argument("--fork-out", help="file for the forked checkpoint")
    a = ap.parse_args()

    if a.size < 0 or (a.old_size is not None and not 0 <= a.old_size <= a.size):
        ap.error("need 0 <= old-size <= size")
    if (a.old_size is None) != (a.old_out is None) or (a.fork_size is None) != (a.fork_out is None):
        ap.error("--old-size/--old-out and --fork-size/--fork-out go together")
    if os.path.exists(a.dir) and os.listdir(a.dir):
        ap.error(f"{a.dir} is not empty")

    key = (Ed25519PrivateKey.from_private_bytes(bytes.fromhex(a.key_seed)) if a.key_seed
           else Ed25519PrivateKey.generate())
    witness = Ed25519PrivateKey.generate() if a.witness else None

    entries = make_leaves(a.size, a.seed)
    hashes = [leaf_hash(e) for e in entries]
    os.makedirs(a.dir, exist_ok=True)

    if a.old_size and not a.no_old_partials:  # the partial tiles a grown log still has for its earlier checkpoint
        write_tiles(a.dir, entries, hashes, a.old_size)
    files = write_tiles(a.dir, entries, hashes, a.size)
    root = mth(hashes, 0, a.size)
    write(os.path.join(a.dir, "checkpoint"), checkpoint(a.origin, key, a.size, root, witness))

    if a.old_size is not None:
        write(a.old_out, checkpoint(a.origin, key, a.old_size, mth(hashes, 0, a.old_size)))
    if a.fork_size is not None:
        if not 0 <= a.fork_at < a.fork_size:
            ap.error("need 0 <= fork-at < fork-size")
        alt = make_leaves(a.fork_size, a.seed + 1_000_003)
        fork = hashes[:a.fork_at] + [leaf_hash(e) for e in alt[a.fork_at:]]
        write(a.fork_out, checkpoint(a.origin, key, a.fork_size, mth(fork, 0, a.fork_size)))

    print(vkey(a.origin, key))
    print(f"wrote {a.size} entries, {files} tile/bundle files, root {base64.b64encode(root).decode()}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Independently verify a C2SP tlog-tiles log of Birthmark leaves in a directory, with tlog-scales.

Uses the PyPI package tlog-scales (written against 0.0.3, https://github.com/florolf/tlog-scales)
in a throwaway venv, for instance:
    python3 -m venv /tmp/tsvenv && /tmp/tsvenv/bin/pip install tlog-scales==0.0.3
    /tmp/tsvenv/bin/python tlog_scales_check.py --vkey VKEY --dir DIR [--old FILE] [-n 20]

Same checks and refusals as tlogcheck/main.go: the checkpoint's log signature under the vkey
(and the log's own Ed25519 tlog-cosignature, type 0x04 under the same key, when present);
origin equals the key name; the root recomputed from the tiles equals the signed root; with
--full (default) every full hash tile is authenticated top-down against its parent tile (the
partial ones by the root) and every entry bundle must hash to its authenticated level-0 tile
(with --no-full, only those of the sampled entries); -n random entries plus the first and last
get inclusion proofs and --old a consistency proof, built by tlog-scales' TilesReader and
checked against the signed root(s). Exit 0 with one summary line, else exit 1 with the reason.

What tlog-scales 0.0.3 provides and what is added here (standard library only, no direct
`cryptography` use was needed since tlog-scales' own verifiers cover both signature types):
  * Vkey / Checkpoint.verify / Ed25519CosignatureVerifier: note signatures. It does not check
    that the vkey's key ID matches its key, nor the signed-note framing (it re-serializes the
    body, so extension lines are unsupported), so both are checked here.
  * TilesReader: reads tiles and bundles and builds proofs, but authenticates nothing: proofs
    are only as good as the subsequent InclusionProof.check / ConsistencyProof.check against
    the signed root, and a tile that no proof touches is never looked at. Hence AuthTiles
    below, which hashes each full tile itself (tlog-scales has no public tile-hash function).
  * It does not check tile lengths (a partial tile with extra hashes is accepted), nor the
    entry count of bundles; both are checked here.
"""
import argparse
import random
import sys
import time
from pathlib import Path

from tlog_scales import backend, signing, tiles, tlog
from tlog_scales.reader import Tile, TilesReader
from tlog_scales.utils import b64enc, sha256

LEAF_SIZE = 73  # imageHash(32) ‖ u64be(timestamp) ‖ u8(modification level) ‖ parentHash(32)
EMPTY_ROOT = sha256(b"")


class Fail(Exception):
    pass


def parse_vkey(text: str) -> tuple[signing.Vkey, signing.Vkey]:
    """The log's Ed25519 key (type 0x01) and the same key as a cosigner (type 0x04)."""
    try:
        vk = signing.Vkey.from_string(text)
    except Exception as e:
        raise Fail(f"vkey: {e!r}")
    if vk.sig_type != 1 or len(vk.pubkey) != 32:
        raise Fail("vkey: not an Ed25519 (0x01) key")
    # tlog-scales takes the key ID from the string as given: recompute it.
    if signing.Vkey(vk.name, None, 1, vk.pubkey).key_id != vk.key_id:
        raise Fail("vkey: key ID does not match the key")
    return vk, signing.Vkey(vk.name, None, 4, vk.pubkey)


def open_checkpoint(data: bytes, vk: signing.Vkey, cos: signing.Vkey) -> tuple[tlog.Checkpoint, str]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Fail("note is not UTF-8")
    # Signed-note framing (tlog-scales splits on any line break and re-serializes the body).
    if any(ord(c) < 0x20 and c != "\n" for c in text) or not text.endswith("\n"):
        raise Fail("malformed note")
    body, sep, sigs = text.rpartition("\n\n")
    if not sep or not sigs or any(not l.startswith("\u2014 ") for l in sigs[:-1].split("\n")):
        raise Fail("malformed note")
    if body.count("\n") != 2:  # tlog-scales cannot parse extension lines; Hallmark writes none
        raise Fail(f"note text has {body.count(chr(10)) + 1} lines, want exactly origin, size and root")
    try:
        cp = tlog.Checkpoint.from_text(text)
    except Exception as e:
        raise Fail(f"malformed checkpoint: {e!r}")
    if body + "\n" != cp.serialize_body():
        raise Fail("checkpoint body is not origin/size/root in canonical form (extension lines?)")
    if len(cp.root_hash) != 32:
        raise Fail("root hash is not 32 bytes")
    if cp.origin != vk.name:
        raise Fail(f"origin {cp.origin!r} is not the key name {vk.name!r}")
    # Log signature: Checkpoint.verify picks the signature matching name+key ID and checks it.
    try:
        cp.verify(vk)
    except Exception as e:
        raise Fail(f"no valid signature by the log key: {e!r}")
    # The log's own cosignature (same key, type 0x04), when present, must verify too; any other
    # signature (witnesses) is ignored as signed-note requires for unknown keys.
    cosig = "absent"
    for sig in cp.signatures:
        if cos.match(sig):
            try:
                cos.get_verifier().verify_note(sig, cp)
            except Exception as e:
                raise Fail(f"invalid log cosignature: {e!r}")
            cosig = f"verified(time {signing.Ed25519CosignatureVerifier.get_timestamp(sig.payload)})"
    return cp, cosig


def read(reader: TilesReader, level: int, n: int, width: int) -> tuple[bytes, bool]:
    """Raw tile/bundle bytes (width 256 = full), falling back to the full one if a partial one
    is missing (as tlog-tiles allows); the bool says whether that fallback was used."""
    data = reader.backend.get(*tiles.tile_path(level, n, width % 256))
    if data is None and width < 256:
        data = reader.backend.get(*tiles.tile_path(level, n))
        if data is not None:
            return data, True
    if data is None:
        raise Fail(f"missing {'/'.join(tiles.tile_path(level, n, width % 256))}")
    return data, False


def tile_hash(hashes: list[bytes]) -> bytes:
    """RFC 6962 MTH of a full tile's 256 hashes (the hash the level above holds for it)."""
    while len(hashes) > 1:
        hashes = [sha256(b"\x01" + hashes[i] + hashes[i + 1]) for i in range(0, len(hashes), 2)]
    return hashes[0]


class AuthTiles:
    """Hash tiles authenticated against the signed root: the partial (right-edge) tiles by the
    root recomputation (TilesReader.calculate_root_hash reads exactly their hashes), a full
    tile by hashing it to its entry in its authenticated parent tile. tlog-scales has no tile
    authentication, so this is done here with its Tile/tile_path helpers."""

    def __init__(self, reader: TilesReader, size: int):
        self.reader, self.size = reader, size
        self.tiles: dict[tuple[int, int], list[bytes]] = {}  # all but full level-0 tiles
        self.count = 0  # tiles authenticated

    def check_partials(self) -> None:
        """Call once the root recomputed from the tiles matched: keeps the partial tiles."""
        level = 0
        while self.size >> (8 * level):
            n, width = divmod(self.size >> (8 * level), 256)
            if width:
                data, fallback = read(self.reader, level, n, width)
                if fallback:
                    data = data[:width * 32]
                if len(data) != width * 32:  # tlog-scales would ignore extra hashes
                    raise Fail(f"partial tile {'/'.join(tiles.tile_path(level, n, width))} is "
                               f"{len(data)} bytes, want {width * 32}")
                self.tiles[(level, n)] = Tile.from_hash_bytes(data).entries
                self.count += 1
            level += 1

    def tile(self, level: int, n: int) -> list[bytes]:
        if (level, n) in self.tiles:
            return self.tiles[(level, n)]
        width = min(256, (self.size >> (8 * level)) - n * 256)
        if width <= 0:
            raise Fail(f"tile {level}/{n} is not in a tree of size {self.size}")
        if width < 256:
            raise Fail(f"partial tile {level}/{n} was not authenticated by the root")
        data, _ = read(self.reader, level, n, 256)
        path = "/".join(tiles.tile_path(level, n))
        if len(data) != 8192:
            raise Fail(f"full tile {path} is {len(data)} bytes, want 8192")
        hashes = Tile.from_hash_bytes(data).entries
        parent = self.tile(level + 1, n // 256)
        if tile_hash(hashes) != parent[n % 256]:
            raise Fail(f"tile {path} does not hash to its entry in "
                       f"{'/'.join(tiles.tile_path(level + 1, n // 256, len(parent) % 256))} (tampered tile)")
        self.count += 1
        if level:  # level-0 tiles are each needed once (by their bundle): don't keep them
            self.tiles[(level, n)] = hashes
        return hashes

    def sweep(self) -> None:
        """Authenticate every full tile above level 0 (check_bundle does level 0)."""
        level = 1
        while self.size >> (8 * level) >= 256:
            for n in range((self.size >> (8 * level)) // 256):
                self.tile(level, n)
            level += 1


def bundle_entries(reader: TilesReader, size: int, n: int) -> list[bytes]:
    width = min(256, size - n * 256)
    data, fallback = read(reader, -1, n, width)
    try:
        entries = Tile.from_entries_bytes(data).entries
    except Exception as e:
        raise Fail(f"entry bundle {n}: {e!r}")
    if len(entries) != width and not (fallback and len(entries) == 256):
        raise Fail(f"entry bundle {n} has {len(entries)} entries, want {width}")
    return entries[:width]


def check_bundle(reader: TilesReader, auth: AuthTiles, size: int, n: int) -> None:
    hashes = auth.tile(0, n)
    for j, e in enumerate(bundle_entries(reader, size, n)):
        if len(e) != LEAF_SIZE:
            raise Fail(f"entry {n * 256 + j} is {len(e)} bytes, want {LEAF_SIZE}")
        if tiles.leaf_hash(e) != hashes[j]:
            raise Fail(f"entry {n * 256 + j} does not hash to level-0 tile {n}")


def prove_entry(reader: TilesReader, cp: tlog.Checkpoint, i: int) -> None:
    entry = bundle_entries(reader, cp.size, i // 256)[i % 256]
    try:
        reader.get_inclusion_proof(i, cp.size).check(tiles.leaf_hash(entry), cp.root_hash)
    except Exception as e:
        raise Fail(f"entry {i}: inclusion proof does not verify against the signed root: {e!r}")


def prove_consistency(reader: TilesReader, cp: tlog.Checkpoint, old: tlog.Checkpoint) -> None:
    if old.size > cp.size:
        raise Fail("old checkpoint is larger than the current one")
    if old.size == 0:  # tlog-scales' proof builder cannot handle old size 0
        if old.root_hash != EMPTY_ROOT:
            raise Fail("old empty tree has a root other than SHA-256('')")
        return
    try:
        reader.get_consistency_proof(old.size, cp.size).check(old.root_hash, cp.root_hash)
    except Exception as e:
        raise Fail(f"INCONSISTENT (fork or rewritten history): {e!r}")


def run(a) -> str:
    vk, cos = parse_vkey(a.vkey)
    reader = TilesReader(backend.LocalBackend(Path(a.dir)))
    cp_data = reader.backend.get("checkpoint")
    if cp_data is None:
        raise Fail(f"no checkpoint in {a.dir}")
    cp, cosig = open_checkpoint(cp_data, vk, cos)
    reader.set_size(cp.size)

    if reader.calculate_root_hash() != cp.root_hash:
        raise Fail("root recomputed from the tiles differs from the signed root")
    auth = AuthTiles(reader, cp.size)
    auth.check_partials()

    nbundles = 0
    if a.full:
        auth.sweep()
        for n in range((cp.size + 255) // 256):
            check_bundle(reader, auth, cp.size, n)
            nbundles += 1

    proved = 0
    if cp.size:
        rng = random.Random(a.seed)
        picks = [0, cp.size - 1] + [rng.randrange(cp.size) for _ in range(a.n)]
        checked = set()
        for i in picks:
            if not a.full and i // 256 not in checked:
                check_bundle(reader, auth, cp.size, i // 256)
                checked.add(i // 256)
                nbundles += 1
            prove_entry(reader, cp, i)
            proved += 1

    consistency = "no --old"
    if a.old:
        try:
            old_data = Path(a.old).read_bytes()
        except OSError as e:
            raise Fail(f"old checkpoint: {e}")
        try:
            old, _ = open_checkpoint(old_data, vk, cos)
        except Fail as e:
            raise Fail(f"old checkpoint {a.old}: {e}")
        try:
            prove_consistency(reader, cp, old)
        except Fail as e:
            raise Fail(f"old checkpoint {a.old} (size {old.size}) vs checkpoint (size {cp.size}): {e}")
        consistency = f"consistent with old size {old.size}"

    return (f"origin={cp.origin} size={cp.size} root={b64enc(cp.root_hash)} cosig={cosig} "
            f"tiles={auth.count} bundles={nbundles} inclusion-proofs={proved} {consistency} (seed {a.seed})")


def main() -> int:
    ap = argparse.ArgumentParser(description="Verify a C2SP tlog-tiles log directory with tlog-scales.")
    ap.add_argument("--vkey", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--old", help="earlier checkpoint file to prove consistency with")
    ap.add_argument("-n", type=int, default=20, help="random entries to prove (plus first and last)")
    ap.add_argument("--full", action=argparse.BooleanOptionalAction, default=True,
                    help="authenticate every tile and entry bundle (default on)")
    ap.add_argument("--seed", type=int, default=None, help="random seed for choosing entries")
    a = ap.parse_args()
    if a.n < 0:
        ap.error("-n must be >= 0")
    if a.seed is None:
        a.seed = time.time_ns()
    try:
        summary = run(a)
    except Fail as e:
        print(f"tlog_scales_check: FAIL: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # anything unexpected in tlog-scales or here is a refusal, not a pass
        print(f"tlog_scales_check: FAIL: unexpected {e!r}", file=sys.stderr)
        return 1
    print(f"tlog_scales_check: OK: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

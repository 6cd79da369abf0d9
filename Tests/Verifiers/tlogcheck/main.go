// Command tlogcheck independently verifies a C2SP tlog-tiles log of Birthmark leaves kept in a
// directory, using only golang.org/x/mod/sumdb/note and golang.org/x/mod/sumdb/tlog (Debian's
// golang-golang-x-mod-dev) and the Go standard library. Build offline in GOPATH mode:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=/tmp/gocache GOPROXY=off \
//	    go build -o /tmp/tlogcheck Tests/Verifiers/tlogcheck/main.go
//	/tmp/tlogcheck -vkey <vkey> -dir DIR [-old OLDCHECKPOINT] [-n 20] [-full=true] [-seed S]
//
// Checks: the checkpoint note's log signature under the vkey (and the log's own
// tlog-cosignature, type 0x04 under the same key, when present); origin equals the key name;
// the right-edge tiles reproduce the signed root (tlog.TreeHash over tlog.TileHashReader);
// with -full (default) every full hash tile is authenticated top-down against its parent tile
// and every entry bundle must hash to its authenticated level-0 tile (without -full, only the
// bundles and tiles of the sampled entries); -n random entries plus the first and last get
// tlog.ProveRecord/CheckRecord inclusion proofs and -old a tlog.ProveTree/CheckTree
// consistency proof, both built from tlog.TileHashReader and checked against the signed
// root(s). Exit 0 with one summary line, else exit 1 with the reason.
package main

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

const (
	tileHeight = 8
	tileWidth  = 1 << tileHeight
	leafSize   = 73 // imageHash(32) ‖ u64be(timestamp) ‖ u8(modification level) ‖ parentHash(32)
)

func main() {
	vkey := flag.String("vkey", "", "log verifier key <origin>+<hex keyID>+<b64(0x01 ‖ pubkey)>")
	dir := flag.String("dir", "", "log directory holding checkpoint and tile/")
	old := flag.String("old", "", "earlier checkpoint file to prove consistency with (optional)")
	n := flag.Int("n", 20, "random entries to prove inclusion of (plus the first and last)")
	full := flag.Bool("full", true, "read and authenticate every tile and entry bundle of the tree")
	seed := flag.Int64("seed", 0, "random seed for choosing entries (0: time-based)")
	flag.Parse()
	if *vkey == "" || *dir == "" || flag.NArg() != 0 || *n < 0 {
		fmt.Fprintln(os.Stderr, "usage: tlogcheck -vkey VKEY -dir DIR [-old FILE] [-n 20] [-full=true] [-seed S]")
		os.Exit(2)
	}
	if *seed == 0 {
		*seed = time.Now().UnixNano()
	}
	summary, err := run(*vkey, *dir, *old, *n, *full, *seed)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tlogcheck: FAIL: %v\n", err)
		os.Exit(1)
	}
	fmt.Println("tlogcheck: OK: " + summary)
}

// checkpoint is a verified checkpoint note's body.
type checkpoint struct {
	origin string
	tree   tlog.Tree
	cosig  string // "verified(time T)" or "absent"
}

func run(vkey, dir, oldPath string, n int, full bool, seed int64) (string, error) {
	keys, err := makeVerifiers(vkey)
	if err != nil {
		return "", err
	}
	msg, err := os.ReadFile(filepath.Join(dir, "checkpoint"))
	if err != nil {
		return "", err
	}
	cp, err := openCheckpoint(msg, keys)
	if err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	tree := cp.tree

	tr := &dirTileReader{dir: dir}
	hr := tlog.TileHashReader(tree, tr)
	auth := &authTiles{tree: tree, tr: tr, data: map[tlog.Tile][]byte{}}
	if tree.N == 0 {
		if tree.Hash != emptyRoot() {
			return "", errors.New("checkpoint: empty tree with a root other than SHA-256(\"\")")
		}
	} else {
		// The right-edge (partial) tiles: TreeHash reads exactly those, in one ReadTiles
		// batch, and TileHashReader checks all of their hashes against tree.Hash.
		tr.last = nil
		th, err := tlog.TreeHash(tree.N, hr)
		if err != nil {
			return "", fmt.Errorf("tree hash from tiles: %w", err)
		}
		if th != tree.Hash {
			return "", fmt.Errorf("tiles give root %v, checkpoint says %v", th, tree.Hash)
		}
		for t, d := range tr.last {
			auth.data[t] = d
			auth.count++
		}
	}

	bundles := 0
	if full {
		// Every full hash tile above level 0, authenticated top-down against its parent
		// (checkBundle authenticates each level-0 tile).
		for level := 1; tree.N>>(tileHeight*level) >= tileWidth; level++ {
			for t := int64(0); t < (tree.N>>(tileHeight*level))/tileWidth; t++ {
				if _, err := auth.tile(level, t); err != nil {
					return "", err
				}
			}
		}
		for b := int64(0); b*tileWidth < tree.N; b++ {
			if err := checkBundle(tree, auth, tr, b); err != nil {
				return "", err
			}
			bundles++
		}
	}

	proved := 0
	if tree.N > 0 {
		rng := rand.New(rand.NewSource(seed))
		picks := []int64{0, tree.N - 1}
		for i := 0; i < n; i++ {
			picks = append(picks, rng.Int63n(tree.N))
		}
		checked := map[int64]bool{}
		for _, i := range picks {
			if !full && !checked[i/tileWidth] {
				if err := checkBundle(tree, auth, tr, i/tileWidth); err != nil {
					return "", err
				}
				checked[i/tileWidth] = true
				bundles++
			}
			if err := proveEntry(tree, hr, tr, i); err != nil {
				return "", err
			}
			proved++
		}
	}

	consistency := "no -old"
	if oldPath != "" {
		oldMsg, err := os.ReadFile(oldPath)
		if err != nil {
			return "", err
		}
		oldCP, err := openCheckpoint(oldMsg, keys)
		if err != nil {
			return "", fmt.Errorf("old checkpoint %s: %w", oldPath, err)
		}
		if err := proveConsistency(tree, oldCP.tree, hr); err != nil {
			return "", fmt.Errorf("old checkpoint %s (size %d) vs checkpoint (size %d): %w",
				oldPath, oldCP.tree.N, tree.N, err)
		}
		consistency = fmt.Sprintf("consistent with old size %d", oldCP.tree.N)
	}

	return fmt.Sprintf("origin=%s size=%d root=%v cosig=%s tiles=%d bundles=%d inclusion-proofs=%d %s (seed %d)",
		cp.origin, tree.N, tree.Hash, cp.cosig, auth.count, bundles, proved, consistency, seed), nil
}

// makeVerifiers returns the log's Ed25519 note verifier (type 0x01, from the vkey) and a
// verifier of the log's tlog-cosignature (type 0x04) under the same name and public key;
// x/mod/sumdb/note has no cosignature verifier, so that one is implemented here.
type logKeys struct {
	list note.Verifiers
	log  note.Verifier
	cos  *cosigVerifier
}

func makeVerifiers(vkey string) (*logKeys, error) {
	logV, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, fmt.Errorf("vkey: %w", err)
	}
	parts := strings.SplitN(vkey, "+", 3)
	key, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil || len(key) != 1+ed25519.PublicKeySize || key[0] != 1 {
		return nil, errors.New("vkey: not an Ed25519 (0x01) key")
	}
	pub := ed25519.PublicKey(key[1:])
	h := sha256.Sum256(append([]byte(logV.Name()+"\n\x04"), pub...))
	cosV := &cosigVerifier{name: logV.Name(), hash: binary.BigEndian.Uint32(h[:4]), pub: pub}
	return &logKeys{list: note.VerifierList(logV, cosV), log: logV, cos: cosV}, nil
}

// cosigVerifier verifies a C2SP tlog-cosignature/v1 (Ed25519, type 0x04):
// sig = u64be(timestamp) ‖ Ed25519("cosignature/v1\ntime <timestamp>\n" ‖ note text).
type cosigVerifier struct {
	name string
	hash uint32
	pub  ed25519.PublicKey
	time uint64 // timestamp of the last signature verified
}

func (v *cosigVerifier) Name() string    { return v.name }
func (v *cosigVerifier) KeyHash() uint32 { return v.hash }
func (v *cosigVerifier) Verify(msg, sig []byte) bool {
	if len(sig) != 8+ed25519.SignatureSize {
		return false
	}
	ts := binary.BigEndian.Uint64(sig[:8])
	if ts > 1<<63-1 {
		return false
	}
	signed := append([]byte(fmt.Sprintf("cosignature/v1\ntime %d\n", ts)), msg...)
	if !ed25519.Verify(v.pub, signed, sig[8:]) {
		return false
	}
	v.time = ts
	return true
}

// openCheckpoint verifies the note (signatures by unknown keys, e.g. witnesses, are ignored;
// a bad signature by a known key is an error) and parses origin, size and root.
func openCheckpoint(msg []byte, keys *logKeys) (*checkpoint, error) {
	nt, err := note.Open(msg, keys.list)
	if err != nil {
		return nil, err
	}
	name := keys.log.Name()
	signedByLog, cosigned := false, false
	for _, s := range nt.Sigs {
		signedByLog = signedByLog || s.Hash == keys.log.KeyHash()
		cosigned = cosigned || s.Hash == keys.cos.hash
	}
	if !signedByLog {
		return nil, errors.New("no signature by the log key (type 0x01)")
	}
	lines := strings.Split(nt.Text, "\n") // Text ends in "\n", so the last element is ""
	if len(lines) != 4 {
		// tlog-checkpoint allows extension lines; Hallmark writes none (and tlog-scales,
		// used by the other verifier, cannot check them), so both verifiers refuse them.
		return nil, fmt.Errorf("note text has %d lines, want exactly origin, size and root", len(lines)-1)
	}
	cp := &checkpoint{origin: lines[0], cosig: "absent"}
	if cp.origin != name {
		return nil, fmt.Errorf("origin %q is not the key name %q", cp.origin, name)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		return nil, fmt.Errorf("bad tree size %q", lines[1])
	}
	root, err := base64.StdEncoding.Strict().DecodeString(lines[2])
	if err != nil || len(root) != tlog.HashSize {
		return nil, fmt.Errorf("bad root hash %q", lines[2])
	}
	cp.tree.N = size
	copy(cp.tree.Hash[:], root)
	if cosigned {
		cp.cosig = fmt.Sprintf("verified(time %d)", keys.cos.time)
	}
	return cp, nil
}

// proveEntry reads entry i from its bundle and proves its inclusion under the signed root.
func proveEntry(tree tlog.Tree, hr tlog.HashReader, tr *dirTileReader, i int64) error {
	entries, err := tr.readBundle(tree, i/tileWidth)
	if err != nil {
		return err
	}
	entry := entries[i%tileWidth]
	leaf := tlog.RecordHash(entry)
	proof, err := tlog.ProveRecord(tree.N, i, hr)
	if err != nil {
		return fmt.Errorf("entry %d: building inclusion proof: %w", i, err)
	}
	if err := tlog.CheckRecord(proof, tree.N, tree.Hash, i, leaf); err != nil {
		return fmt.Errorf("entry %d: inclusion proof does not verify against the signed root: %w", i, err)
	}
	return nil
}

// checkBundle checks that entry bundle b holds exactly the entries whose RFC 6962 leaf hashes
// are the (authenticated) hashes of level-0 tile b.
func checkBundle(tree tlog.Tree, auth *authTiles, tr *dirTileReader, b int64) error {
	entries, err := tr.readBundle(tree, b)
	if err != nil {
		return err
	}
	tile, err := auth.tile(0, b)
	if err != nil {
		return err
	}
	for j, e := range entries {
		if len(e) != leafSize {
			return fmt.Errorf("entry %d is %d bytes, want %d", b*tileWidth+int64(j), len(e), leafSize)
		}
		var h tlog.Hash
		copy(h[:], tile[j*tlog.HashSize:])
		if tlog.RecordHash(e) != h {
			return fmt.Errorf("entry %d (bundle %s) does not hash to level-0 tile %d",
				b*tileWidth+int64(j), bundlePath(b, tree), b)
		}
	}
	return nil
}

// proveConsistency proves that oldTree is a prefix of tree.
func proveConsistency(tree, oldTree tlog.Tree, hr tlog.HashReader) error {
	switch {
	case oldTree.N > tree.N:
		return errors.New("old checkpoint is larger than the current one")
	case oldTree.N == 0:
		if oldTree.Hash != emptyRoot() {
			return errors.New("old empty tree has a root other than SHA-256(\"\")")
		}
		return nil
	}
	proof, err := tlog.ProveTree(tree.N, oldTree.N, hr)
	if err != nil {
		return fmt.Errorf("building consistency proof: %w", err)
	}
	if err := tlog.CheckTree(proof, tree.N, tree.Hash, oldTree.N, oldTree.Hash); err != nil {
		return fmt.Errorf("INCONSISTENT (fork or rewritten history): %w", err)
	}
	return nil
}

// authTiles holds hash tiles authenticated against the signed root. It exists because
// x/mod's tileHashReader (v0.7.0, and upstream at the time of writing) can return hashes from
// tiles it never checked: its "authenticate full tiles against their parents" loop starts at
// len(stx), the number of right-edge subtree hashes, not at the number of distinct right-edge
// tiles, so when several of those hashes share a tile (e.g. size 70000) the first few extra
// tiles are skipped. Proofs built from it are still sound (CheckRecord/CheckTree recompute the
// signed root), but the bundle-vs-tile comparison needs tiles authenticated independently.
type authTiles struct {
	tree  tlog.Tree
	tr    *dirTileReader
	data  map[tlog.Tile][]byte // all but full level-0 tiles (each is needed once, by its bundle)
	count int                  // tiles authenticated
}

// tile returns level-L tile n of the tree, authenticated: partial tiles are the right edge
// checked by TreeHash; a full tile must hash to its entry in its (authenticated) parent.
func (a *authTiles) tile(level int, n int64) ([]byte, error) {
	count := a.tree.N >> (tileHeight * level) // hashes at this tile level
	t := tlog.Tile{H: tileHeight, L: level, N: n, W: tileWidth}
	if rest := count - n*tileWidth; rest < tileWidth {
		t.W = int(rest)
	}
	if t.W <= 0 {
		return nil, fmt.Errorf("tile %d/%d is not in a tree of size %d", level, n, a.tree.N)
	}
	if d, ok := a.data[t]; ok {
		return d, nil
	}
	if t.W < tileWidth {
		return nil, fmt.Errorf("partial tile %s was not authenticated by the tree hash", c2spPath(level, n, t.W))
	}
	d, err := a.tr.ReadTiles([]tlog.Tile{t})
	if err != nil {
		return nil, err
	}
	parent, err := a.tile(level+1, n/tileWidth)
	if err != nil {
		return nil, err
	}
	pt := tlog.Tile{H: tileHeight, L: level + 1, N: n / tileWidth, W: len(parent) / tlog.HashSize}
	want, err := tlog.HashFromTile(pt, parent, tlog.StoredHashIndex(tileHeight*(level+1), n))
	if err != nil {
		return nil, err
	}
	if fullTileHash(d[0]) != want {
		return nil, fmt.Errorf("tile %s does not hash to its entry in tile %s (tampered tile)",
			c2spPath(level, n, tileWidth), c2spPath(level+1, pt.N, pt.W))
	}
	a.count++
	if level > 0 {
		a.data[t] = d[0]
	}
	return d[0], nil
}

// fullTileHash is the RFC 6962 hash of the 256-leaf subtree whose leaves a full tile lists.
func fullTileHash(data []byte) tlog.Hash {
	hs := make([]tlog.Hash, len(data)/tlog.HashSize)
	for i := range hs {
		copy(hs[i][:], data[i*tlog.HashSize:])
	}
	for len(hs) > 1 {
		for i := 0; i < len(hs)/2; i++ {
			hs[i] = tlog.NodeHash(hs[2*i], hs[2*i+1])
		}
		hs = hs[:len(hs)/2]
	}
	return hs[0]
}

func emptyRoot() tlog.Hash { return tlog.Hash(sha256.Sum256(nil)) }

// dirTileReader is a tlog.TileReader over C2SP paths in a directory:
// tlog.Tile{H: 8, L, N, W} -> DIR/tile/<L>/<N>[.p/<W>], L = -1 -> DIR/tile/entries/<N>[.p/<W>].
// If a partial tile is missing the full tile is read and cut to width (tlog-tiles allows
// this fallback). Nothing read here is trusted until checked against the signed root.
type dirTileReader struct {
	dir  string
	last map[tlog.Tile][]byte // the tiles of the latest ReadTiles call
}

func (r *dirTileReader) Height() int { return tileHeight }

func (r *dirTileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	r.last = map[tlog.Tile][]byte{}
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		if t.H != tileHeight || t.L < 0 || t.W < 1 || t.W > tileWidth {
			return nil, fmt.Errorf("unexpected tile request %+v", t)
		}
		data, path, fallback, err := r.read(t.L, t.N, t.W)
		if err != nil {
			return nil, err
		}
		want := t.W * tlog.HashSize
		if fallback && len(data) == tileWidth*tlog.HashSize {
			data = data[:want] // a full tile read in place of a missing partial one
		}
		if len(data) != want {
			return nil, fmt.Errorf("tile %s is %d bytes, want %d", path, len(data), want)
		}
		out[i] = data
		r.last[t] = data
	}
	return out, nil
}

func (r *dirTileReader) SaveTiles(tiles []tlog.Tile, data [][]byte) {}

// read reads level L (-1: entries) tile N of width W; if a partial one is missing it reads
// the full tile instead and reports fallback.
func (r *dirTileReader) read(level int, n int64, w int) (data []byte, path string, fallback bool, err error) {
	path = filepath.Join(r.dir, c2spPath(level, n, w))
	data, err = os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && w < tileWidth {
		fullPath := filepath.Join(r.dir, c2spPath(level, n, tileWidth))
		if fullData, ferr := os.ReadFile(fullPath); ferr == nil {
			return fullData, fullPath, true, nil
		}
	}
	if err != nil {
		return nil, path, false, fmt.Errorf("missing tile: %w", err)
	}
	return data, path, false, nil
}

// readBundle reads and parses entry bundle b of tree (u16be length ‖ entry, repeated).
func (r *dirTileReader) readBundle(tree tlog.Tree, b int64) ([][]byte, error) {
	w := bundleWidth(tree, b)
	data, path, fallback, err := r.read(-1, b, w)
	if err != nil {
		return nil, err
	}
	var entries [][]byte
	for len(data) > 0 && len(entries) < w {
		if len(data) < 2 || len(data) < 2+int(binary.BigEndian.Uint16(data)) {
			return nil, fmt.Errorf("entry bundle %s is truncated", path)
		}
		l := int(binary.BigEndian.Uint16(data))
		entries = append(entries, data[2:2+l])
		data = data[2+l:]
	}
	if len(entries) != w {
		return nil, fmt.Errorf("entry bundle %s has %d entries, want %d", path, len(entries), w)
	}
	// Only a full bundle read in place of a missing partial one may hold more entries.
	if len(data) > 0 && !fallback {
		return nil, fmt.Errorf("entry bundle %s has %d trailing bytes", path, len(data))
	}
	return entries, nil
}

func bundleWidth(tree tlog.Tree, b int64) int {
	if rest := tree.N - b*tileWidth; rest < tileWidth {
		return int(rest)
	}
	return tileWidth
}

func bundlePath(b int64, tree tlog.Tree) string { return c2spPath(-1, b, bundleWidth(tree, b)) }

// c2spPath is the tlog-tiles path of a tile: tile/<L|entries>/<N as x001/x234/067>[.p/<W>].
func c2spPath(level int, n int64, w int) string {
	nStr := fmt.Sprintf("%03d", n%1000)
	for n >= 1000 {
		n /= 1000
		nStr = fmt.Sprintf("x%03d/%s", n%1000, nStr)
	}
	l := strconv.Itoa(level)
	if level < 0 {
		l = "entries"
	}
	p := "tile/" + l + "/" + nStr
	if w < tileWidth {
		p += ".p/" + strconv.Itoa(w)
	}
	return filepath.FromSlash(p)
}

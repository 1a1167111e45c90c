// Command go-verifier checks the ledger's checkpoints and proofs with an
// implementation nobody on the project wrote: Go's golang.org/x/mod/sumdb
// note (C2SP signed notes) and tlog (RFC 6962 proofs), as Debian packages them.
// That note package knows only note signatures (type 0x01), so witnesses'
// cosignatures (c2sp.org/tlog-cosignature, type 0x04) are checked here with
// crypto/ed25519 over the message the specification defines.
//
// It reads one JSON document on stdin:
//
//	{ "vkey": "<verifier key>", "checkpoint": "<signed note>",
//	  "records": [{ "index": 0, "leaf": "<base64 leaf bytes>", "proof": ["<base64>", ...] }],
//	  "older": { "size": 1, "root": "<base64>", "proof": ["<base64>", ...] },
//	  "witnesses": [{ "vkey": "<cosigner verifier key>" }],
//	  "tiles": { "tile/0/000": "<base64 tile bytes>", ... } }
//
// "older", "witnesses" and "tiles" are optional; each witness listed must
// have a valid cosignature on the checkpoint. With tiles (hash tiles of
// height 8, as a tlog-tiles server gave them for the checkpoint's tree),
// tlog's own tile reader computes the tree's root from them, which must be
// the checkpoint's, and every record's proof from them, which must be the
// record's. It prints "verified <n> records in
// <origin> at size <size>" on success, then "cosigned by <name> at <time>"
// for each witness; on any failure it prints the reason on stderr and exits 1.
package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type record struct {
	Index int64    `json:"index"`
	Leaf  string   `json:"leaf"`
	Proof []string `json:"proof"`
}

type input struct {
	VKey       string `json:"vkey"`
	Checkpoint string `json:"checkpoint"`
	Records    []record `json:"records"`
	Older *struct {
		Size  int64    `json:"size"`
		Root  string   `json:"root"`
		Proof []string `json:"proof"`
	} `json:"older"`
	Tiles     map[string]string `json:"tiles"`
	Witnesses []struct {
		VKey string `json:"vkey"`
	} `json:"witnesses"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		return fmt.Errorf("input: %v", err)
	}
	verifier, err := note.NewVerifier(in.VKey)
	if err != nil {
		return fmt.Errorf("verifier key: %v", err)
	}
	opened, err := note.Open([]byte(in.Checkpoint), note.VerifierList(verifier))
	if err != nil {
		return fmt.Errorf("checkpoint: %v", err)
	}
	lines := strings.Split(opened.Text, "\n")
	if len(lines) != 4 || lines[3] != "" {
		return fmt.Errorf("checkpoint: not three lines")
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		return fmt.Errorf("checkpoint size: %v", err)
	}
	root, err := hashOf(lines[2])
	if err != nil {
		return fmt.Errorf("checkpoint root: %v", err)
	}
	for _, record := range in.Records {
		leaf, err := base64.StdEncoding.DecodeString(record.Leaf)
		if err != nil {
			return fmt.Errorf("record %d leaf: %v", record.Index, err)
		}
		proof, err := hashesOf(record.Proof)
		if err != nil {
			return fmt.Errorf("record %d proof: %v", record.Index, err)
		}
		if err := tlog.CheckRecord(tlog.RecordProof(proof), size, root, record.Index, tlog.RecordHash(leaf)); err != nil {
			return fmt.Errorf("record %d: %v", record.Index, err)
		}
	}
	if in.Older != nil {
		older, err := hashOf(in.Older.Root)
		if err != nil {
			return fmt.Errorf("older root: %v", err)
		}
		proof, err := hashesOf(in.Older.Proof)
		if err != nil {
			return fmt.Errorf("older proof: %v", err)
		}
		if err := tlog.CheckTree(tlog.TreeProof(proof), size, root, in.Older.Size, older); err != nil {
			return fmt.Errorf("consistency with size %d: %v", in.Older.Size, err)
		}
	}
	if in.Tiles != nil {
		if err := checkTiles(in.Tiles, size, root, in.Records); err != nil {
			return fmt.Errorf("tiles: %v", err)
		}
	}
	fmt.Printf("verified %d records in %s at size %d\n", len(in.Records), lines[0], size)
	for _, witness := range in.Witnesses {
		name, timestamp, err := checkCosignature(witness.VKey, opened)
		if err != nil {
			return fmt.Errorf("witness %s: %v", witness.VKey, err)
		}
		fmt.Printf("cosigned by %s at %d\n", name, timestamp)
	}
	return nil
}

const cosignatureV1 = 0x04

// checkCosignature finds the cosignature of the witness with verifier key
// vkey (<name>+<hex key ID>+base64(0x04 || public key)) among the note's
// signatures, which note.Open left unverified, and checks it.
func checkCosignature(vkey string, n *note.Note) (string, uint64, error) {
	parts := strings.SplitN(vkey, "+", 3)
	if len(parts) != 3 {
		return "", 0, fmt.Errorf("malformed verifier key")
	}
	name := parts[0]
	key, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil || len(key) != 1+ed25519.PublicKeySize || key[0] != cosignatureV1 {
		return "", 0, fmt.Errorf("not an Ed25519 cosignature verifier key")
	}
	id := sha256.Sum256(append([]byte(name+"\n"), key...))
	keyID := binary.BigEndian.Uint32(id[:4])
	if parts[1] != fmt.Sprintf("%08x", keyID) {
		return "", 0, fmt.Errorf("the key ID does not match the name and key")
	}
	for _, sig := range n.UnverifiedSigs {
		if sig.Name != name || sig.Hash != keyID {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(sig.Base64)
		if err != nil || len(raw) != 4+8+ed25519.SignatureSize {
			return "", 0, fmt.Errorf("malformed cosignature")
		}
		timestamp := binary.BigEndian.Uint64(raw[4:12])
		var message bytes.Buffer
		fmt.Fprintf(&message, "cosignature/v1\ntime %d\n%s", timestamp, n.Text)
		if !ed25519.Verify(ed25519.PublicKey(key[1:]), message.Bytes(), raw[12:]) {
			return "", 0, fmt.Errorf("the cosignature does not verify")
		}
		return name, timestamp, nil
	}
	return "", 0, fmt.Errorf("no cosignature")
}

func hashOf(text string) (tlog.Hash, error) {
	var hash tlog.Hash
	bytes, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return hash, err
	}
	if len(bytes) != tlog.HashSize {
		return hash, fmt.Errorf("a hash is %d bytes, not %d", tlog.HashSize, len(bytes))
	}
	copy(hash[:], bytes)
	return hash, nil
}

func hashesOf(texts []string) ([]tlog.Hash, error) {
	hashes := make([]tlog.Hash, len(texts))
	for i, text := range texts {
		hash, err := hashOf(text)
		if err != nil {
			return nil, err
		}
		hashes[i] = hash
	}
	return hashes, nil
}

// tiles serves tlog's TileHashReader the tiles given, by path.
type tiles map[string][]byte

func (t tiles) Height() int { return 8 }

func (t tiles) ReadTiles(wanted []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(wanted))
	for i, tile := range wanted {
		// Go's sumdb paths carry the height (tile/8/L/N); tlog-tiles' do not (tile/L/N).
		path := strings.Replace(tile.Path(), "tile/8/", "tile/", 1)
		data, ok := t[path]
		if !ok {
			return nil, fmt.Errorf("no tile %s", path)
		}
		out[i] = data
	}
	return out, nil
}

func (t tiles) SaveTiles([]tlog.Tile, [][]byte) {}

func checkTiles(given map[string]string, size int64, root tlog.Hash, records []record) error {
	t := tiles{}
	for path, text := range given {
		data, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		t[path] = data
	}
	reader := tlog.TileHashReader(tlog.Tree{N: size, Hash: root}, t)
	computed, err := tlog.TreeHash(size, reader)
	if err != nil {
		return err
	}
	if computed != root {
		return fmt.Errorf("the tiles make another root")
	}
	for _, r := range records {
		proof, err := tlog.ProveRecord(size, r.Index, reader)
		if err != nil {
			return fmt.Errorf("record %d: %v", r.Index, err)
		}
		if len(proof) != len(r.Proof) {
			return fmt.Errorf("record %d: the tiles prove it with %d hashes, the log with %d", r.Index, len(proof), len(r.Proof))
		}
		for i, hash := range proof {
			if base64.StdEncoding.EncodeToString(hash[:]) != r.Proof[i] {
				return fmt.Errorf("record %d: the tiles prove it otherwise", r.Index)
			}
		}
	}
	return nil
}

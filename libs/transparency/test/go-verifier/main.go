// Command go-verifier checks the ledger's checkpoints and proofs with an
// implementation nobody on the project wrote: Go's golang.org/x/mod/sumdb
// note (C2SP signed notes) and tlog (RFC 6962 proofs), as Debian packages them.
//
// It reads one JSON document on stdin:
//
//	{ "vkey": "<verifier key>", "checkpoint": "<signed note>",
//	  "records": [{ "index": 0, "leaf": "<base64 leaf bytes>", "proof": ["<base64>", ...] }],
//	  "older": { "size": 1, "root": "<base64>", "proof": ["<base64>", ...] } }
//
// and prints "verified <n> records in <origin> at size <size>" on success;
// on any failure it prints the reason on stderr and exits 1.
package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type input struct {
	VKey       string `json:"vkey"`
	Checkpoint string `json:"checkpoint"`
	Records    []struct {
		Index int64    `json:"index"`
		Leaf  string   `json:"leaf"`
		Proof []string `json:"proof"`
	} `json:"records"`
	Older *struct {
		Size  int64    `json:"size"`
		Root  string   `json:"root"`
		Proof []string `json:"proof"`
	} `json:"older"`
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
	fmt.Printf("verified %d records in %s at size %d\n", len(in.Records), lines[0], size)
	return nil
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

// Command go-tiles names and reads tile paths with Go's
// golang.org/x/mod/sumdb/tlog, an implementation nobody on the project
// wrote, for the ledger's tiles.ts to be compared with. Go writes the height
// into its paths (tile/8/<L>/...); c2sp.org/tlog-tiles fixes it at 8 and
// leaves it out, so it is added and removed here.
//
// It reads one JSON document on stdin:
//
//	{ "tiles": [{ "level": 0, "index": 1234067, "width": 8 }],
//	  "paths": ["0/x001/x234/067.p/8"],
//	  "sizes": [70000] }
//
// and prints one:
//
//	{ "paths": ["tile/0/x001/x234/067.p/8"],   Tile.Path() of each tile
//	  "parsed": [{ ... } or null],              ParseTilePath of each path
//	  "existing": [[{ ... }]] }                 the tiles a tree of each size has
//
// where a tree's tiles are the full ones of NewTiles(8, 0, size) and the
// partial ones of NewTiles(8, size, size).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"golang.org/x/mod/sumdb/tlog"
)

const height = 8

type tile struct {
	Level int   `json:"level"`
	Index int64 `json:"index"`
	Width int   `json:"width"`
}

func main() {
	var in struct {
		Tiles []tile   `json:"tiles"`
		Paths []string `json:"paths"`
		Sizes []int64  `json:"sizes"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "input:", err)
		os.Exit(1)
	}
	out := struct {
		Paths    []string `json:"paths"`
		Parsed   []*tile  `json:"parsed"`
		Existing [][]tile `json:"existing"`
	}{Paths: []string{}, Parsed: []*tile{}, Existing: [][]tile{}}
	for _, t := range in.Tiles {
		path := tlog.Tile{H: height, L: t.Level, N: t.Index, W: t.Width}.Path()
		out.Paths = append(out.Paths, "tile/"+strings.TrimPrefix(path, fmt.Sprintf("tile/%d/", height)))
	}
	for _, path := range in.Paths {
		t, err := tlog.ParseTilePath(fmt.Sprintf("tile/%d/%s", height, path))
		if err != nil || t.L < 0 {
			out.Parsed = append(out.Parsed, nil)
			continue
		}
		out.Parsed = append(out.Parsed, &tile{Level: t.L, Index: t.N, Width: t.W})
	}
	for _, size := range in.Sizes {
		tiles := []tile{}
		for _, t := range tlog.NewTiles(height, 0, size) {
			if t.W == 1<<height {
				tiles = append(tiles, tile{Level: t.L, Index: t.N, Width: t.W})
			}
		}
		for _, t := range tlog.NewTiles(height, size, size) {
			tiles = append(tiles, tile{Level: t.L, Index: t.N, Width: t.W})
		}
		out.Existing = append(out.Existing, tiles)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "output:", err)
		os.Exit(1)
	}
}

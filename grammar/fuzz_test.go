package grammar

import (
	"testing"
)

// The fuzz targets assert what must hold for any input: no panic, and
// results that respect the limits they were given.

func FuzzParsePlacement(f *testing.F) {
	for _, s := range []string{"0-3", "all", "0-1:0-3,3-5,7:7-9", " 0-3 , ", "0:1:2", "0-3:", "-1", "a-b", "0--1", "0-3:all", ":0-3", "All:0-15", "0,,2", "0-999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		parts, err := ParsePlacement(s, 1000)
		if err != nil {
			if err.Offset < 0 || err.Offset > len(s) {
				t.Fatalf("error offset %d outside %q", err.Offset, s)
			}
			return
		}
		for _, p := range parts {
			if p.Off < 0 || p.EndOff > len(s) || p.Off > p.EndOff {
				t.Fatalf("part offsets %d-%d outside %q", p.Off, p.EndOff, s)
			}
			for _, r := range []*Range{p.Res, p.Proc} {
				if r != nil && (r.Start > 1000 || r.End > 1000) {
					t.Fatalf("rank beyond the limit accepted in %q", s)
				}
			}
		}
	})
}

func FuzzParseRankList(f *testing.F) {
	for _, s := range []string{"0-3,5", "", "all", "ALL", " 0 - 1 , 3", "1_0", "0,all", "3-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ranges, _, err := ParseRankList(s, 1000)
		if err != nil {
			return
		}
		for _, r := range ranges {
			if r.Start > 1000 || r.End > 1000 || r.Start < 0 {
				t.Fatalf("rank out of bounds accepted in %q", s)
			}
		}
	})
}

func FuzzParseNames(f *testing.F) {
	for _, s := range []string{"actor, env,rollout", "actor,", "", ",,", " a , b "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, n := range ParseNames(s) {
			if n.Off < 0 || n.EndOff > len(s) || s[n.Off:n.EndOff] != n.Text {
				t.Fatalf("name %+v does not match its offsets in %q", n, s)
			}
		}
	})
}

func FuzzLoadInventory(f *testing.F) {
	f.Add([]byte("nodes:\n  - ranks: 0-1\n    hostnames: n[0-1]\n    accelerators: {count: 8}\n"))
	f.Add([]byte("inventory:\n  nodes:\n    - rank: 0\n      accelerators: 0\n      hardware: {Franka: 2}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := DefaultLimits
		lim.MaxClusterNodes = 256
		inv, _ := LoadInventory("fuzz.yaml", data, lim)
		if inv != nil && len(inv.Nodes) > lim.MaxClusterNodes {
			t.Fatalf("%d nodes, over the limit", len(inv.Nodes))
		}
	})
}

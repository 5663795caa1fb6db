// Package fuzzy finds near-miss names for "did you mean" hints.
package fuzzy

import (
	"slices"
	"strings"
)

// Nearest returns the candidate within edit distance 2 of s (the closest,
// first on ties), or "" when none is that close. A case-insensitive exact
// match wins, since labels and types are case-sensitive in RLinf.
func Nearest(s string, candidates []string) string {
	for _, c := range candidates {
		if c != s && strings.EqualFold(s, c) {
			return c
		}
	}
	best, bestD := "", 3
	for _, c := range candidates {
		if d := Distance(s, c); d < bestD && c != s {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the Levenshtein distance, capped for long strings so that a
// hostile input cannot make it quadratic in a large string.
func Distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// NearOrAll is names, or, when none starts with what was typed, the
// nearest name (did you mean), which shells that match loosely offer.
func NearOrAll(names []string, typed string) []string {
	if typed == "" || slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, typed) }) {
		return names
	}
	if near := Nearest(typed, names); near != "" {
		return []string{near}
	}
	return names
}

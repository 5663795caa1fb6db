package grammar

import (
	"fmt"
	"strings"
)

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsInt(list []int, x int) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

func joinQuoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, " and ")
}

// rangeText renders sorted ranks compactly: [0-3, 5].
func rangeText(r []int) string {
	var parts []string
	for i := 0; i < len(r); {
		j := i
		for j+1 < len(r) && r[j+1] == r[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, fmt.Sprint(r[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", r[i], r[j]))
		}
		i = j + 1
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

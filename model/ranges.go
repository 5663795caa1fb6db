package model

import (
	"strconv"
	"strings"
)

// RangeText renders sorted ranks compactly for messages: [0-3, 5].
func RangeText(r []int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; i < len(r); {
		j := i
		for j+1 < len(r) && r[j+1] == r[j]+1 {
			j++
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(r[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(r[j]))
		}
		i = j + 1
	}
	b.WriteByte(']')
	return b.String()
}

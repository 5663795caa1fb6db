package model

import "testing"

func TestOffsetSpan(t *testing.T) {
	data := []byte("{\n  \"a\": \"é1\",\n  \"b\": 2\n}")
	tests := []struct {
		off, n int
		want   Span
	}{
		{0, 1, Span{File: "f", Line: 1, Col: 1, EndLine: 1, EndCol: 2}},
		{4, 3, Span{File: "f", Line: 2, Col: 3, EndLine: 2, EndCol: 6}},         // "a"
		{9, 5, Span{File: "f", Line: 2, Col: 8, EndLine: 2, EndCol: 12}},        // "é1": 4 characters in 5 bytes
		{23, 1, Span{File: "f", Line: 3, Col: 8, EndLine: 3, EndCol: 9}},        // 2
		{9, 100, Span{File: "f", Line: 2, Col: 8, EndLine: 2, EndCol: 13}},      // cut at the end of the line
		{0, 0, Span{File: "f", Line: 1, Col: 1, EndLine: 1, EndCol: 2}},         // at least one character
		{len(data), 1, Span{File: "f", Line: 4, Col: 2, EndLine: 4, EndCol: 3}}, // the end of the text
		{-1, 1, Span{File: "f"}},
		{len(data) + 1, 1, Span{File: "f"}},
	}
	for _, tt := range tests {
		if got := OffsetSpan("f", data, tt.off, tt.n); got != tt.want {
			t.Errorf("OffsetSpan(%d, %d) = %+v, want %+v", tt.off, tt.n, got, tt.want)
		}
	}
}

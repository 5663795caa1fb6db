package render

import (
	"bytes"
	"strings"
	"testing"
	"text/tabwriter"
)

// TestWriteAlignedIsTabwriter: the two-pass writer lays a table out
// byte for byte as text/tabwriter (minwidth 2, padding 2) does.
func TestWriteAlignedIsTabwriter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header []string
		rows   [][]string
	}{
		{"no rows", []string{"  RANK", "NODE", "ACCEL"}, nil},
		{"widths from rows and header", []string{"  RANK", "NODE", "HOST", "ACCEL"}, [][]string{
			{"  0", "0", "a800-0.cluster.example", "NV_GPU"},
			{"  10", "12", "-", ""},
			{"  1234567", "3", "h", "NPU"},
		}},
		{"one-letter cells (minwidth)", []string{"A", "B", "C"}, [][]string{{"x", "y", "z"}, {"", "", ""}}},
		{"runes, not bytes", []string{"  RANK", "HOST", "GROUP"}, [][]string{
			{"  0", "nœud-é", "gpu"},
			{"  1", "n", "机器人组"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want bytes.Buffer
			tw := tabwriter.NewWriter(&want, 2, 4, 2, ' ', 0)
			tw.Write([]byte(strings.Join(tc.header, "\t") + "\n"))
			for _, r := range tc.rows {
				tw.Write([]byte(strings.Join(r, "\t") + "\n"))
			}
			if err := tw.Flush(); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			calls := 0
			err := writeAligned(&got, tc.header, len(tc.rows), func(j int, cells []string) ([]string, error) {
				calls++
				return append(cells, tc.rows[j]...), nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("got\n%s\nwant (tabwriter)\n%s", got.String(), want.String())
			}
			if calls != 2*len(tc.rows) {
				t.Errorf("%d row calls for %d rows: each row is read twice, not held", calls, len(tc.rows))
			}
		})
	}
}

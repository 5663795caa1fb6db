package raytest

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseLayout(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Node
		err      string
	}{
		{"script's", "10.77.0.10 0\n10.77.0.9 2\n10.77.0.100 3\n10.77.0.11 1\n",
			[]Node{{"10.77.0.10", 0}, {"10.77.0.9", 2}, {"10.77.0.100", 3}, {"10.77.0.11", 1}}, ""},
		{"loopback", "127.0.0.2 1\n127.0.0.3 0\n", []Node{{"127.0.0.2", 1}, {"127.0.0.3", 0}}, ""},
		{"empty", "", nil, "no nodes"},
		{"one field", "10.0.0.1\n", nil, `line 1: want "IP RANK"`},
		{"bad IP", "10.0.0.300 0\n", nil, "line 1: ParseAddr"},
		{"bad rank", "10.0.0.1 x\n", nil, `line 1: rank "x"`},
		{"rank gap", "10.0.0.1 0\n10.0.0.2 2\n", nil, "ranks are not 0..1"},
		{"rank twice", "10.0.0.1 0\n10.0.0.2 0\n", nil, "ranks are not 0..1"},
		{"IP twice", "10.0.0.1 0\n10.0.0.1 1\n", nil, "IP 10.0.0.1 twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseLayout(strings.NewReader(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestParseLayoutBoundsItsInput(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 10*maxNodes; i++ {
		b.WriteString("10.0.0.1 0\n")
	}
	if _, err := parseLayout(strings.NewReader(b.String())); err == nil {
		t.Fatal("a layout far past maxNodes was accepted")
	}
}

func FuzzParseLayout(f *testing.F) {
	f.Add("10.77.0.10 0\n10.77.0.9 2\n10.77.0.100 3\n10.77.0.11 1\n")
	f.Add("127.0.0.2 0\n")
	f.Add("::1 0\n")
	f.Fuzz(func(t *testing.T, in string) {
		nodes, err := parseLayout(strings.NewReader(in))
		if err != nil {
			return
		}
		if len(nodes) == 0 || len(nodes) > maxNodes {
			t.Fatalf("%d nodes accepted", len(nodes))
		}
		if err := distinct(nodes); err != nil {
			t.Fatalf("accepted a layout that is not distinct: %v", err)
		}
	})
}

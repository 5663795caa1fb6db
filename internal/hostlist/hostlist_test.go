package hostlist

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Expand expands Slurm-style host lists, keeping zero padding.
func TestExpand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"a800-[0-7]", []string{"a800-0", "a800-1", "a800-2", "a800-3", "a800-4", "a800-5", "a800-6", "a800-7"}},
		{"node[01-04,09]", []string{"node01", "node02", "node03", "node04", "node09"}},
		{"gpu1,gpu2", []string{"gpu1", "gpu2"}},
		{"10.0.0.[1-3]", []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"}},
		{"a[1-2]b[1-2]", []string{"a1b1", "a1b2", "a2b1", "a2b2"}},
		{"x[1-2],y", []string{"x1", "x2", "y"}},
		{" a , b ", []string{"a", "b"}},
		{"n[008-010]", []string{"n008", "n009", "n010"}},
		{"n[1 - 2]", []string{"n1", "n2"}},
		{"", nil},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Expand(tc.in, 100)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestExpandRejected(t *testing.T) {
	for _, in := range []string{"a[1-", "a]", "a[3-1]", "a[x]", "a[-1]", "a[1-2", "a[]", "a[1,,2]", "a[1234567890]"} {
		if got, err := Expand(in, 100); err == nil {
			t.Errorf("%q accepted: %v", in, got)
		}
	}
}

// Beyond max the expansion is refused before allocating, however large the
// range or product is.
func TestExpandLimit(t *testing.T) {
	for _, tc := range []struct {
		in  string
		max int
	}{
		{"n[1-10]", 5},
		{"a,b,c", 2},
		{"n[0-999999999]", 100},
		{"a[0-99999]b[0-99999]", 1000},
		{"a[0-9]b[0-9]", 99},
		{"a[0-9],b[0-9]", 15},
	} {
		t.Run(tc.in, func(t *testing.T) {
			start := time.Now()
			got, err := Expand(tc.in, tc.max)
			if err == nil {
				t.Fatalf("accepted %d names", len(got))
			}
			if time.Since(start) > time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			if !strings.Contains(err.Error(), "more than") {
				t.Errorf("error %q should say the list is too long", err)
			}
		})
	}
}

// Number lists: srun's task lists and Linux CPU lists.
func TestRanges(t *testing.T) {
	for in, want := range map[string]string{
		"3":          "[3]",
		"0-2":        "[0 1 2]",
		"0,2-3":      "[0 2 3]",
		"0-2,5,7-7":  "[0 1 2 5 7]",
		" 1 , 4-5 ":  "[1 4 5]",
		"x":          "error",
		"0-2,x":      "error",
		"9-8":        "error",
		"":           "error",
		"1,,2":       "error",
		"-1":         "error",
		"0-99999999": "error", // over the limit
	} {
		got, err := Ranges(in, 1000)
		s := fmt.Sprint(got)
		if err != nil {
			s = "error"
		}
		if s != want {
			t.Errorf("Ranges(%q) = %s (%v), want %s", in, s, err, want)
		}
	}
}

func TestContains(t *testing.T) {
	for _, tc := range []struct {
		list string
		x    int
		want bool
	}{
		{"0-15,32-47", 40, true}, {"0-15,32-47", 16, false}, {"7", 7, true}, {"0-999999999", 123456789, true}, {"junk", 0, false},
	} {
		if got := Contains(tc.list, tc.x); got != tc.want {
			t.Errorf("Contains(%q, %d) = %v", tc.list, tc.x, got)
		}
	}
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"a800-[0-7]", "node[01-04,09]", "a,b", "10.0.0.[1-8]", "x[1-2]y[3-4]", "[", "a]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		names, err := Expand(s, 64)
		if err == nil && len(names) > 64 {
			t.Fatalf("%q expanded to %d names, over the limit", s, len(names))
		}
	})
}

func FuzzRanges(f *testing.F) {
	for _, s := range []string{"0-3,5", "7", "0-15,32-47", "9-8", ",", "1-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		xs, err := Ranges(s, 64)
		if err == nil && len(xs) > 64 {
			t.Fatalf("%q expanded to %d numbers, over the limit", s, len(xs))
		}
		for _, x := range xs {
			if !Contains(s, x) {
				t.Fatalf("%q expands to %d but does not contain it", s, x)
			}
		}
	})
}

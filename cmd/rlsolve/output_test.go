package main

import "testing"

func TestCheckOutput(t *testing.T) {
	for _, c := range []struct {
		output  string
		formats []string
		usedFor string
		want    string // "" when accepted
	}{
		{"json", checkOutputs, "", ""},
		{"bogus", checkOutputs, "", `--output must be text, short, json or sarif, not "bogus"`},
		{"svg", slimeOutputs, "a slime layout", `--output must be table, json, yaml or env for a slime layout, not "svg"`},
		{"svg", planOutputs, "", ""},
		{"xml", []string{"yaml"}, "", `--output must be yaml, not "xml"`},
	} {
		err := checkOutput(c.output, c.formats, c.usedFor)
		if got := errText(err); got != c.want {
			t.Errorf("%s of %v: %q, want %q", c.output, c.formats, got, c.want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

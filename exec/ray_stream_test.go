package exec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newTestStream is a stream over two workers' logs and the driver's; in
// dir, or nowhere when dir is "" (the fuzz target: no files per input).
func newTestStream(t testing.TB, dir string) (*rayStream, *output, *output, *[]rayEvent, string) {
	open := func(name string) *workerLog {
		if dir == "" {
			return &workerLog{}
		}
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return &workerLog{f: f, path: f.Name()}
	}
	var out, errOut output
	var evs []rayEvent
	s := &rayStream{sink: &lineSink{out: &out, err: &errOut}, driver: open("driver.log"),
		logs: map[string]*workerLog{"a/0": open("a-0.log"), "b c/1": open("b_c-1.log")}, onEvent: func(ev rayEvent) { evs = append(evs, ev) }}
	return s, &out, &errOut, &evs, dir
}

func TestRayStream(t *testing.T) {
	s, out, errOut, evs, dir := newTestStream(t, t.TempDir())
	long := strings.Repeat("x", MaxLine+10)
	for _, c := range []string{"a/0: one\nb c/1: ", "two\n", rayMark + `{"event":"all"}` + "\n", rayMark + "not json\n",
		"x/9: unknown worker\n", "a/0:no space\n", long, "\n", "a/0: last"} {
		s.write(c)
	}
	s.flush()
	s.sink.close()
	if len(*evs) != 1 || (*evs)[0].Event != "all" {
		t.Errorf("events %+v", *evs)
	}
	if got := out.String(); got != "a/0: one\nb c/1: two\na/0: last\n" {
		t.Errorf("stdout %q", got)
	}
	wantErr := rayMark + "not json\nx/9: unknown worker\na/0:no space\n" + long[:MaxLine] + "\n" + long[MaxLine:] + "\n"
	if got := errOut.String(); got != wantErr {
		t.Errorf("stderr has %d bytes, want %d", len(got), len(wantErr))
	}
	for name, want := range map[string]string{"a-0.log": "one\nlast\n", "b_c-1.log": "two\n", "driver.log": wantErr} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("%s: %d bytes, want %d", name, len(b), len(want))
		}
	}
}

// FuzzRayStream: any log, cut anywhere, is passed on whole (every byte
// but the newlines reaches stdout or stderr, unless it was an event), and
// no event's report makes the backend panic.
func FuzzRayStream(f *testing.F) {
	f.Add(driverLog(okReport), 3)
	f.Add(rayMark+`{"event":"report","report":{"workers":[{"exit_code":null}]}}`+"\n", 1)
	f.Add("a/0: \xff\xfe\n", 2)
	f.Fuzz(func(t *testing.T, log string, n int) {
		if n <= 0 || n > len(log)+1 {
			n = len(log) + 1
		}
		s, out, errOut, evs, _ := newTestStream(t, "")
		_ = chunked(log, n)(nil, func(c string) error { s.write(c); return nil })
		s.flush()
		s.sink.close()
		nonNL := func(x string) int { return len(x) - strings.Count(x, "\n") }
		got, want := nonNL(out.String())+nonNL(errOut.String()), nonNL(log)
		if len(*evs) == 0 && got != want || got > want {
			t.Fatalf("passed on %d bytes of %d (%d events)", got, want, len(*evs))
		}
		for _, ev := range *evs {
			if ev.Report != nil {
				rep := &Report{}
				_ = applyRayReport(rep, ev.Report, nil, 0)
			}
		}
	})
}

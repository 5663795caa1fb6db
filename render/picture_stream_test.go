package render_test

import (
	"io"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/render"
)

// heapPeak runs write and returns how far the heap grew above what it was
// before, at its highest: sampled while write runs, with the collector
// set to run at 10% growth so that garbage does not hide what is held.
func heapPeak(write func() error) (int64, error) {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop, done := make(chan struct{}), make(chan struct{})
	var peak uint64
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	err := write()
	close(stop)
	<-done
	return int64(peak) - int64(before.HeapAlloc), err
}

// TestPicturesStream: the SVG and the HTML page of the 8,192-GPU plan
// (1,024 nodes, 22,528 workers) are streamed as the JSON document is: the
// heap grows by the picture's layout of runs and a node index, and a row
// at a time, not by a row, a worker's details or an environment per worker
// (65,536 nodes took 2.5 GB for the SVG and 3.8 GB for the page). The
// bytes are those of before: the golden files and the examples' pictures.
func TestPicturesStream(t *testing.T) {
	if testing.Short() {
		t.Skip("a large plan")
	}
	in := scaleInput(t, 8192)
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{"svg", func(w io.Writer) error { return render.SVG(w, in, render.Options{}) }},
		{"html", func(w io.Writer) error { return render.HTML(w, in, render.Options{}) }},
	} {
		// The least of three runs: what the writer holds shows in every
		// run, while another test's garbage (HeapAlloc is the process's)
		// shows in some.
		grew := int64(1 << 62)
		for range 3 {
			g, err := heapPeak(func() error { return f.write(io.Discard) })
			if err != nil {
				t.Fatal(err)
			}
			grew = min(grew, g)
		}
		// 22,528 workers: 256 bytes each would be 5.5 MB (it held 2 KB each).
		if grew > 5632<<10 {
			t.Errorf("%s: the heap grew by %d KB while the picture was written", f.name, grew>>10)
		} else {
			t.Logf("%s: the heap grew by %d KB while the picture was written", f.name, grew>>10)
		}
	}
}

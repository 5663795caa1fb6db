package textedit

import (
	"os"
	"os/signal"
	"syscall"
)

// guardTemp removes the temporary file tmp when SIGINT or SIGTERM arrives
// before stop is called, then lets the signal end the process as it would
// have. A signal the process ignores (nohup) stays ignored. A SIGKILL
// cannot be caught; removeStale cleans up after it on the next write.
func guardTemp(tmp string) (stop func()) {
	var sigs []os.Signal
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	if len(sigs) == 0 {
		return func() {} // Notify with no signal would relay every signal
	}
	ch := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(ch, sigs...)
	go func() {
		select {
		case s := <-ch:
			os.Remove(tmp)
			signal.Stop(ch)
			raise(s)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

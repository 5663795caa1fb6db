package pipeline

import (
	"github.com/rlsolve/rlsolve/policy"
)

// finish orders the diagnostics by position and applies the policy once,
// for every command: the command line's settings (opt.Policy), then the
// .rlsolve.yaml beside the file (read only when opt.Policy is set: the
// CLI's), then the file's own `# rlsolve:` comments, which apply whoever
// checks the file. data is the file's bytes (nil for --slime flags alone).
func (o *Outcome) finish(file string, data []byte, opt Options) {
	o.Diagnostics.Sort()
	p := opt.Policy
	if p != nil && file != "" {
		s, name, text, ds := policy.Beside(file)
		p = p.Below(s)
		if text != nil {
			o.Sources[name] = text
		}
		o.Diagnostics = append(ds, o.Diagnostics...)
	}
	if data != nil {
		s, ds := policy.Comments(file, data)
		p = p.Below(s)
		o.Diagnostics = append(o.Diagnostics, ds...)
		o.Diagnostics.Sort()
	}
	o.Diagnostics, o.Allowed = p.Apply(o.Diagnostics)
	if o.Diagnostics.HasErrors() {
		// A malformed `# rlsolve:` comment, or a warning it or --strict
		// denies, fails the input after its plan was made: a plan never
		// comes back with errors (FuzzCheck found one).
		o.Result = nil
	}
}

// Package policy decides which diagnostics fail a check and which are
// shown: codes allowed (dropped from the output and the exit status) or
// denied (a warning or note made an error), and the strict switch (every
// warning denied). Three sources say so, and this is the one place that
// combines them:
//
//   - the command line: --allow CODE, --deny CODE, --strict (and --quiet,
//     which shows errors only);
//   - the .rlsolve.yaml nearest the config (Find): allow: [CODE...],
//     deny: [CODE...], strict: true|false (and inventory: FILE, which the
//     command line reads);
//   - the config's own comments: `# rlsolve: allow CODE...`, `# rlsolve:
//     deny CODE...`, `# rlsolve: strict` (the file named on the command
//     line only, not the files its Hydra defaults list composes: those are
//     shared building blocks, and a comment in one would change the policy
//     of every config that composes it).
//
// For a code, the first source that names it decides: the command line,
// then .rlsolve.yaml, then the comments. A code that no source names is
// denied when it is a warning and strict is on (strict, too, is decided by
// the first source that sets it). So `--strict` in CI fails every warning
// except those a config allows by name, with the reason beside it, as a
// compiler's in-source allow beats a command-line -D warnings.
//
// Errors cannot be allowed: RLinf refuses those configs, or rlsolve has
// decided (spec §10) that a run would fail. Denying an error changes
// nothing.
package policy

import (
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/model"
)

// Level is what a setting does to a code.
type Level int

const (
	Allow Level = iota + 1 // dropped from the output and the exit status
	Deny                   // a warning or note made an error
)

func (l Level) String() string {
	if l == Deny {
		return "deny"
	}
	return "allow"
}

// Setting is one code allowed or denied, and who said so, in the words a
// message cites ("--deny RLS-W0105").
type Setting struct {
	Code  string
	Level Level
	By    string
}

// Settings are what one source says.
type Settings struct {
	Codes []Setting
	// Strict, when not nil, denies every warning no setting names; StrictBy
	// says who set it.
	Strict   *bool
	StrictBy string
	// Inventory is .rlsolve.yaml's inventory: (a path relative to the
	// working directory, or a Ray URL); "" when it names none.
	Inventory string
}

// Policy is the settings of every source, the first winning, and whether
// only errors are shown. The zero Policy changes nothing.
type Policy struct {
	// Quiet drops warnings and notes from the output (after denied ones
	// became errors).
	Quiet   bool
	sources []Settings
}

// New is the policy of the command line's settings.
func New(flags Settings, quiet bool) *Policy {
	return &Policy{Quiet: quiet, sources: []Settings{flags}}
}

// Loud returns a copy of p that shows warnings and notes (nil for nil):
// what --fix checks with, since --quiet hides warnings but does not spare
// them a fix.
func (p *Policy) Loud() *Policy {
	if p == nil {
		return nil
	}
	q := p.Below()
	q.Quiet = false
	return q
}

// Below returns a copy of p with s added after its sources: s decides only
// what they leave open.
func (p *Policy) Below(s ...Settings) *Policy {
	q := &Policy{}
	if p != nil {
		q.Quiet = p.Quiet
		q.sources = append(q.sources, p.sources...)
	}
	q.sources = append(q.sources, s...)
	return q
}

// decide is what the policy does to code: the level and who said it (0
// when nothing does).
func (p *Policy) decide(code string, sev model.Severity) (Level, string) {
	for _, s := range p.sources {
		for _, c := range s.Codes {
			if c.Code == code {
				return c.Level, c.By
			}
		}
	}
	if sev != model.SeverityWarning {
		return 0, ""
	}
	for _, s := range p.sources {
		if s.Strict != nil {
			if *s.Strict {
				return Deny, s.StrictBy
			}
			return 0, ""
		}
	}
	return 0, ""
}

// Apply returns the diagnostics the policy keeps, denied ones made errors
// (Denied says by what), and the codes it allowed away, one per diagnostic,
// so the summary can say what was allowed. Quiet drops what is left below
// an error. An error is never allowed away.
func (p *Policy) Apply(ds model.Diagnostics) (model.Diagnostics, []string) {
	if p == nil {
		return ds, nil
	}
	out := make(model.Diagnostics, 0, len(ds))
	var allowed []string
	for _, d := range ds {
		if d.Severity != model.SeverityError {
			switch lvl, by := p.decide(d.Code, d.Severity); lvl {
			case Allow:
				allowed = append(allowed, d.Code)
				continue
			case Deny:
				d.Severity, d.Denied = model.SeverityError, by
			}
		}
		if p.Quiet && d.Severity != model.SeverityError {
			continue
		}
		out = append(out, d)
	}
	return out, allowed
}

// Code is a diagnostic code as `rlsolve explain` takes it (any case, with
// or without RLS-) in its canonical form, or an error naming the nearest
// code. Errors cannot be allowed.
func Code(text string, lvl Level) (string, error) {
	e, ok := diag.Explain(text)
	if !ok {
		if near := nearestCode(text); near != "" {
			return "", fmt.Errorf("unknown diagnostic code %q: did you mean %s?", text, near)
		}
		return "", fmt.Errorf("unknown diagnostic code %q ('rlsolve explain' lists them)", text)
	}
	if lvl == Allow && IsError(e.Code) {
		return "", fmt.Errorf("%s is an error, and errors cannot be allowed: only warnings and notes can", e.Code)
	}
	return e.Code, nil
}

// nearestCode is the known code nearest to text, "" when none is near.
func nearestCode(text string) string {
	var codes []string
	for _, c := range diag.Codes() {
		codes = append(codes, c.Code)
	}
	canon := strings.ToUpper(strings.TrimSpace(text))
	if !strings.HasPrefix(canon, "RLS-") {
		canon = "RLS-" + canon
	}
	return fuzzy.Nearest(canon, codes)
}

// IsError reports whether a canonical code is an error's (RLS-E...).
func IsError(code string) bool { return strings.HasPrefix(code, "RLS-E") }

// FromFlags is the command line's settings: --allow and --deny (each
// repeatable, a value may list codes separated by commas), and --strict
// when it was given (strict is nil when not).
func FromFlags(allow, deny []string, strict *bool) (Settings, error) {
	var s Settings
	for _, l := range []struct {
		lvl   Level
		texts []string
	}{{Allow, allow}, {Deny, deny}} {
		for _, v := range l.texts {
			for _, t := range splitCodes(v) {
				code, err := Code(t, l.lvl)
				if err != nil {
					return Settings{}, fmt.Errorf("--%s: %w", l.lvl, err)
				}
				if err := s.add(Setting{Code: code, Level: l.lvl, By: fmt.Sprintf("--%s %s", l.lvl, code)}); err != nil {
					return Settings{}, err
				}
			}
		}
	}
	if strict != nil {
		s.Strict, s.StrictBy = strict, "--strict"
	}
	return s, nil
}

// add records a setting; a code allowed and denied in one source is an
// error, a repeat is kept once.
func (s *Settings) add(c Setting) error {
	for _, o := range s.Codes {
		if o.Code == c.Code {
			if o.Level != c.Level {
				return fmt.Errorf("%s is both allowed and denied (%s, %s)", c.Code, o.By, c.By)
			}
			return nil
		}
	}
	s.Codes = append(s.Codes, c)
	return nil
}

// splitCodes splits a list of codes at commas and spaces.
func splitCodes(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}

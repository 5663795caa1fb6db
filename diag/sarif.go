package diag

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	// InformationURI is where SARIF viewers send people who ask about the tool.
	InformationURI = "https://github.com/rlsolve/rlsolve"
)

// The SARIF types hold only what rlsolve fills in; field names follow the
// SARIF 2.1.0 schema.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool sarifTool `json:"tool"`
	// Columns are those of model.Span: bytes, which equal code points on
	// the ASCII lines configs are written in.
	ColumnKind string        `json:"columnKind"`
	Results    []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string        `json:"id"`
	Name             string        `json:"name,omitempty"`
	ShortDescription sarifMessage  `json:"shortDescription"`
	FullDescription  *sarifMessage `json:"fullDescription,omitempty"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId"`
	RuleIndex        int             `json:"ruleIndex"`
	Level            string          `json:"level"`
	Message          sarifMessage    `json:"message"`
	Locations        []sarifLocation `json:"locations,omitempty"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
	Fixes            []sarifFix      `json:"fixes,omitempty"`
	Properties       *sarifProps     `json:"properties,omitempty"`
}

// sarifProps carries what SARIF has no field for: the why sentence and fixes
// that have no edits (a SARIF fix needs at least one change).
type sarifProps struct {
	Why  string   `json:"why,omitempty"`
	Help []string `json:"help,omitempty"`
	// DeniedBy names the setting that made a warning an error.
	DeniedBy string `json:"deniedBy,omitempty"`
}

type sarifLocation struct {
	ID               *int                   `json:"id,omitempty"`
	PhysicalLocation *sarifPhysicalLocation `json:"physicalLocation,omitempty"`
	Message          *sarifMessage          `json:"message,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

type sarifFix struct {
	Description     sarifMessage          `json:"description"`
	ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
}

type sarifArtifactChange struct {
	ArtifactLocation sarifArtifact      `json:"artifactLocation"`
	Replacements     []sarifReplacement `json:"replacements"`
}

type sarifReplacement struct {
	DeletedRegion   sarifRegion   `json:"deletedRegion"`
	InsertedContent *sarifMessage `json:"insertedContent,omitempty"`
}

// SARIF writes the diagnostics as a SARIF 2.1.0 log with one run, for code
// scanning dashboards. Every code used gets a rule, described from the
// explanation registry.
func SARIF(w io.Writer, ds []model.Diagnostic, toolVersion string) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:           "rlsolve",
			Version:        toolVersion,
			InformationURI: InformationURI,
			Rules:          []sarifRule{},
		}},
		ColumnKind: "unicodeCodePoints",
		Results:    []sarifResult{},
	}
	ruleIndex := map[string]int{}
	for _, d := range ds {
		idx, ok := ruleIndex[d.Code]
		if !ok {
			idx = len(run.Tool.Driver.Rules)
			ruleIndex[d.Code] = idx
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleFor(d))
		}
		run.Results = append(run.Results, sarifResultFor(d, idx))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}

func sarifRuleFor(d model.Diagnostic) sarifRule {
	r := sarifRule{ID: d.Code, ShortDescription: sarifMessage{Text: d.Code}}
	if e, ok := Explain(d.Code); ok {
		r.Name = ruleName(e.Title)
		r.ShortDescription.Text = e.Title
		r.FullDescription = &sarifMessage{Text: e.Text}
	}
	return r
}

// ruleName turns a title into the PascalCase identifier SARIF suggests for
// rule names.
func ruleName(title string) string {
	var b strings.Builder
	for _, f := range strings.FieldsFunc(title, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) {
		b.WriteString(strings.ToUpper(f[:1]) + f[1:])
	}
	return b.String()
}

func sarifResultFor(d model.Diagnostic, idx int) sarifResult {
	res := sarifResult{
		RuleID:    d.Code,
		RuleIndex: idx,
		Level:     sarifLevel(d.Severity),
		Message:   sarifMessage{Text: d.Summary},
	}
	if pl := sarifPhysical(d.Primary, ""); pl != nil {
		loc := sarifLocation{PhysicalLocation: pl}
		if d.PrimaryLabel != "" {
			loc.Message = &sarifMessage{Text: d.PrimaryLabel}
		}
		res.Locations = []sarifLocation{loc}
	}
	for i, l := range d.Labels {
		id := i + 1
		res.RelatedLocations = append(res.RelatedLocations, sarifLocation{
			ID:               &id,
			PhysicalLocation: sarifPhysical(l.Span, d.Primary.File),
			Message:          &sarifMessage{Text: l.Message},
		})
	}
	props := sarifProps{Why: d.Why, DeniedBy: d.Denied}
	for _, f := range d.Help {
		if fx, ok := sarifFixFor(f, d.Primary.File); ok {
			res.Fixes = append(res.Fixes, fx)
		} else if f.Message != "" {
			props.Help = append(props.Help, f.Message)
		}
	}
	if props.Why != "" || len(props.Help) > 0 || props.DeniedBy != "" {
		res.Properties = &props
	}
	return res
}

// sarifFixFor groups a fix's located edits by file; it reports false when no
// edit has a position, since SARIF cannot express such a fix.
func sarifFixFor(f model.Fix, defaultFile string) (sarifFix, bool) {
	fx := sarifFix{Description: sarifMessage{Text: f.Message}}
	byURI := map[string]int{}
	for _, e := range f.Edits {
		sp := e.Span
		if sp.File == "" {
			sp.File = defaultFile
		}
		if !sp.Known() || sp.File == "" {
			continue
		}
		sp = norm(sp)
		uri := fileURI(sp.File)
		i, ok := byURI[uri]
		if !ok {
			i = len(fx.ArtifactChanges)
			byURI[uri] = i
			fx.ArtifactChanges = append(fx.ArtifactChanges, sarifArtifactChange{ArtifactLocation: sarifArtifact{URI: uri}})
		}
		rep := sarifReplacement{DeletedRegion: regionOf(sp)}
		if e.NewText != "" {
			rep.InsertedContent = &sarifMessage{Text: e.NewText}
		}
		fx.ArtifactChanges[i].Replacements = append(fx.ArtifactChanges[i].Replacements, rep)
	}
	return fx, len(fx.ArtifactChanges) > 0
}

func sarifPhysical(sp model.Span, defaultFile string) *sarifPhysicalLocation {
	if sp.File == "" && sp.Known() {
		sp.File = defaultFile
	}
	if sp.File == "" {
		return nil
	}
	pl := &sarifPhysicalLocation{ArtifactLocation: sarifArtifact{URI: fileURI(sp.File)}}
	if sp.Known() {
		r := regionOf(norm(sp))
		pl.Region = &r
	}
	return pl
}

func regionOf(sp model.Span) sarifRegion {
	return sarifRegion{StartLine: sp.Line, StartColumn: sp.Col, EndLine: sp.EndLine, EndColumn: sp.EndCol}
}

func sarifLevel(s model.Severity) string {
	switch s {
	case model.SeverityError:
		return "error"
	case model.SeverityWarning:
		return "warning"
	default:
		return "note"
	}
}

// fileURI turns a path into a SARIF URI: relative paths stay relative (the
// viewer resolves them against the checkout), absolute ones become file URIs,
// and characters such as spaces are escaped.
func fileURI(p string) string {
	p = filepath.ToSlash(p)
	if filepath.IsAbs(filepath.FromSlash(p)) || strings.HasPrefix(p, "/") {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // a Windows drive path, C:/x
		}
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}

package grammar

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// sglangServerGroup and sglangModel are the parts of slime's --sglang-config
// YAML that place engines.
type sglangServerGroup struct {
	WorkerType       string `yaml:"worker_type"`
	NumGPUs          int    `yaml:"num_gpus"`
	NumGPUsPerEngine int    `yaml:"num_gpus_per_engine"`
}

type sglangModel struct {
	Name             string              `yaml:"name"`
	NumGPUsPerEngine int                 `yaml:"num_gpus_per_engine"`
	ServerGroups     []sglangServerGroup `yaml:"server_groups"`
	EngineGroups     []sglangServerGroup `yaml:"engine_groups"`
}

// sglangConfig reads --sglang-config's YAML (written by the script, else
// on disk beside it) and, when its groups are engines of one size with
// prefill groups first, plans them as that engine size and
// --prefill-num-servers; other group shapes stay unplanned (rules'
// NoteSlimeSGLangConfig).
func (p *slimeParser) sglangConfig(ev scriptResult) {
	v := p.cfg.Values[model.SlimeSGLangConfig]
	if !v.Set || v.Arg == "" {
		return
	}
	data, where, err := readSGLangConfig(v.Arg, ev)
	if err == errNoSGLangFile {
		return // a pasted command naming a file not here: engines unplanned (rules' NoteSlimeSGLangConfig)
	}
	if err != "" {
		d := p.errorf(model.CodeSlimeSGLangFile, v.ValueSpan, "cannot be read", "--sglang-config %s cannot be read: %s", v.Arg, err)
		d.Help = []model.Fix{{Message: "write the file beside the script, or have the script write it (a heredoc into $(mktemp))"}}
		return
	}
	var doc struct {
		SGLang []sglangModel `yaml:"sglang"`
	}
	if e := yaml.Unmarshal(data, &doc); e != nil || len(doc.SGLang) == 0 {
		d := p.errorf(model.CodeSlimeSGLangFile, v.ValueSpan, "not slime's format", "--sglang-config %s (%s) is not slime's format: a top-level `sglang:` list of models with server_groups", v.Arg, where)
		if e != nil {
			d.Why = e.Error()
		}
		return
	}
	p.sglangGroups(v, where, doc.SGLang)
}

// sglangGroups plans uniform groups; it checks slime's assertion that the
// groups' GPUs add up to --rollout-num-gpus.
func (p *slimeParser) sglangGroups(v model.SlimeValue, where string, models []sglangModel) {
	def := max(p.cfg.Values[model.SlimeRolloutGPUsPerEngine].Value, 1)
	total, size, prefill, uniform, decodeSeen := 0, 0, 0, len(models) == 1, false
	for _, m := range models {
		groups := m.ServerGroups
		if len(groups) == 0 {
			groups = m.EngineGroups
		}
		for _, g := range groups {
			total += g.NumGPUs
			e := g.NumGPUsPerEngine
			if e == 0 {
				e = max(m.NumGPUsPerEngine, def)
				if m.NumGPUsPerEngine > 0 {
					e = m.NumGPUsPerEngine
				}
			}
			switch {
			case size != 0 && e != size, e <= 0, g.NumGPUs%e != 0:
				uniform = false
			case g.WorkerType == "prefill" && !decodeSeen:
				prefill += g.NumGPUs / e
			case g.WorkerType == "prefill", g.WorkerType != "regular" && g.WorkerType != "decode":
				uniform = false
			default:
				decodeSeen = true
			}
			size = e
		}
	}
	if r := p.cfg.Values[model.SlimeRolloutNumGPUs]; r.Set && r.Value != total {
		d := p.errorf(model.CodeSlimeSGLangFile, v.ValueSpan, "groups' GPUs", "--sglang-config %s (%s) gives its server groups %d GPUs, but --rollout-num-gpus is %d: slime asserts they are equal", v.Arg, where, total, r.Value)
		d.Labels = []model.Label{{Span: r.Span, Message: "the rollout's GPUs"}}
		return
	}
	if !uniform || size == 0 {
		return
	}
	p.cfg.Values[model.SlimeSGLangConfig] = model.SlimeValue{}
	p.cfg.Values[model.SlimeRolloutGPUsPerEngine] = model.SlimeValue{Set: true, Value: size, Span: v.Span, ValueSpan: v.ValueSpan, Text: fmt.Sprintf("--rollout-num-gpus-per-engine %d (from %s)", size, where)}
	if prefill > 0 {
		p.cfg.Values[model.SlimePrefillServers] = model.SlimeValue{Set: true, Value: prefill, Span: v.Span, ValueSpan: v.ValueSpan, Text: fmt.Sprintf("--prefill-num-servers %d (from %s)", prefill, where)}
	}
	p.diags = append(p.diags, model.Diagnostic{Code: model.NoteSlimeSGLangRead, Severity: model.SeverityNote,
		Summary: fmt.Sprintf("read the engine groups of --sglang-config %s (%s): %d GPUs in engines of %d, %d of them prefill engines; planned as such", v.Arg, where, total, size, prefill),
		Primary: v.ValueSpan, PrimaryLabel: "engines from here"})
}

// errNoSGLangFile: a pasted command names a file that is not here.
const errNoSGLangFile = "no such file here"

// readSGLangConfig finds the YAML: in the sandbox's memory, else on disk
// under the folders the script may read. where names it for messages.
func readSGLangConfig(name string, ev scriptResult) (data []byte, where, err string) {
	if data, ok := ev.files[path.Clean(name)]; ok {
		return data, "written by the script", ""
	}
	if len(ev.roots) == 0 {
		// A pasted command or flag string: the file is read where the
		// user runs rlsolve, when it is there.
		if _, e := os.Stat(name); e != nil {
			return nil, "", errNoSGLangFile
		}
	} else {
		if !filepath.IsAbs(name) {
			name = filepath.Join(ev.roots[0], name)
		}
		inside := false
		for _, r := range ev.roots {
			inside = inside || strings.HasPrefix(filepath.Clean(name), r+string(filepath.Separator))
		}
		if !inside {
			return nil, "", "it is neither written by the script nor inside the script's folder or slime checkout"
		}
	}
	st, e := os.Stat(name)
	if e != nil {
		return nil, "", e.Error()
	}
	if !st.Mode().IsRegular() || st.Size() > 1<<20 {
		return nil, "", "not a regular file of at most 1 MiB"
	}
	data, e = os.ReadFile(name)
	if e != nil {
		return nil, "", e.Error()
	}
	return data, name, ""
}

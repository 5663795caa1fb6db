package memory

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rlsolve/rlsolve/model"
)

// Where an architecture came from.
const (
	SourceConfigJSON  = "config.json"    // the config.json beside the model path
	SourceModelConfig = "--model-config" // the file given with --model-config
	SourceFlags       = "model flags"    // slime's Megatron model flags
	SourceTable       = "built-in table" // rlsolve's table of common models
)

// ArchSource says which source gave the architecture.
type ArchSource struct {
	Kind string
	// File is the file read (config.json or --model-config).
	File string
	// Name is the table entry's name.
	Name string
	// Span is the setting that led there (the model path, the flags).
	Span model.Span
}

func (s ArchSource) String() string {
	switch s.Kind {
	case SourceTable:
		return fmt.Sprintf("%s (%s)", s.Kind, s.Name)
	case SourceConfigJSON, SourceModelConfig:
		return fmt.Sprintf("%s %s", s.Kind, s.File)
	}
	return s.Kind
}

// ErrUnknownArch: no source describes the model; memory is not checked.
var ErrUnknownArch = errors.New("the model's architecture is unknown")

// ResolveOptions are the resolution's inputs besides the settings.
type ResolveOptions struct {
	// ModelConfig is --model-config FILE ("" when not given).
	ModelConfig string
	// ReadFile reads a file; nil reads the file system (bounded).
	ReadFile func(name string) ([]byte, error)
}

// ResolveArch finds the model's architecture: the config.json beside the
// model path when it exists, else the --model-config file, else slime's
// model flags, else the built-in table (by the path's last element or the
// model_type). A file that exists but cannot be used is an error
// (*InputError); no source at all is ErrUnknownArch.
func ResolveArch(s *model.MemorySettings, opt ResolveOptions) (Arch, ArchSource, error) {
	read := opt.ReadFile
	if read == nil {
		read = readBounded
	}
	if s.ModelPath.Value != "" {
		file := filepath.Join(s.ModelPath.Value, "config.json")
		if data, err := read(file); err == nil {
			a, err := ParseHFConfig(file, data)
			return a, ArchSource{Kind: SourceConfigJSON, File: file, Span: s.ModelPath.Span}, err
		} else if !errors.Is(err, fs.ErrNotExist) {
			return Arch{}, ArchSource{}, &InputError{Span: s.ModelPath.Span, Msg: fmt.Sprintf("cannot read %s: %v", file, err)}
		}
	}
	if opt.ModelConfig != "" {
		data, err := read(opt.ModelConfig)
		if err != nil {
			return Arch{}, ArchSource{}, &InputError{Span: model.Span{File: opt.ModelConfig}, Msg: fmt.Sprintf("cannot read --model-config %s: %v", opt.ModelConfig, err)}
		}
		a, err := ParseHFConfig(opt.ModelConfig, data)
		return a, ArchSource{Kind: SourceModelConfig, File: opt.ModelConfig}, err
	}
	if len(s.ModelArgs) > 0 {
		a, ok, err := ArchFromMegatronFlags(s.ModelArgs)
		if err != nil {
			return Arch{}, ArchSource{}, err
		}
		if ok {
			return a, ArchSource{Kind: SourceFlags, Span: flagsSpan(s.ModelArgs)}, nil
		}
	}
	if a, ok := LookupTable(s.ModelPath.Value, s.ModelType.Value); ok {
		at := s.ModelPath.Span
		if _, byPath := LookupTable(s.ModelPath.Value, ""); !byPath || !at.Known() {
			at = s.ModelType.Span // found by model_type
		}
		return a, ArchSource{Kind: SourceTable, Name: a.Name, Span: at}, nil
	}
	return Arch{}, ArchSource{}, ErrUnknownArch
}

// readBounded reads a file of at most MaxConfigBytes (and one byte more,
// so that the parser reports the size).
func readBounded(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", name)
	}
	return io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
}

// flagsSpan is the position of the first model flag.
func flagsSpan(flags map[string]model.FlagValue) model.Span {
	var best model.Span
	for _, v := range flags {
		if !best.Known() || v.Span.Known() && (v.Span.Line < best.Line || v.Span.Line == best.Line && v.Span.Col < best.Col) {
			best = v.Span
		}
	}
	return best
}

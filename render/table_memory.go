package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/memory"
)

// writeMemoryTable prints the GPU memory after the plan's tables: one row
// per GPU layout (identical GPUs grouped), GiB per phase and the peak,
// then each engine's pool and the notes on what is not modelled.
func writeMemoryTable(w io.Writer, m *Memory) error {
	if m == nil {
		return nil
	}
	printLine(w, "\nGPU memory: %s from the %s, %s; GiB per GPU in each phase", m.Model, m.Source, m.Profile)
	if len(m.Groups) == 0 {
		fmt.Fprintln(w, "  (no GPU with a known capacity holds a component)")
		return nil
	}
	head := []string{"  GPUS", "COMPONENTS", "CAPACITY"}
	for p := memory.PhaseInit; p < memory.NumPhases; p++ {
		head = append(head, strings.ToUpper(p.String()))
	}
	var rows [][]string
	for i := range m.Groups {
		g := &m.Groups[i]
		cols := []string{fmt.Sprintf("  %s (%d)", g.Label, g.GPUCount()), strings.Join(distinct(g.Components), ","), gibText(g.CapacityBytes)}
		for _, p := range g.Phases {
			cols = append(cols, gibText(p.Bytes))
		}
		peak := fmt.Sprintf("%s %s", gibText(g.PeakBytes), g.PeakPhase)
		if g.PeakBytes > g.CapacityBytes {
			peak += " OVER"
		}
		rows = append(rows, append(cols, peak))
	}
	if err := writeTable(w, append(head, "PEAK"), rows); err != nil {
		return err
	}
	for i := range m.Groups {
		g := &m.Groups[i]
		for _, e := range g.Engines {
			printLine(w, "  %s: %s", g.Label, engineText(e))
		}
		for _, n := range distinct(g.Notes) {
			printLine(w, "  %s: %s", g.Label, n)
		}
	}
	return nil
}

// engineText says what an engine reserves and the tokens its KV pool
// holds.
func engineText(e memory.EngineState) string {
	s := fmt.Sprintf("%s %s reserves %s GiB (fraction %g; %s GiB free at its start): KV pool %s GiB, %d tokens",
		e.Component, e.Kind, gibText(e.Budget), e.Fraction, gibText(e.FreeAtStart), gibText(e.KVBytes), e.Tokens)
	if e.SeqTokens > 0 {
		s += fmt.Sprintf(" (%d sequences of %d)", e.Tokens/e.SeqTokens, e.SeqTokens)
	}
	if e.StartFails {
		s += ", does not start"
	}
	return s
}

func gibText(b int64) string { return fmt.Sprintf("%.2f", float64(b)/memory.GiB) }

// distinct keeps the first of each string, in order.
func distinct(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

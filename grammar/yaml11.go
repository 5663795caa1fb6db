package grammar

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// RLinf loads YAML with PyYAML's SafeLoader (YAML 1.1 implicit typing, no
// timestamps) and converts many values with Python's str(). yaml.v3 is YAML
// 1.2, so rlsolve resolves plain scalars itself, as PyYAML would.

// pyKind is the Python type a plain scalar becomes under YAML 1.1.
type pyKind int

const (
	pyStr pyKind = iota
	pyNull
	pyBool
	pyInt
	pyFloat
)

var (
	y11Bool  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	y11Int   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	y11Float = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	plainDec = regexp.MustCompile(`^[-+]?(?:0|[1-9][0-9]*)$`)
)

// pyValue is a plain scalar as Python sees it after YAML 1.1 resolution.
type pyValue struct {
	kind pyKind
	// str is Python's str() of the value ("60" for 1:0, "True" for yes).
	str string
	// intVal is set for pyInt when the value fits in an int.
	intVal int
	intOK  bool
	// surprising is true when YAML 1.2 (and a reader) would take the text
	// literally but YAML 1.1 does not: sexagesimal, octal, underscores, hex,
	// binary, yes/no/on/off (decision D3).
	surprising bool
}

// resolvePlain resolves an unquoted scalar as PyYAML's SafeLoader does.
func resolvePlain(text string) pyValue {
	switch text {
	case "", "~", "null", "Null", "NULL":
		return pyValue{kind: pyNull, str: "None"}
	}
	if y11Bool.MatchString(text) {
		l := strings.ToLower(text)
		v := l == "yes" || l == "true" || l == "on"
		s := "False"
		if v {
			s = "True"
		}
		return pyValue{kind: pyBool, str: s, surprising: l != "true" && l != "false"}
	}
	if y11Int.MatchString(text) {
		n := parseY11Int(text)
		pv := pyValue{kind: pyInt, str: n.String(), surprising: !plainDec.MatchString(text)}
		if n.IsInt64() && n.Int64() >= -1<<53 && n.Int64() <= 1<<53 {
			pv.intVal, pv.intOK = int(n.Int64()), true
		}
		return pv
	}
	if y11Float.MatchString(text) {
		return pyValue{kind: pyFloat, str: pyFloatStr(text), surprising: strings.Contains(text, ":") || strings.Contains(text, "_")}
	}
	return pyValue{kind: pyStr, str: text}
}

func parseY11Int(text string) *big.Int {
	s := strings.ReplaceAll(text, "_", "")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	n := new(big.Int)
	switch {
	case strings.Contains(s, ":"):
		for _, p := range strings.Split(s, ":") {
			d, _ := strconv.Atoi(p)
			n.Mul(n, big.NewInt(60))
			n.Add(n, big.NewInt(int64(d)))
		}
	case strings.HasPrefix(s, "0b"):
		n.SetString(s[2:], 2)
	case strings.HasPrefix(s, "0x"):
		n.SetString(s[2:], 16)
	case len(s) > 1 && s[0] == '0':
		n.SetString(s[1:], 8)
	default:
		n.SetString(s, 10)
	}
	if neg {
		n.Neg(n)
	}
	return n
}

// pyFloatStr approximates Python's repr of a float well enough for
// messages; floats are never valid ranks or counts.
func pyFloatStr(text string) string {
	s := strings.ReplaceAll(text, "_", "")
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case ".inf":
		if strings.HasPrefix(s, "-") {
			return "-inf"
		}
		return "inf"
	case ".nan":
		return "nan"
	}
	if strings.Contains(s, ":") {
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	if f == float64(int64(f)) && f < 1e16 && f > -1e16 {
		return strconv.FormatInt(int64(f), 10) + ".0"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

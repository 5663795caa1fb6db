package yamlpos

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// RLinf loads YAML with PyYAML's SafeLoader (YAML 1.1 implicit typing, no
// timestamps) and converts many values with Python's str(). yaml.v3 is YAML
// 1.2, so rlsolve resolves plain scalars itself, as PyYAML would.

// Kind is the Python type a value has once RLinf has loaded it.
type Kind int

// The Python types a YAML scalar becomes.
const (
	Str Kind = iota
	Null
	Bool
	Int
	Float
)

var (
	y11Bool  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	y11Int   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	y11Float = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	plainDec = regexp.MustCompile(`^[-+]?(?:0|[1-9][0-9]*)$`)
)

// PyValue is a scalar as Python sees it after YAML 1.1 resolution (or
// after OmegaConf computed it).
type PyValue struct {
	Kind Kind
	// Str is Python's str() of the value ("60" for 1:0, "True" for yes).
	Str string
	// Int is set for Int (and Bool, as 0 or 1) when the value fits in an
	// int; IntOK says so.
	Int   int
	IntOK bool
	// Surprising is true when YAML 1.2 (and a reader) would take the text
	// literally but YAML 1.1 does not: sexagesimal, octal, underscores, hex,
	// binary, yes/no/on/off (decision D3).
	Surprising bool
}

// ResolvePlain resolves an unquoted scalar as PyYAML's SafeLoader does.
func ResolvePlain(text string) PyValue {
	switch text {
	case "", "~", "null", "Null", "NULL":
		return PyValue{Kind: Null, Str: "None"}
	}
	if y11Bool.MatchString(text) {
		l := strings.ToLower(text)
		v := l == "yes" || l == "true" || l == "on"
		pv := boolValue(v)
		pv.Surprising = l != "true" && l != "false"
		return pv
	}
	if y11Int.MatchString(text) {
		pv := intValue(parseY11Int(text))
		pv.Surprising = !plainDec.MatchString(text)
		return pv
	}
	if y11Float.MatchString(text) {
		return PyValue{Kind: Float, Str: pyFloatStr(text), Surprising: strings.Contains(text, ":") || strings.Contains(text, "_")}
	}
	return PyValue{Kind: Str, Str: text}
}

// intValue is a Python int; values past 2^53 keep their text but no Int.
func intValue(n *big.Int) PyValue {
	pv := PyValue{Kind: Int, Str: n.String()}
	if n.IsInt64() && n.Int64() >= -1<<53 && n.Int64() <= 1<<53 {
		pv.Int, pv.IntOK = int(n.Int64()), true
	}
	return pv
}

// boolValue is a Python bool (an int subclass: True is 1).
func boolValue(b bool) PyValue {
	if b {
		return PyValue{Kind: Bool, Str: "True", Int: 1, IntOK: true}
	}
	return PyValue{Kind: Bool, Str: "False", IntOK: true}
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
	case ".inf", "inf":
		if strings.HasPrefix(s, "-") {
			return "-inf"
		}
		return "inf"
	case ".nan", "nan":
		return "nan"
	}
	if strings.Contains(s, ":") {
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	return floatRepr(f)
}

// floatRepr is Python's repr of a float, close enough for messages.
func floatRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	case f == float64(int64(f)) && f < 1e16 && f > -1e16:
		return strconv.FormatInt(int64(f), 10) + ".0"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// OmegaConf's and Hydra's grammar types unquoted text in resolver
// arguments and command-line overrides its own way (not YAML 1.1): ints
// may have underscores but no leading zero, booleans and null are
// case-insensitive, and everything else is a string (0x10 and 1:0 too).
var (
	omegaInt   = regexp.MustCompile(`^[-+]?(?:0|[1-9](?:_?[0-9])*)$`)
	omegaFloat = regexp.MustCompile(`^[-+]?(?:(?:(?:0|[1-9](?:_?[0-9])*)?\.[0-9](?:_?[0-9])*|(?:0|[1-9](?:_?[0-9])*)\.)(?:[eE][-+]?[0-9](?:_?[0-9])*)?|(?:0|[1-9](?:_?[0-9])*)[eE][-+]?[0-9](?:_?[0-9])*|[iI][nN][fF]|[nN][aA][nN])$`)
)

// ResolveOmega types unquoted text as OmegaConf's grammar does (resolver
// arguments, oc.decode) and Hydra's override parser does.
func ResolveOmega(text string) PyValue {
	switch {
	case strings.EqualFold(text, "null"):
		return PyValue{Kind: Null, Str: "None"}
	case strings.EqualFold(text, "true"):
		return boolValue(true)
	case strings.EqualFold(text, "false"):
		return boolValue(false)
	case omegaInt.MatchString(text):
		n, _ := new(big.Int).SetString(strings.ReplaceAll(text, "_", ""), 10)
		return intValue(n)
	case omegaFloat.MatchString(text):
		return PyValue{Kind: Float, Str: pyFloatStr(text)}
	}
	return PyValue{Kind: Str, Str: text}
}

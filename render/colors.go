package render

import (
	"fmt"
	"strconv"
)

// palette is Tableau 10: distinct, and readable under dark text when tinted.
var palette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

// paletteColor is component i's colour; past ten, hues spaced by the
// golden angle.
func paletteColor(i int) string {
	if i < len(palette) {
		return palette[i]
	}
	h := float64(i-len(palette))*137.508 + 20
	return hsl(h-360*float64(int(h/360)), 0.55, 0.55)
}

func hsl(h, s, l float64) string {
	c := (1 - abs(2*l-1)) * s
	hp := h / 60
	x := c * (1 - abs(hp-2*float64(int(hp/2))-1))
	var r, g, b float64
	switch int(hp) {
	case 0:
		r, g = c, x
	case 1:
		r, g = x, c
	case 2:
		g, b = c, x
	case 3:
		g, b = x, c
	case 4:
		r, b = x, c
	default:
		r, b = c, x
	}
	m := l - c/2
	return fmt.Sprintf("#%02x%02x%02x", int((r+m)*255+0.5), int((g+m)*255+0.5), int((b+m)*255+0.5))
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// tint mixes a #rrggbb colour with white: f=0 is the colour, 1 is white.
func tint(color string, f float64) string {
	if len(color) != 7 {
		return color
	}
	v, err := strconv.ParseUint(color[1:], 16, 32)
	if err != nil {
		return color
	}
	mix := func(c uint64) int { return int(float64(c) + (255-float64(c))*f + 0.5) }
	return fmt.Sprintf("#%02x%02x%02x", mix(v>>16&0xff), mix(v>>8&0xff), mix(v&0xff))
}

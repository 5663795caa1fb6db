package solver

import (
	"math/bits"

	"github.com/go-air/gini/logic"
	"github.com/go-air/gini/z"
)

// Counting circuits over gini's logic.C: numbers are little-endian slices
// of literals. Counts and bounds are circuits (a popcount tree, a
// comparison with a constant) rather than truth tables, so that a bound is
// one literal the solver can assume.

// add is the ripple-carry sum of two numbers.
func add(c *logic.C, a, b []z.Lit) []z.Lit {
	if len(a) < len(b) {
		a, b = b, a
	}
	out := make([]z.Lit, 0, len(a)+1)
	carry := c.F
	for i := range a {
		y := c.F
		if i < len(b) {
			y = b[i]
		}
		x := a[i]
		xy := c.Xor(x, y)
		out = append(out, c.Xor(xy, carry))
		carry = c.Or(c.And(x, y), c.And(carry, xy))
	}
	if carry != c.F {
		out = append(out, carry)
	}
	return out
}

// sum adds numbers pairwise, as a balanced tree.
func sum(c *logic.C, nums [][]z.Lit) []z.Lit {
	if len(nums) == 0 {
		return nil
	}
	for len(nums) > 1 {
		next := make([][]z.Lit, 0, (len(nums)+1)/2)
		for i := 0; i+1 < len(nums); i += 2 {
			next = append(next, add(c, nums[i], nums[i+1]))
		}
		if len(nums)%2 == 1 {
			next = append(next, nums[len(nums)-1])
		}
		nums = next
	}
	return nums[0]
}

// popcount is the number of true literals among bits.
func popcount(c *logic.C, bits []z.Lit) []z.Lit {
	nums := make([][]z.Lit, len(bits))
	for i, b := range bits {
		nums[i] = []z.Lit{b}
	}
	return sum(c, nums)
}

// leq is true when the number x is at most v.
func leq(c *logic.C, x []z.Lit, v int) z.Lit {
	if v < 0 {
		return c.F
	}
	if len(x) < 63 && v >= 1<<len(x)-1 {
		return c.T
	}
	r := c.T
	for i := 0; i < len(x); i++ {
		if v>>i&1 == 1 {
			r = c.Or(x[i].Not(), r)
		} else {
			r = c.And(x[i].Not(), r)
		}
	}
	return r
}

// eq is true when x equals v.
func eq(c *logic.C, x []z.Lit, v int) z.Lit {
	if v < 0 || len(x) < 63 && v > 1<<len(x)-1 {
		return c.F
	}
	r := c.T
	for i := range x {
		if v>>i&1 == 1 {
			r = c.And(r, x[i])
		} else {
			r = c.And(r, x[i].Not())
		}
	}
	return r
}

// value reads a number from the solver's model.
func value(val func(z.Lit) bool, c *logic.C, x []z.Lit) int {
	n := 0
	for i, b := range x {
		if b == c.T || b != c.F && val(b) {
			n |= 1 << i
		}
	}
	return n
}

// less is the number n - x for a number x that is never above n: n+1
// plus x's complement, in n's width (x's bits past it are always false).
func less(c *logic.C, n int, x []z.Lit) []z.Lit {
	w := bits.Len(uint(n))
	k, nx := make([]z.Lit, w), make([]z.Lit, w)
	for i := range nx {
		k[i], nx[i] = c.F, c.T
		if (n+1)>>i&1 == 1 {
			k[i] = c.T
		}
		if i < len(x) {
			nx[i] = x[i].Not()
		}
	}
	out := add(c, k, nx)
	return out[:min(len(out), w)]
}

package solver

import "github.com/go-air/gini/z"

// Keep's guess counted from its devices. After a failed node most of a
// large plan either stays as it was or cannot (its rank has too few
// devices before it), and the guess keeps a best keep set of every
// component: when the solver takes the guess as it is and it moves no
// more than the lower bound, it is optimal, and so is its node count
// where pack's bound holds too. Then keep needs no circuit at all: the
// per-worker tests and their sums were most of a replan's instance.

// keepGuess solves under the guess and says whether it is the answer:
// it moves lb workers, and pack's first-fit check holds for it (a
// placement with fewer nodes that moves as few would need the circuit).
func (o *optimizer) keepGuess(guess []z.Lit, sets []keepSet, lb int) bool {
	if o.try(guess...) != sat || o.in.movedIn(o.best, sets) != lb {
		return false
	}
	_, held, nodes := o.in.nodesUsed()
	if o.in.nodesTaken(o.best) > max(held, nodes) {
		return false
	}
	o.guessed = true
	return true
}

// movedIn counts the previous workers a snapshot moves: a worker stays
// when its old positions are all taken and exactly its share index times
// the share are taken before them (keepStays' test, on devices).
func (in *instance) movedIn(snap [][]bool, sets []keepSet) int {
	moved := 0
	for _, s := range sets {
		taken := snap[s.v.idx]
		before := make([]int, len(taken)+1)
		for p, t := range taken {
			before[p+1] = before[p]
			if t {
				before[p+1]++
			}
		}
		for r, ps := range s.pos {
			if len(ps) != s.share || before[ps[0]] != r/s.perDevice*s.share || before[ps[len(ps)-1]+1]-before[ps[0]] != s.share {
				moved++
			}
		}
	}
	return moved
}

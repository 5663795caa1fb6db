// Package proptest holds rlsolve's whole-pipeline tests: the conformance
// runner over corpora computed with RLinf's own code, and property tests.
package proptest

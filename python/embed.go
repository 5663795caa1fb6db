// Package python holds the Python code rlsolve ships inside its binary (the Ray probe and the Ray
// driver), submitted to a cluster as a job's working directory.
package python

import "embed"

// Files holds every .py file of this directory.
//
//go:embed *.py
var Files embed.FS

module github.com/rlsolve/rlsolve

go 1.26

require (
	github.com/alecthomas/participle/v2 v2.1.4
	go.yaml.in/yaml/v3 v3.0.6
)

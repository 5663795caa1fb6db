module github.com/rlsolve/rlsolve

go 1.26

require (
	github.com/NVIDIA/go-nvml v0.13.4-1
	github.com/alecthomas/participle/v2 v2.1.4
	github.com/coder/websocket v1.8.15
	github.com/go-air/gini v1.0.4
	github.com/leanovate/gopter v0.2.11
	github.com/rogpeppe/go-internal v1.16.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/sys v0.26.0
	mvdan.cc/sh/v3 v3.10.0
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/muesli/cancelreader v0.2.2 // indirect
	golang.org/x/sync v0.8.0 // indirect
	golang.org/x/term v0.25.0 // indirect
	golang.org/x/text v0.14.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)

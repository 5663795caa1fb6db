package raytest

import (
	"bufio"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// maxNodes bounds the layout file: the script writes 4 lines.
const maxNodes = 64

// readLayout reads the nodes file the script writes in its state dir.
func readLayout(path string) ([]Node, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the cluster's node list: %v", err)
	}
	defer f.Close()
	nodes, err := parseLayout(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return nodes, nil
}

// parseLayout parses one "IP RANK" line per node, head first.
func parseLayout(r io.Reader) ([]Node, error) {
	var nodes []Node
	sc := bufio.NewScanner(io.LimitReader(r, 64*maxNodes))
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			return nil, fmt.Errorf("line %d: want \"IP RANK\", got %q", line, sc.Text())
		}
		ip, err := netip.ParseAddr(fields[0])
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		rank, err := strconv.Atoi(fields[1])
		if err != nil || rank < 0 || rank >= maxNodes {
			return nil, fmt.Errorf("line %d: rank %q is not in 0..%d", line, fields[1], maxNodes-1)
		}
		if len(nodes) == maxNodes {
			return nil, fmt.Errorf("more than %d nodes", maxNodes)
		}
		nodes = append(nodes, Node{IP: ip.String(), Rank: rank})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("no nodes")
	}
	return nodes, distinct(nodes)
}

// distinct checks what the tests rely on: one node per IP, and ranks
// 0..n-1 each once (RLinf refuses anything else).
func distinct(nodes []Node) error {
	ips := map[string]bool{}
	ranks := make([]bool, len(nodes))
	for _, n := range nodes {
		if ips[n.IP] {
			return fmt.Errorf("IP %s twice", n.IP)
		}
		ips[n.IP] = true
		if n.Rank >= len(nodes) || ranks[n.Rank] {
			return fmt.Errorf("ranks are not 0..%d each once (rank %d)", len(nodes)-1, n.Rank)
		}
		ranks[n.Rank] = true
	}
	return nil
}

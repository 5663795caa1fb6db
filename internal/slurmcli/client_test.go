package slurmcli

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// ExecRunner's errors say which command failed and why.
func TestExecRunnerErrors(t *testing.T) {
	_, err := ExecRunner(context.Background(), "rlsolve-no-such-command-xyz")
	if err == nil || !strings.Contains(err.Error(), "not installed or not on PATH") {
		t.Errorf("missing binary: %v", err)
	}
	_, err = ExecRunner(context.Background(), "sh", "-c", "echo oops >&2; exit 3")
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "oops") {
		t.Errorf("failing command: %v", err)
	}
}

// fake answers command lines from a table and records what ran.
type fake struct {
	out map[string]string
	ran []string
}

func (f *fake) run(_ context.Context, name string, args ...string) ([]byte, error) {
	line := strings.Join(append([]string{name}, args...), " ")
	f.ran = append(f.ran, line)
	if o, ok := f.out[line]; ok {
		return []byte(o), nil
	}
	return nil, errors.New("not recorded: " + line)
}

func TestJob(t *testing.T) {
	f := &fake{out: map[string]string{
		"scontrol show job -o 12": "JobId=12 JobName=x JobState=RUNNING NodeList=n[1-3] TresPerNode=gres:gpu:8 Comment=a b\n",
		"scontrol show job -o 13": "JobId=13 JobState=PENDING NodeList=(null)\n",
		// A list the local parser refuses goes to scontrol.
		"scontrol show job -o 14":          "JobId=14 JobState=RUNNING NodeList=odd]name\n",
		"scontrol show hostnames odd]name": "odd]name\n",
	}}
	c := &Client{Run: f.run}
	for id, want := range map[string]string{
		"12": "RUNNING [n1 n2 n3] gpu:8",
		"13": "PENDING [] ",
		"14": "RUNNING [odd]name] ",
	} {
		j, err := c.Job(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%s %v %s", j.State, j.Nodes, j.GresPerNode); got != want {
			t.Errorf("job %s: %s, want %s", id, got, want)
		}
	}
	if _, err := c.Job(context.Background(), "99"); err == nil {
		t.Error("a failing scontrol should be an error")
	}
}

func TestStepsAndCancel(t *testing.T) {
	f := &fake{out: map[string]string{
		"squeue --steps --jobs=7 --noheader --format=%i|%j": "7.0|rlsolve-x-actor\n 7.1|rlsolve-x-rollout \n",
		"scancel --signal=TERM 7.0 7.1":                     "",
		"scancel 7.0":                                       "",
	}}
	c := &Client{Run: f.run}
	steps, err := c.Steps(context.Background(), "7")
	if err != nil || !reflect.DeepEqual(steps, []Step{{"7.0", "rlsolve-x-actor"}, {"7.1", "rlsolve-x-rollout"}}) {
		t.Fatalf("%v %v", steps, err)
	}
	if err := c.Cancel(context.Background(), "TERM", "7.0", "7.1"); err != nil {
		t.Error(err)
	}
	if err := c.Cancel(context.Background(), "", "7.0"); err != nil {
		t.Error(err)
	}
}

func TestHostnamesAndPartition(t *testing.T) {
	f := &fake{out: map[string]string{
		"scontrol show hostnames n[1-2],n1": "n1\nn2\nn1\n",
		"sinfo -h -N -p gpu -o %N":          "a\nb\na\n",
	}}
	c := &Client{Run: f.run}
	names, dups, err := c.Hostnames(context.Background(), "n[1-2],n1")
	if err != nil || fmt.Sprint(names, dups) != "[n1 n2] [n1]" {
		t.Errorf("%v %v %v", names, dups, err)
	}
	names, err = c.PartitionNodes(context.Background(), "gpu")
	if err != nil || fmt.Sprint(names) != "[a b]" {
		t.Errorf("%v %v", names, err)
	}
}

func TestSrunArgs(t *testing.T) {
	got := strings.Join(SrunArgs(StepSpec{JobID: "5", NTasks: 4, Name: "rlsolve-x-a", Label: true, Gres: "gpu:8"}), " ")
	want := "--jobid=5 --overlap --distribution=arbitrary --ntasks=4 --input=none --job-name=rlsolve-x-a --export=ALL --label --gres=gpu:8"
	if got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestParseRecords(t *testing.T) {
	src := "NodeName=a OS=Linux 6.1 #1 SMP Reason=x fail=yes State=IDLE\n\nNodeName=b\n   CPUTot=4\n"
	recs, err := ParseRecords("x", []byte(src), "NodeName", 10)
	if err != nil || len(recs) != 2 {
		t.Fatalf("%v %v", recs, err)
	}
	if recs[0].Fields["OS"] != "Linux 6.1 #1 SMP" || recs[0].Fields["Reason"] != "x fail=yes" || recs[1].Fields["CPUTot"] != "4" || recs[1].Line != 3 {
		t.Errorf("%+v", recs)
	}
	for _, tc := range []struct{ src, want string }{
		{"JobId=1\n", "x:1:1: expected a record starting with NodeName="},
		{"oops\n", "x:1:1: expected key=value"},
		{"NodeName=a\nNodeName=b\nNodeName=c\n", "x:3:1: more than 2 records"},
	} {
		if _, err := ParseRecords("x", []byte(tc.src), "NodeName", 2); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.src, err, tc.want)
		}
	}
}

// FuzzParseRecords: any output is parsed or refused with a position.
func FuzzParseRecords(f *testing.F) {
	f.Add([]byte("NodeName=a Gres=gpu:1 State=IDLE Reason=a b=c State=X\n"))
	f.Add([]byte("NodeName=a\n   OS=Linux 1 #2\n\nNodeName=b NodeAddr=::1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := ParseRecords("fuzz", data, "NodeName", 8)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		if len(recs) > 8 {
			t.Fatalf("%d records over the bound", len(recs))
		}
		for _, r := range recs {
			if _, ok := r.Fields["NodeName"]; !ok {
				t.Fatalf("record without its first key: %+v", r)
			}
		}
	})
}

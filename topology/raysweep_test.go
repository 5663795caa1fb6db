package topology

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"
)

// The sweep deletes only finished records with both of rlsolve's marks
// that ended the record age ago or more; DiscoverRay sweeps and says what,
// with the age its options give.
func TestSweepProbeRecords(t *testing.T) {
	t.Parallel()
	now := time.Now()
	ago := func(d time.Duration) int64 { return now.Add(-d).UnixMilli() }
	marks := map[string]string{probeMetaKey: probeMetaValue}
	jobs := []map[string]any{
		{"submission_id": "rlsolve-probe-old", "status": "SUCCEEDED", "end_time": ago(10 * time.Minute), "metadata": marks},
		{"submission_id": "rlsolve-probe-stopped", "status": "STOPPED", "end_time": ago(DefaultProbeRecordAge), "metadata": marks},
		{"submission_id": "rlsolve-probe-fresh", "status": "SUCCEEDED", "end_time": ago(time.Minute), "metadata": marks},
		{"submission_id": "rlsolve-probe-running", "status": "RUNNING", "end_time": nil, "metadata": marks},
		{"submission_id": "rlsolve-probe-nomarks", "status": "FAILED", "end_time": ago(time.Hour), "metadata": nil},
		{"submission_id": "rlsolve-probe-othermarks", "status": "FAILED", "end_time": ago(time.Hour), "metadata": map[string]string{"rlsolve": "x"}},
		{"submission_id": "theirs", "status": "SUCCEEDED", "end_time": ago(time.Hour), "metadata": marks},
		{"submission_id": "rlsolve-20261129-010000-abcd", "status": "SUCCEEDED", "end_time": ago(time.Hour), "metadata": map[string]string{"rlsolve_launch_id": "x"}},
		{"submission_id": "rlsolve-probe-noend", "status": "FAILED", "end_time": 0, "metadata": marks},
	}
	b, _ := json.Marshal(jobs)
	d := &fakeDashboard{t: t, version: "2.52.1", lists: [][]map[string]any{liveList(t)}, jobs: string(b)}
	got, err := SweepProbeRecords(context.Background(), d.client(t), now, 0)
	want := []string{"rlsolve-probe-old", "rlsolve-probe-stopped"}
	if err != nil || !slices.Equal(got, want) || !slices.Equal(d.deleted, want) {
		t.Errorf("swept %v (%v), deleted %v; want %v", got, err, d.deleted, want)
	}

	d.deleted = nil
	live, err := DiscoverRay(context.Background(), RayLiveOptions{Client: d.client(t)})
	if err != nil || !slices.Equal(live.Swept, want) || live.SweepErr != nil {
		t.Errorf("DiscoverRay swept %v (%v, %v)", live.Swept, live.SweepErr, err)
	}

	// A shorter age (the options', not a package variable) takes the
	// fresh record too; never a running or foreign one.
	d.deleted = nil
	live, err = DiscoverRay(context.Background(), RayLiveOptions{Client: d.client(t), NodeSet: true, ProbeRecordAge: 30 * time.Second})
	want = []string{"rlsolve-probe-old", "rlsolve-probe-stopped", "rlsolve-probe-fresh"}
	if err != nil || !slices.Equal(live.Swept, want) || !slices.Equal(d.deleted, want) {
		t.Errorf("DiscoverRay with a 30s age swept %v (%v), deleted %v; want %v", live.Swept, err, d.deleted, want)
	}
}

// A dashboard that cannot list its jobs: the sweep says why, the rest
// goes on.
func TestSweepProbeRecordsFails(t *testing.T) {
	t.Parallel()
	d := &fakeDashboard{t: t, version: "2.52.1", lists: [][]map[string]any{liveList(t)}, jobs: `{"not": "a list"}`}
	live, err := DiscoverRay(context.Background(), RayLiveOptions{Client: d.client(t)})
	if err != nil || live.SweepErr == nil || len(live.Swept) != 0 || live.Inventory == nil || len(d.deleted) != 0 {
		t.Errorf("live %+v, %v, deleted %v", live, err, d.deleted)
	}
}

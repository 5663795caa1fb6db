package exec

import (
	"context"
	"errors"

	"github.com/rlsolve/rlsolve/internal/raycli"
)

// NewRayAPI is the Ray backend's view of a raycli client.
func NewRayAPI(c *raycli.Client) RayAPI { return rayClient{c} }

type rayClient struct{ c *raycli.Client }

func (a rayClient) Address() string { return a.c.Address() }

func (a rayClient) CheckVersion(ctx context.Context) (string, error) {
	v, err := a.c.CheckVersion(ctx)
	if err != nil {
		return "", err
	}
	return v.Ray, nil
}

func (a rayClient) NodeRows(ctx context.Context) ([]byte, error) {
	_, raw, err := a.c.Nodes(ctx)
	return raw, err
}

// UploadDir uploads the files once: a package is named by its content.
func (a rayClient) UploadDir(ctx context.Context, files map[string][]byte) (string, error) {
	zip, err := raycli.ZipDir(files)
	if err != nil {
		return "", err
	}
	uri := raycli.PackageURI(zip)
	if ok, err := a.c.PackageExists(ctx, uri); err != nil || ok {
		return uri, err
	}
	return uri, a.c.UploadPackage(ctx, uri, zip)
}

func (a rayClient) PutKey(ctx context.Context, uri string, data []byte) error {
	return a.c.UploadPackage(ctx, uri, data)
}

func (a rayClient) SubmitJob(ctx context.Context, j *RayJobSpec) error {
	env := map[string]any{}
	for k, v := range j.Env {
		env[k] = v
	}
	_, err := a.c.SubmitJob(ctx, &raycli.JobSubmit{Entrypoint: j.Entrypoint, SubmissionID: j.SubmissionID,
		RuntimeEnv: map[string]any{"working_dir": j.WorkingDir, "env_vars": env}, Metadata: j.Metadata})
	return err
}

func (a rayClient) JobStatus(ctx context.Context, id string) (string, string, error) {
	info, err := a.c.Job(ctx, id)
	if errors.Is(err, raycli.ErrNotFound) {
		return "", "", errors.Join(ErrRayNoJob, err)
	}
	if err != nil {
		return "", "", err
	}
	return string(info.Status), info.Message, nil
}

func (a rayClient) StopJob(ctx context.Context, id string) error {
	_, err := a.c.StopJob(ctx, id)
	return err
}

func (a rayClient) DeleteJob(ctx context.Context, id string) error {
	_, err := a.c.DeleteJob(ctx, id)
	return err
}

func (a rayClient) TailJobLogs(ctx context.Context, id string, fn func(string) error) error {
	return a.c.TailJobLogs(ctx, id, fn)
}

// Leftovers asks the State API for the launch's live actors and its
// placement group, unless removed.
func (a rayClient) Leftovers(ctx context.Context, namespace, pgName string) ([]string, error) {
	actors, err := a.c.Actors(ctx, raycli.Filter{Key: "ray_namespace", Op: "=", Value: namespace}, raycli.Filter{Key: "state", Op: "!=", Value: "DEAD"})
	if err != nil {
		return nil, err
	}
	pgs, err := a.c.PlacementGroups(ctx, raycli.Filter{Key: "name", Op: "=", Value: pgName}, raycli.Filter{Key: "state", Op: "!=", Value: "REMOVED"})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, x := range actors {
		out = append(out, "actor "+x.Name+" ("+x.State+")")
	}
	for _, p := range pgs {
		out = append(out, "placement group "+p.Name+" ("+p.State+")")
	}
	return out, nil
}

// SupervisorAlive asks for the job's supervisor actor (Ray names it
// _ray_internal_job_actor_<submission id>) unless dead.
func (a rayClient) SupervisorAlive(ctx context.Context, id string) (bool, error) {
	actors, err := a.c.Actors(ctx, raycli.Filter{Key: "name", Op: "=", Value: "_ray_internal_job_actor_" + id}, raycli.Filter{Key: "state", Op: "!=", Value: "DEAD"})
	return len(actors) > 0, err
}

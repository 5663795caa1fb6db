#!/usr/bin/env bash
# record.sh ADDRESS: records the dashboard's answers the client tests replay.
# Run against a fresh single-node Ray 2.52 started with --num-gpus 2 (see
# ../../../docs or the raycli brief); it submits three small jobs, records
# each endpoint with curl and deletes the jobs. Each file is STATUS\nBODY.
set -euo pipefail
A=${1:-http://127.0.0.1:8300}
# PY is the Python the jobs run (the one with ray installed on the cluster).
PY=${PY:-python}
# RUN makes the job ids and the package name new, so no earlier run's job
# or log mixes in (the tests read the ids from job_submit.json).
RUN=${RUN:-$(date +%s)}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
rec() { # rec NAME curl-args...: saves the status line and the body
	local name=$1; shift
	local code
	code=$(curl -sS -o "$tmp/body" -w '%{http_code}' "$@")
	{ echo "$code"; cat "$tmp/body"; } >"$here/$name"
}
mkdir -p "$tmp/wd"
cat >"$tmp/wd/job.py" <<'PY'
import sys, time, ray
ray.init(address="auto")
@ray.remote(num_cpus=0)
class Holder:
    def ping(self): return 1
pg = ray.util.placement_group([{"CPU": 0.01}], name="rec-pg")
ray.get(pg.ready())
h = Holder.options(name="rec-actor", namespace="rec-ns", lifetime=None).remote()
ray.get(h.ping.remote())
print("ready", flush=True)
time.sleep(float(sys.argv[1]))
PY
(cd "$tmp/wd" && python3 -c 'import zipfile; z=zipfile.ZipFile("../wd.zip","w"); z.write("job.py"); z.close()')
pkg=_ray_pkg_$(printf %032x "$RUN").zip
rec version.json "$A/api/version"
rec package_missing.txt "$A/api/packages/gcs/$pkg"
rec package_put.txt -X PUT --data-binary @"$tmp/wd.zip" "$A/api/packages/gcs/$pkg"
rec package_present.txt -o /dev/null "$A/api/packages/gcs/$pkg"
sub='{"entrypoint":"'$PY' job.py 120","submission_id":"rec-long-'$RUN'","runtime_env":{"working_dir":"gcs://'$pkg'","env_vars":{"A":"1"}},"metadata":{"by":"record.sh"}}'
rec job_submit.json -X POST -H 'Content-Type: application/json' -d "$sub" "$A/api/jobs/"
rec job_submit_again.txt -X POST -H 'Content-Type: application/json' -d "$sub" "$A/api/jobs/"
for _ in $(seq 120); do curl -s "$A/api/jobs/rec-long-$RUN/logs" | grep -q ready && break; sleep 1; done
rec job_running.json "$A/api/jobs/rec-long-$RUN"
rec job_logs.json "$A/api/jobs/rec-long-$RUN/logs"
rec nodes.json "$A/api/v0/nodes?limit=10000&detail=true"
rec actors.json "$A/api/v0/actors?limit=10000&filter_keys=ray_namespace&filter_predicates=%3D&filter_values=rec-ns"
rec placement_groups.json "$A/api/v0/placement_groups?limit=10000&filter_keys=state&filter_predicates=%21%3D&filter_values=REMOVED"
rec job_delete_running.txt -X DELETE "$A/api/jobs/rec-long-$RUN"
rec job_stop.json -X POST "$A/api/jobs/rec-long-$RUN/stop"
for _ in $(seq 60); do curl -s "$A/api/jobs/rec-long-$RUN" | grep -q '"STOPPED"' && break; sleep 1; done
rec job_stopped.json "$A/api/jobs/rec-long-$RUN"
rec job_stop_again.json -X POST "$A/api/jobs/rec-long-$RUN/stop"
rec job_delete.json -X DELETE "$A/api/jobs/rec-long-$RUN"
rec job_missing.txt "$A/api/jobs/rec-no-such-job"
rec job_stop_missing.txt -X POST "$A/api/jobs/rec-no-such-job/stop"
curl -sS -X POST -H 'Content-Type: application/json' -d '{"entrypoint":"echo hello; echo world; exit 3","submission_id":"rec-exit3-'$RUN'"}' "$A/api/jobs/" >/dev/null
for _ in $(seq 60); do curl -s "$A/api/jobs/rec-exit3-$RUN" | grep -q '"FAILED"' && break; sleep 1; done
rec job_failed.json "$A/api/jobs/rec-exit3-$RUN"
rec job_failed_logs.json "$A/api/jobs/rec-exit3-$RUN/logs"
curl -sS -X DELETE "$A/api/jobs/rec-exit3-$RUN" >/dev/null
rec not_dashboard.txt "$A/no/such/path"
# Against a cluster started with RAY_AUTH_MODE=token (AUTH=1): a request
# without the token and one with a wrong token.
if [ "${AUTH:-}" = 1 ]; then
	rec auth_missing.txt "$A/api/v0/nodes?limit=10000&detail=true"
	rec auth_wrong.txt -H 'Authorization: Bearer wrong' "$A/api/v0/nodes?limit=10000&detail=true"
fi

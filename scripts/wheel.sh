#!/usr/bin/env bash
# Builds rlsolve's platform wheels into OUTDIR: the static binary inside the
# Python package of python/rlsolve, for pip install without Go.
#
#   scripts/wheel.sh OUTDIR              # linux x86_64 and aarch64
#   RLSOLVE_WHEEL_TARGETS=linux/amd64 scripts/wheel.sh OUTDIR
#
# Binaries are CGO_ENABLED=0 static builds: they run on any Linux (glibc or
# musl), so each wheel is tagged manylinux2014 and musllinux. What cgo would
# add is `topology --nvml` (go-nvml loads libnvidia-ml.so.1 through cgo);
# --slurm, --ray and inventory files work. macOS and Windows do not build:
# launch (exec/) uses Linux's process and cgroup calls.
#
# The version is X.Y.Z when a tag vX.Y.Z names HEAD, else 0.0.0.devN (N the
# number of commits), both PEP 440; entries carry HEAD's commit time, so the
# same commit gives the same bytes; `rlsolve version` prints the version and
# the commit. Needs only Go and git.
set -euo pipefail
out=${1:?usage: scripts/wheel.sh OUTDIR}
cd "$(dirname "$0")/.."
mkdir -p "$out"
out=$(cd "$out" && pwd)

tag=$(git describe --tags --exact-match --match 'v[0-9]*' 2>/dev/null || true)
if [[ $tag =~ ^v([0-9]+\.[0-9]+\.[0-9]+)$ ]]; then
  version=${BASH_REMATCH[1]}
else
  version=0.0.0.dev$(git rev-list --count HEAD)
fi
epoch=$(git log -1 --format=%ct)
revision=$(git rev-parse HEAD)

# GOOS/GOARCH -> the wheel's platform tags.
platform() {
  case $1 in
    linux/amd64) echo manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64 ;;
    linux/arm64) echo manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64 ;;
    *) echo "scripts/wheel.sh: no wheel for $1 (launch builds only for Linux)" >&2; return 1 ;;
  esac
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/mkwheel" ./internal/wheel/mkwheel
for target in ${RLSOLVE_WHEEL_TARGETS:-linux/amd64 linux/arm64}; do
  tags=$(platform "$target")
  bin=$work/${target//\//-}/rlsolve
  CGO_ENABLED=0 GOOS=${target%/*} GOARCH=${target#*/} \
    go build -trimpath -buildvcs=false -o "$bin" \
      -ldflags="-s -w -buildid= -X main.releaseVersion=$version -X main.releaseRevision=$revision" ./cmd/rlsolve
  "$work/mkwheel" -binary "$bin" -package python/rlsolve -readme python/rlsolve/README.md \
    -version "$version" -tags "$tags" -epoch "$epoch" -out "$out"
done

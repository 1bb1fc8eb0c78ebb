#!/usr/bin/env bash
# Builds the Kubernetes tools the operator tests, the chart checks and the benchmark need, from their Go
# modules (through the configured Go module proxy), into the git-ignored .tools/bin. Each binary is built
# only when it is missing, so a warm run takes a second. Needs Go >= 1.24 (for the Kubernetes build).
# Also builds SeaweedFS's weed, the real S3-compatible store the artifacts tests run as a local process
# (test/helpers/s3-server.ts); its module asks for Go >= 1.26.6 (an older go fetches that toolchain itself).
#
#   scripts/k8s-tools.sh            build whatever is missing
#   scripts/k8s-tools.sh weed       build only weed
#   scripts/k8s-tools.sh nats       build only nats-server (for the nats image)
#   scripts/k8s-tools.sh netpol     build only kube-network-policies (patched; part of node)
#   scripts/k8s-tools.sh --print    print the bin folder and the pinned versions
#
# Pinned versions (one Kubernetes release; the k8s.io/* staging modules at the matching v0.x).
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.34.4}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
KWOK_VERSION="${KWOK_VERSION:-v0.7.0}"
HELM_VERSION="${HELM_VERSION:-v3.19.5}"
KUBECONFORM_VERSION="${KUBECONFORM_VERSION:-v0.7.0}"
COREDNS_VERSION="${COREDNS_VERSION:-v1.15.0}"
# The chart's in-cluster NATS where no registry image can be pulled (npm run images -- nats).
NATS_SERVER_VERSION="${NATS_SERVER_VERSION:-v2.15.2}"
# SeaweedFS has no tagged Go module versions; the proxy serves this pseudo-version (weed reports 4.53).
SEAWEEDFS_VERSION="${SEAWEEDFS_VERSION:-v0.0.0-20261109003541-7506e5f91cd6}"
# The real-node test's NetworkPolicy enforcer, built with scripts/patches/kube-network-policies-$NETPOL_VERSION.patch.
NETPOL_VERSION="${NETPOL_VERSION:-v0.8.0}"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${BROWSERFLEET_TOOLS_DIR:-$ROOT/.tools}"
BIN="$TOOLS/bin"
SRC="$TOOLS/src"
mkdir -p "$BIN" "$SRC"

if [[ "${1:-}" == "--print" ]]; then
  echo "bin=$BIN kube=$KUBE_VERSION etcd=$ETCD_VERSION kwok=$KWOK_VERSION helm=$HELM_VERSION kubeconform=$KUBECONFORM_VERSION seaweedfs=$SEAWEEDFS_VERSION netpol=$NETPOL_VERSION"
  exit 0
fi

command -v go >/dev/null || { echo "k8s-tools: Go is not installed (need Go >= 1.24)" >&2; exit 2; }

# Be gentle with the machine: other work (tests, other builds) keeps running.
NICE=(nice -n 10)
export CGO_ENABLED=0
export GOFLAGS="${GOFLAGS:-} -trimpath -buildvcs=false"
LDFLAGS_BASE="-s -w"

log() { printf '[k8s-tools %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
have() { [[ -x "$BIN/$1" && -f "$BIN/.$1.version" && "$(cat "$BIN/.$1.version")" == "$2" ]]; }
mark() { echo "$2" >"$BIN/.$1.version"; }

build_kube() { # binaries of k8s.io/kubernetes/cmd to build (default: the control plane)
  local want=("$@") missing=()
  [[ ${#want[@]} -eq 0 ]] && want=(kube-apiserver kube-controller-manager kube-scheduler)
  for b in "${want[@]}"; do have "$b" "$KUBE_VERSION" || missing+=("$b"); done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  local started=$SECONDS dir="$SRC/kube-$KUBE_VERSION"
  log "building ${missing[*]} $KUBE_VERSION (several minutes from a cold cache)"
  mkdir -p "$dir"
  # k8s.io/kubernetes points its staging modules at ./staging with replace directives, so it cannot be
  # `go install`ed; a wrapper module requires it and points every staging module at its published v0.x.
  local staging="v0${KUBE_VERSION#v1}"
  local gomod
  gomod="$(cd "$dir" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  {
    echo "module browserfleet.local/kube-tools"
    echo
    echo "go 1.24"
    echo
    echo "require k8s.io/kubernetes $KUBE_VERSION"
    echo
    grep -E '^\s*k8s\.io/[a-z0-9-]+ => \./staging/' "$gomod" | awk -v v="$staging" '{print "replace " $1 " => " $1 " " v}'
  } >"$dir/go.mod"
  cat >"$dir/tools.go" <<'GO'
//go:build tools

package tools
GO
  local vpkg="k8s.io/component-base/version" cpkg="k8s.io/client-go/pkg/version"
  local ld="$LDFLAGS_BASE -X $vpkg.gitVersion=$KUBE_VERSION -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=$(echo "$KUBE_VERSION" | cut -d. -f2) -X $vpkg.gitTreeState=clean -X $cpkg.gitVersion=$KUBE_VERSION"
  (
    cd "$dir"
    GOFLAGS="$GOFLAGS -mod=mod" "${NICE[@]}" go mod download
    # The kubelet and kube-proxy import packages whose modules the control plane does not: record them.
    for b in "${missing[@]}"; do GOFLAGS="$GOFLAGS -mod=mod" "${NICE[@]}" go get "k8s.io/kubernetes/cmd/$b@$KUBE_VERSION"; done
    for b in "${missing[@]}"; do
      log "  go build $b"
      GOFLAGS="$GOFLAGS -mod=mod" "${NICE[@]}" go build -ldflags "$ld" -o "$BIN/$b" "k8s.io/kubernetes/cmd/$b"
      mark "$b" "$KUBE_VERSION"
    done
  )
  log "kube binaries done in $((SECONDS - started)) s"
}

build_etcd() {
  have etcd "$ETCD_VERSION" && return 0
  local started=$SECONDS dir="$SRC/etcd-$ETCD_VERSION"
  log "building etcd $ETCD_VERSION"
  mkdir -p "$dir"
  cat >"$dir/go.mod" <<GOMOD
module browserfleet.local/etcd-tools

go 1.24

require go.etcd.io/etcd/server/v3 $ETCD_VERSION
GOMOD
  cat >"$dir/main.go" <<'GO'
// Command etcd is the etcd server (the same entry point as the released binary).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  (
    cd "$dir"
    GOFLAGS="$GOFLAGS -mod=mod" "${NICE[@]}" go mod tidy
    "${NICE[@]}" go build -ldflags "$LDFLAGS_BASE" -o "$BIN/etcd" .
  )
  mark etcd "$ETCD_VERSION"
  log "etcd done in $((SECONDS - started)) s"
}

build_weed() {
  have weed "$SEAWEEDFS_VERSION" && return 0
  local started=$SECONDS dir="$SRC/seaweedfs-$SEAWEEDFS_VERSION" mod=github.com/seaweedfs/seaweedfs
  log "building weed (SeaweedFS $SEAWEEDFS_VERSION; about 15 minutes from a cold cache)"
  mkdir -p "$dir"
  # A wrapper module requires SeaweedFS and builds its weed command. The replace directives of a required
  # module do not apply, so the wrapper repeats SeaweedFS's own (those to another module, not to a folder).
  local gomod
  gomod="$(cd "$dir" && GOFLAGS=-mod=mod go mod download -json "$mod@$SEAWEEDFS_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  {
    echo "module browserfleet.local/weed-tools"
    echo
    echo "go 1.26"
    echo
    echo "require $mod $SEAWEEDFS_VERSION"
    echo
    grep -E '^replace [^ ]+( v[^ ]+)? => [^./ ]' "$gomod" || true
  } >"$dir/go.mod"
  (
    cd "$dir"
    GOFLAGS="$GOFLAGS -mod=mod" "${NICE[@]}" go get "$mod/weed@$SEAWEEDFS_VERSION"
    GOFLAGS="$GOFLAGS -mod=mod" "${NICE[@]}" go build -ldflags "$LDFLAGS_BASE -X $mod/weed/util/version.COMMIT=${SEAWEEDFS_VERSION##*-}" -o "$BIN/weed" "$mod/weed"
  )
  mark weed "$SEAWEEDFS_VERSION"
  log "weed done in $((SECONDS - started)) s"
}

build_netpol() {
  # The version mark holds the patch's sha256 too, so a changed patch rebuilds the binary.
  local patch="$ROOT/scripts/patches/kube-network-policies-$NETPOL_VERSION.patch" want
  want="$NETPOL_VERSION $(sha256sum "$patch" | cut -d' ' -f1)"
  have kube-network-policies "$want" && return 0
  local started=$SECONDS dir="$SRC/kube-network-policies-$NETPOL_VERSION" mod=sigs.k8s.io/kube-network-policies
  log "building kube-network-policies $NETPOL_VERSION with ${patch#"$ROOT/"}"
  # The module's source, read-only in the module cache, is copied to be patched; its main is ./cmd.
  local moddir
  moddir="$(cd "$SRC" && GOFLAGS=-mod=mod go mod download -json "$mod@$NETPOL_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
  [[ -d "$moddir" ]] || { log "go mod download $mod@$NETPOL_VERSION gave no source folder"; exit 1; }
  if [[ -d "$dir" ]]; then chmod -R u+w "$dir"; rm -rf "$dir"; fi
  cp -r "$moddir" "$dir"
  chmod -R u+w "$dir"
  # The ceiling keeps git apply from taking this repository for the patch's (paths are $dir's).
  GIT_CEILING_DIRECTORIES="$SRC" git -C "$dir" apply "$patch"
  (
    cd "$dir"
    "${NICE[@]}" go build -ldflags "$LDFLAGS_BASE" -o "$BIN/kube-network-policies" ./cmd
  )
  mark kube-network-policies "$want"
  log "kube-network-policies done in $((SECONDS - started)) s"
}

go_install() { # name module@version
  local name=$1 modver=$2 version=${2##*@}
  have "$name" "$version" && return 0
  local started=$SECONDS
  log "go install $modver"
  GOBIN="$BIN" "${NICE[@]}" go install -ldflags "$LDFLAGS_BASE" "$modver"
  mark "$name" "$version"
  log "$name done in $((SECONDS - started)) s"
}

what="${1:-all}"
case "$what" in
  all)
    go_install kubeconform "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"
    go_install helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
    build_etcd
    go_install kwok "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
    build_kube
    build_weed
    ;;
  chart) go_install kubeconform "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"
         go_install helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" ;;
  cluster) build_etcd; go_install kwok "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"; build_kube ;;
  # A real node for test/k8s/real-node.test.ts (npm run test:node): the kubelet, kube-proxy, the
  # cluster's DNS (CoreDNS) and its NetworkPolicy enforcer (kube-network-policies).
  node) build_kube kubelet kube-proxy
        go_install coredns "github.com/coredns/coredns@$COREDNS_VERSION"
        go_install nats-server "github.com/nats-io/nats-server/v2@$NATS_SERVER_VERSION"
        build_netpol ;;
  # kube-network-policies, patched (scripts/patches/), for the real-node test.
  netpol) build_netpol ;;
  # nats-server, static, for the nats image (scripts/images.ts).
  nats) go_install nats-server "github.com/nats-io/nats-server/v2@$NATS_SERVER_VERSION" ;;
  # The S3-compatible store of the artifacts tests (test/helpers/s3-server.ts).
  weed) build_weed ;;
  *) echo "usage: $0 [all|chart|cluster|node|netpol|nats|weed|--print]" >&2; exit 2 ;;
esac
log "ready in $BIN"

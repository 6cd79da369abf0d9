# Sourced by deploy/containers/*: image names, and podman set up for this kind of machine.
source "$(dirname "${BASH_SOURCE[0]}")/../local/env.sh"
HALLMARK_CONTAINERS=$HALLMARK_STATE/containers
HALLMARK_IMAGE_TARGETS=(signer authority gateway aggregator edge hallmark metrics)
HALLMARK_LOCAL_DEBIAN_IMAGE=localhost/hallmark-base/debian:bookworm
HALLMARK_LOCAL_SWIFT_IMAGE=localhost/hallmark-base/swift:bookworm

# Installs podman (with runc) and debootstrap if missing, and points podman at a containers.conf
# of our own. Measured on the machines this project runs on: crun, podman's default runtime,
# fails there, and runc fails without explicit limits; runc with the cgroupfs manager and the
# ulimits below runs containers. Events go to a file, as there is no systemd journal.
containers_setup() {
  local missing=() p
  for p in podman buildah runc debootstrap uidmap; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    say "installing Debian packages: ${missing[*]}"
    local sudo_=""; [ "$(id -u)" = 0 ] || sudo_=sudo
    $sudo_ apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  mkdir -p "$HALLMARK_CONTAINERS"
  cat >"$HALLMARK_CONTAINERS/containers.conf" <<CONF
# Written by deploy/containers/env.sh, which overwrites edits.
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=1000:1000"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
  export CONTAINERS_CONF=$HALLMARK_CONTAINERS/containers.conf
}

# podman asks systemd for a timer per container with a health check; there is no systemd on
# these machines, so it logs an error for each and carries on. Those lines are dropped here,
# every other message is kept.
podman() { command podman "$@" 2> >(grep -v 'unable to get systemd connection' >&2); }

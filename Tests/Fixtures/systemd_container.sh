#!/usr/bin/env bash
# Boots a real systemd as PID 1 of a throw-away container (systemd-nspawn --boot), for the
# service tests: the systemd units of `clawpair node install` run under a service manager as they
# would on a machine booted with systemd (the test machine's own PID 1 is not systemd).
#
#   systemd_container.sh NAME SCRATCH BINARY --netns NETNS [--bind PATH]...
#
# NAME     the machine name (host name inside), and the name of the cgroup made for it;
# SCRATCH  an empty directory: a tmpfs is mounted on it (in this script's private mount
#          namespace) for the overlay's upper and work layers and the container's root;
# BINARY   the clawpair under test, bound read-only at /usr/local/bin/clawpair;
# --netns  the network namespace (/run/netns/NETNS, a lab host's) the container joins;
# --bind   a host directory bound at the same path inside (e.g. a clawpair home), read-write.
#
# The container's root is an overlay whose lower layer is this machine's own root file system
# (the same systemd, libraries and Swift runtime, nothing downloaded) and whose upper layer is a
# tmpfs: nothing the container writes reaches the host. The host's enabled services are hidden
# (the upper /etc/systemd/system is an opaque, empty directory), so it boots the distribution's
# multi-user.target only. Its network is the lab host's namespace given with --netns, never the
# machine's own. Start it from the machine's own mount namespace, not under `ip netns exec`
# (which mounts a fresh /sys without the cgroup file systems systemd-nspawn needs).
#
# Every mount lives in a private mount namespace (unshare) and disappears with the last process
# in it. The one thing left on the host is the cgroup made for the container (the supervisor and
# the payload subtree systemd-nspawn makes with --keep-unit): the caller removes it once the
# container has exited (`systemd_container.sh --remove-cgroup NAME`).
# SIGTERM to this process (systemd-nspawn by then) halts the container cleanly.
set -euo pipefail

cgroup_roots() {
  # Hybrid (v1 name=systemd + a unified cgroup2) or unified only.
  if [ -d /sys/fs/cgroup/unified ] && [ -d /sys/fs/cgroup/systemd ]; then
    echo /sys/fs/cgroup/systemd /sys/fs/cgroup/unified
  elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    echo /sys/fs/cgroup
  elif [ -d /sys/fs/cgroup/systemd ]; then
    echo /sys/fs/cgroup/systemd
  fi
}

if [ "${1:-}" = "--remove-cgroup" ]; then
  name=${2:?name}
  for root in $(cgroup_roots); do
    [ -d "$root/$name" ] || continue
    # Deepest first; a cgroup with a process left in it is not removed (rmdir fails: EBUSY).
    find "$root/$name" -depth -type d -exec rmdir {} + 2>/dev/null || true
    if [ -d "$root/$name" ]; then echo "cannot remove cgroup $root/$name" >&2; exit 1; fi
  done
  exit 0
fi

if [ -z "${SYSTEMD_CONTAINER_PRIVATE:-}" ]; then
  # Everything below in a private mount namespace; unshare execs (same pid).
  SYSTEMD_CONTAINER_PRIVATE=1 exec unshare --mount --propagation private "$0" "$@"
fi

name=${1:?name}
scratch=${2:?scratch directory}
binary=${3:?clawpair binary}
shift 3
binds=()
netns=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bind) binds+=("--bind=$2"); shift 2 ;;
    --netns) netns=$2; shift 2 ;;
    *) echo "systemd_container.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

[ -n "$netns" ] && [ -e "/run/netns/$netns" ] || { echo "systemd_container.sh: --netns names no /run/netns entry" >&2; exit 2; }
[ -d "$scratch" ] || { echo "systemd_container.sh: no directory $scratch" >&2; exit 2; }
[ -x "$binary" ] || { echo "systemd_container.sh: $binary is not executable" >&2; exit 2; }
mount -t tmpfs -o mode=0755 "container-$name" "$scratch"
mkdir "$scratch/upper" "$scratch/work" "$scratch/root" "$scratch/dev"
# systemd-nspawn copies these device nodes from the host's /dev and refuses to boot when one is
# not a device. Something run as root may have replaced one with a regular file (zsh's
# `compinit -d /dev/null` did so to /dev/null): a good node is bound over it in this mount
# namespace only, and the damage is reported.
for entry in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
  IFS=: read -r dev major minor <<< "$entry"
  if [ ! -c "/dev/$dev" ]; then
    echo "systemd_container.sh: the machine's /dev/$dev is not a character device; the container gets a good one" >&2
    mknod -m 0666 "$scratch/dev/$dev" c "$major" "$minor"
    mount --bind "$scratch/dev/$dev" "/dev/$dev"
  fi
done
# Hide the host's enabled units (and its default.target): an opaque /etc/systemd/system.
mkdir -p "$scratch/upper/etc/systemd/system"
python3 -c 'import os, sys; os.setxattr(sys.argv[1], "trusted.overlay.opaque", b"y")' "$scratch/upper/etc/systemd/system"
mount -t overlay "overlay-$name" -o "lowerdir=/,upperdir=$scratch/upper,workdir=$scratch/work" "$scratch/root"
# systemd-nspawn keeps its propagation directory under /run/systemd/nspawn and refuses to remove
# it from a disk file system (here /run is on the root disk): a private tmpfs for it.
mount -t tmpfs -o mode=0755 "run-systemd-$name" /run/systemd

# A cgroup of the container's own (systemd-nspawn --keep-unit makes supervisor/ and payload/ in
# the cgroup it runs in, and the container's systemd manages payload/).
for root in $(cgroup_roots); do
  mkdir "$root/$name"
  echo $$ > "$root/$name/cgroup.procs"
done

exec systemd-nspawn --quiet --directory="$scratch/root" --machine="$name" --boot \
  --network-namespace-path="/run/netns/$netns" --register=no --keep-unit --link-journal=no --console=read-only \
  --resolv-conf=off --timezone=off \
  --bind-ro="$binary:/usr/local/bin/clawpair" "${binds[@]}" \
  -- --unit=multi-user.target

#!/usr/bin/env bash
# slurm-prefix.sh LOCAL_SLURM: local-slurm.sh start and stop, as root, refuse
# a prefix that is not root's alone and write nothing there (issue 47, item 3):
# one another user made (with a planted link), one of root's with a link in
# it, one writable by others, one under another user's folder, a link as the
# prefix. The daemons on PATH are stand-ins that fail: a script that did not
# refuse would write its configuration first, through the planted link.
set -euo pipefail

local_slurm=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 1777 "$work" # as /tmp: anyone may make a folder here
mkdir "$work/bin"
for daemon in munged slurmctld slurmd scontrol; do
  printf '#!/bin/sh\necho "stand-in %s" >&2\nexit 1\n' "$daemon" >"$work/bin/$daemon"
  chmod +x "$work/bin/$daemon"
done
victim=$work/victim
(umask 077 && echo "root's own" >"$victim")
result=0

# refused ACTION PREFIX MESSAGE: ACTION exits 1 saying MESSAGE, the victim
# is as it was and no configuration was written.
refused() {
  local status=0 errors
  errors=$(PATH=$work/bin:$PATH SCALEGUARD_SLURM_CGROUP=yes SCALEGUARD_SLURM_PORT=29990 \
    "$local_slurm" "$1" --prefix "$2" 2>&1) || status=$?
  if ((status != 1)) || [[ $errors != *"$3"* ]]; then
    echo "FAIL: $1 --prefix $2: exit $status, expected 1 and '$3'; said: $errors"
    result=1
  fi
  if [[ $(cat "$victim") != "root's own" ]]; then
    echo "FAIL: $1 --prefix $2 wrote into $victim"
    result=1
  fi
  if [[ -e $2/etc/slurm.conf || -e $2/env ]]; then
    echo "FAIL: $1 --prefix $2 wrote its configuration there"
    result=1
  fi
}

# Another user's prefix, a link planted where the cgroup configuration goes.
runuser -u nobody -- mkdir -m 0777 "$work/theirs" "$work/theirs/etc"
runuser -u nobody -- ln -s "$victim" "$work/theirs/etc/cgroup.conf"
refused start "$work/theirs" "$work/theirs belongs to user 65534, not root: refused"
refused stop "$work/theirs" "$work/theirs belongs to user 65534, not root: refused"

# Root's own prefix holding a link root did not make.
mkdir -p "$work/linked/etc"
ln -s "$victim" "$work/linked/etc/cgroup.conf"
refused start "$work/linked" \
  "$work/linked/etc/cgroup.conf is a link or another user's file, not one this script made"

# A file of another user's in root's prefix.
mkdir -p "$work/planted/run"
touch "$work/planted/run/slurmd.pid"
chown nobody "$work/planted/run/slurmd.pid"
refused stop "$work/planted" \
  "$work/planted/run/slurmd.pid is a link or another user's file, not one this script made"

# Root's, but anyone may write into it.
mkdir -m 0777 "$work/open"
chmod 0777 "$work/open"
refused start "$work/open" "$work/open is writable by others (mode 777): refused"

# A folder above the prefix another user owns (it could swap the prefix).
runuser -u nobody -- mkdir -m 0755 "$work/above"
refused start "$work/above/cluster" "$work/above (above $work/above/cluster) belongs to user 65534"

# The prefix a link (to root's own folder).
mkdir "$work/target"
ln -s "$work/target" "$work/link"
refused start "$work/link" "$work/link is not a folder (a link?): refused"
[[ -z $(ls -A "$work/target") ]] || { echo "FAIL: wrote through the link $work/link"; result=1; }

# The default prefix is root's own /run, not a name in the shared /tmp.
help=$("$local_slurm" --help)
if [[ $help != *"else
/run/scaleguard-slurm)"* ]]; then
  echo "FAIL: --help does not give /run/scaleguard-slurm as the default prefix: $help"
  result=1
fi
((result)) || echo PASS
exit "$result"

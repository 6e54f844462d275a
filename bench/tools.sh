#!/usr/bin/env bash
# Installs what the bench drives and measures with, from Debian's packages, when it is missing:
# wrk (the load generator of the HTTP figures: C, multi-threaded, so the server and not the
# generator bounds a rate) and GNU time (the replay's exact peak RSS and CPU time; without it
# the bench polls /proc instead). Run by `npm run bench`; set BENCH_WRK to use another wrk.
set -euo pipefail

need=()
command -v "${BENCH_WRK:-wrk}" >/dev/null 2>&1 || need+=(wrk)
[ -x /usr/bin/time ] || need+=(time)
[ ${#need[@]} -eq 0 ] && exit 0

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
if ! command -v apt-get >/dev/null 2>&1 || { [ ${#sudo[@]} -gt 0 ] && ! command -v sudo >/dev/null 2>&1; }; then
  echo "The bench needs: ${need[*]}. Install them (or set BENCH_WRK to a wrk binary)." >&2
  exit 1
fi
echo "installing ${need[*]} for the bench" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq >&2
"${sudo[@]}" apt-get install -y -qq "${need[@]}" >/dev/null

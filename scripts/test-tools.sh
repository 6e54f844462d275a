#!/usr/bin/env bash
# Installs what the browser, terminal, metrics and unit-file tests drive, from Debian's packages,
# when it is missing: Chromium (browsers cannot be downloaded here), tmux (the CLI's prompts on a
# real terminal), Prometheus (test/integration/metrics.test.ts scrapes the daemon with it) and
# systemd's systemd-analyze (it verifies deploy/affiliated.service; no running systemd needed).
# Run by `npm test` and `.ci/run`, so a fresh machine needs no set-up of its own.
set -euo pipefail

need=()
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || need+=(chromium)
command -v tmux >/dev/null 2>&1 || need+=(tmux)
command -v "${PROMETHEUS_PATH:-prometheus}" >/dev/null 2>&1 || need+=(prometheus)
command -v systemd-analyze >/dev/null 2>&1 || need+=(systemd)
[ ${#need[@]} -eq 0 ] && exit 0

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
if ! command -v apt-get >/dev/null 2>&1 || { [ ${#sudo[@]} -gt 0 ] && ! command -v sudo >/dev/null 2>&1; }; then
  echo "The browser, terminal, metrics and unit-file tests need: ${need[*]}. Install them (or set CHROMIUM_PATH to a Chromium, PROMETHEUS_PATH to a Prometheus)." >&2
  exit 1
fi
echo "installing ${need[*]} for the browser, terminal, metrics and unit-file tests" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq >&2
"${sudo[@]}" apt-get install -y -qq "${need[@]}" >/dev/null

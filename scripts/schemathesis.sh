#!/usr/bin/env bash
# Fuzzes the daemon's own document with Schemathesis: every check, every phase (stateful
# included), seed 42, against a fresh daemon on a throwaway SQLite file. Exit status is
# Schemathesis's: 0 only when document and server agree everywhere.
#
# Schemathesis 4.25 is a Python tool, installed once into a virtualenv (SCHEMATHESIS_VENV, default
# .cache/schemathesis): from the package index, or from a wheel file when SCHEMATHESIS_WHEEL names
# one (or a folder holding it). Webhook operations make the daemon call the URLs the fuzzer
# invents, so the run happens inside a network namespace holding only loopback (`unshare -rn`).
# Needs a build (`npm run build`). Extra arguments go to `schemathesis run`. The rules JSON Schema
# cannot state (a 400 the document cannot foresee) are named per operation in schemathesis.toml.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

venv=${SCHEMATHESIS_VENV:-$root/.cache/schemathesis}
if [ ! -x "$venv/bin/schemathesis" ]; then
  package=schemathesis==4.25.0
  if [ -n "${SCHEMATHESIS_WHEEL:-}" ]; then
    package=$SCHEMATHESIS_WHEEL
    [ -d "$package" ] && package=$(ls "$package"/schemathesis-*-py3-none-any.whl | head -n 1)
  fi
  echo "installing $package into $venv" >&2
  python3 -m venv "$venv"
  # The wheel pins versions the index may not have: then its dependencies go in by name.
  if ! "$venv/bin/pip" install -q "$package" >&2; then
    "$venv/bin/pip" install -q --no-deps "$package" >&2
    "$venv/bin/pip" install -q click harfile hypothesis hypothesis-graphql jsonschema_rs \
      'pyrate-limiter>=4,<5' 'pytest>=9,<10' PyYAML requests rich typing-extensions 'werkzeug<4' >&2
  fi
fi

if [ "${1:-}" != "--inside" ]; then
  exec unshare -rn bash "$0" --inside "$@"
fi
shift
ip link set lo up

work=$(mktemp -d)
daemon=
trap 'kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; rm -rf "$work"' EXIT
export HOME=$work DATABASE_URL=sqlite:$work/fuzz.sqlite3 PORT=3999 HOST=127.0.0.1
# The fuzzer sends thousands of requests a minute: the rate limit is not what it checks.
export RATE_LIMIT_DEFAULT_PER_MIN=1000000 RATE_LIMIT_EVENTS_PER_MIN=1000000 RATE_LIMIT_SDK_PER_MIN=1000000
cli=(node "$root/dist/cli/main.js")
"${cli[@]}" db migrate >/dev/null 2>&1
# The document's examples name the campaign acme-store: the fuzzed daemon's campaign is that one,
# so an example's campaign_id is the key's campaign, as the document means it.
"${cli[@]}" campaigns create --name "Acme Store" --id acme-store --plan unlimited --json >/dev/null 2>&1
key=$("${cli[@]}" keys create --campaign acme-store --name fuzz --json 2>/dev/null | node -e \
  'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).key))')
"${cli[@]}" serve --no-migrate >"$work/daemon.log" 2>&1 &
daemon=$!
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$PORT/v1/openapi.json" >/dev/null 2>&1 && break
  sleep 0.2
done

cd "$work"
"$venv/bin/schemathesis" --config-file "$root/scripts/schemathesis.toml" run "http://127.0.0.1:$PORT/v1/openapi.json" \
  --header "X-API-Key: $key" --checks all --phases examples,coverage,fuzzing,stateful \
  --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-100}" --seed 42 --workers 1 --continue-on-failure \
  --no-color "$@"

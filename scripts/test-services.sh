#!/usr/bin/env bash
# Starts a throwaway MariaDB and Redis on loopback for the test suite, installing them from
# Debian's packages when missing. Prints the variables to export. Used by .ci/run; developers
# can run it too:  eval "$(bash scripts/test-services.sh)"
set -euo pipefail

root="${TEST_SERVICES_DIR:-${TMPDIR:-/tmp}/affiliated-test-services}"
mysql_port="${TEST_MYSQL_PORT:-33306}"
redis_port="${TEST_REDIS_PORT:-36379}"

need=()
command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || need+=(mariadb-server)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq "${need[@]}" >&2
fi
PATH="$PATH:/usr/sbin"

mkdir -p "$root"
sock="$root/mysqld.sock"
if ! mariadb-admin --socket="$sock" -uroot ping >/dev/null 2>&1; then
  rm -rf "$root/mysql"
  mariadb-install-db --no-defaults --datadir="$root/mysql" --user=root \
    --auth-root-authentication-method=normal --skip-test-db >"$root/install.log" 2>&1
  mariadbd --no-defaults --datadir="$root/mysql" --socket="$sock" --port="$mysql_port" \
    --bind-address=127.0.0.1 --user=root --pid-file="$root/mysqld.pid" \
    --innodb-buffer-pool-size=256M --max-connections=500 --skip-name-resolve \
    --log-error="$root/mysqld.err" >/dev/null 2>&1 &
  for _ in $(seq 1 60); do
    mariadb-admin --socket="$sock" -uroot ping >/dev/null 2>&1 && break
    sleep 0.5
  done
  mariadb --socket="$sock" -uroot -e "
    CREATE USER IF NOT EXISTS 'affiliated'@'127.0.0.1' IDENTIFIED BY 'affiliated';
    GRANT ALL PRIVILEGES ON *.* TO 'affiliated'@'127.0.0.1';
    CREATE DATABASE IF NOT EXISTS affiliated_test;"
fi

if ! redis-cli -p "$redis_port" ping >/dev/null 2>&1; then
  redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
    --daemonize yes --logfile "$root/redis.log" --dir "$root" >/dev/null
  for _ in $(seq 1 40); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.25; done
fi

echo "export TEST_MYSQL_URL=mysql://affiliated:affiliated@127.0.0.1:$mysql_port/affiliated_test"
echo "export TEST_REDIS_URL=redis://127.0.0.1:$redis_port"

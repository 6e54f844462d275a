#!/usr/bin/env bash
# A throwaway 3-node MariaDB Galera cluster on loopback for `npm run test:cluster`, installed from
# Debian's packages (mariadb-server, galera-4, rsync) when missing, as scripts/test-services.sh
# does for the single MariaDB. Each node has its own datadir, SQL port, group (gcomm) port, IST
# port and SST port; buffers are small, so three nodes fit beside the rest of the test suite.
#
#   bash scripts/test-cluster.sh [start]   start what is not running, wait until every node is
#                                          Synced, print `export TEST_GALERA_URLS=...` (one URL a node)
#   bash scripts/test-cluster.sh status    each node's state and the cluster's size
#   bash scripts/test-cluster.sh kill N    SIGKILL node N (a crash: no shutdown, no flush)
#   bash scripts/test-cluster.sh restart N start node N again at its recovered position (mariadbd
#                                          --wsrep-recover) so that it rejoins by IST; wait until Synced
#   bash scripts/test-cluster.sh stop      shut every node down and remove the cluster's files
#
# Ports: node n (1-3) uses BASE+10n (SQL), +1 (gcomm), +2 (IST), +3 (SST), BASE being
# TEST_GALERA_PORT_BASE (24300: 24310-24333, below Linux's ephemeral range, away from the test
# MariaDB's 33306 and Redis's 36379). Files go to TEST_CLUSTER_DIR (/tmp/affiliated-test-cluster).
set -euo pipefail

root="${TEST_CLUSTER_DIR:-${TMPDIR:-/tmp}/affiliated-test-cluster}"
base="${TEST_GALERA_PORT_BASE:-24300}"
# As root, the nodes run as the packages' mysql user: the rsync daemon that receives a state
# transfer drops root for nobody, who could not write a root-owned datadir.
run_as=$(id -un)
[ "$(id -u)" -eq 0 ] && run_as=mysql
nodes=(1 2 3)
provider=/usr/lib/galera/libgalera_smm.so
PATH="$PATH:/usr/sbin"

say() { echo "test-cluster: $*" >&2; }
die() {
  say "$*"
  exit 1
}

install_missing() {
  local need=()
  command -v mariadbd >/dev/null 2>&1 || need+=(mariadb-server)
  [ -f "$provider" ] || need+=(galera-4)
  command -v rsync >/dev/null 2>&1 || need+=(rsync)
  # The rsync SST script finds the listening rsync daemon with lsof or ss.
  command -v lsof >/dev/null 2>&1 || command -v ss >/dev/null 2>&1 || need+=(lsof)
  [ ${#need[@]} -eq 0 ] && return 0
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  command -v apt-get >/dev/null 2>&1 || die "the cluster needs ${need[*]}: install them"
  say "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq >&2
  "${sudo[@]}" apt-get install -y -qq "${need[@]}" >&2
}

sql_port() { echo $((base + 10 * $1)); }
gcomm_port() { echo $((base + 10 * $1 + 1)); }
ist_port() { echo $((base + 10 * $1 + 2)); }
sst_port() { echo $((base + 10 * $1 + 3)); }
dir_of() { echo "$root/node$1"; }
sock_of() { echo "$(dir_of "$1")/mysqld.sock"; }

cluster_address() {
  local list=() n
  for n in "${nodes[@]}"; do list+=("127.0.0.1:$(gcomm_port "$n")"); done
  local IFS=,
  echo "gcomm://${list[*]}"
}

# One option file per node: the SST scripts read the node's settings from it too.
config_of() {
  local n=$1 dir
  dir=$(dir_of "$n")
  cat <<EOF
[mysqld]
datadir=$dir/data
socket=$(sock_of "$n")
port=$(sql_port "$n")
bind-address=127.0.0.1
user=$run_as
pid-file=$dir/mysqld.pid
log-error=$dir/mysqld.err
skip-name-resolve
max-connections=300
innodb-buffer-pool-size=96M
innodb-log-file-size=48M
# The affiliate search's FULLTEXT index is created without stopwords. Its migration turns them
# off for its own session only, and other nodes apply the DDL with their global setting.
innodb-ft-enable-stopword=OFF
# What Galera requires: row events, InnoDB, interleaved auto-increment locks.
binlog-format=ROW
default-storage-engine=InnoDB
innodb-autoinc-lock-mode=2
wsrep-on=ON
wsrep-provider=$provider
wsrep-cluster-name=affiliated-test
wsrep-cluster-address=$(cluster_address)
wsrep-node-name=node$n
wsrep-node-address=127.0.0.1:$(gcomm_port "$n")
wsrep-node-incoming-address=127.0.0.1:$(sql_port "$n")
wsrep-sst-method=rsync
wsrep-sst-receive-address=127.0.0.1:$(sst_port "$n")
# gcache holds the write sets a restarted node catches up with by IST instead of a full SST.
wsrep-provider-options=base_port=$(gcomm_port "$n");ist.recv_addr=127.0.0.1:$(ist_port "$n");gcache.size=256M
EOF
}

running() { mariadb-admin --socket="$(sock_of "$1")" -uroot ping >/dev/null 2>&1; }
# The pid recorded at launch: mariadbd writes its own pid file only once it has joined.
pid_of() { cat "$(dir_of "$1")/launched.pid" 2>/dev/null || true; }
status_var() {
  mariadb --socket="$(sock_of "$1")" -uroot -N -B -e "SHOW GLOBAL STATUS LIKE '$2'" 2>/dev/null | cut -f2
}

# Waits (up to 120 s) until node $1 is Synced in a component of $2 nodes (default: all of them).
wait_synced() {
  local n=$1 size=${2:-${#nodes[@]}} i
  for ((i = 0; i < 480; i++)); do
    if [ "$(status_var "$n" wsrep_local_state_comment)" = Synced ] &&
      [ "$(status_var "$n" wsrep_cluster_size)" = "$size" ] &&
      [ "$(status_var "$n" wsrep_ready)" = ON ]; then
      return 0
    fi
    if [ -n "$(pid_of "$n")" ] && ! kill -0 "$(pid_of "$n")" 2>/dev/null; then
      die "node $n exited while joining (see $(dir_of "$n")/mysqld.err)"
    fi
    sleep 0.25
  done
  die "node $n is not Synced in a cluster of $size after 120 s (see $(dir_of "$n")/mysqld.err)"
}

launch() {
  local n=$1
  shift
  # setsid: the node outlives the shell (or test) that started it, like a service.
  setsid mariadbd --defaults-file="$(dir_of "$n")/my.cnf" "$@" </dev/null >/dev/null 2>&1 &
  echo $! >"$(dir_of "$n")/launched.pid"
  local i
  for ((i = 0; i < 240; i++)); do
    running "$n" && return 0
    sleep 0.25
  done
  die "node $n did not start (see $(dir_of "$n")/mysqld.err)"
}

bootstrap() {
  say "bootstrapping a new cluster in $root"
  rm -rf "$root"
  local n
  for n in "${nodes[@]}"; do
    mkdir -p "$(dir_of "$n")/data"
    config_of "$n" >"$(dir_of "$n")/my.cnf"
  done
  chown -R "$run_as" "$root"
  mariadb-install-db --no-defaults --datadir="$(dir_of 1)/data" --user="$run_as" \
    --auth-root-authentication-method=normal --skip-test-db >"$root/install.log" 2>&1
  launch 1 --wsrep-new-cluster
  wait_synced 1 1
  # One joiner at a time: the donor serves one state transfer (SST) at a time.
  for n in "${nodes[@]:1}"; do
    launch "$n"
    wait_synced "$n" "$n"
  done
}

# A killed node's grastate.dat says seqno -1: --wsrep-recover reads the last committed position
# from InnoDB, and starting there lets a donor send only the missing write sets (IST).
rejoin() {
  local n=$1 dir log position started
  dir=$(dir_of "$n")
  if [ ! -s "$dir/data/grastate.dat" ]; then
    # Never joined (a bootstrap cut short): a full state transfer, as in bootstrap.
    launch "$n"
    wait_synced "$n"
    return
  fi
  log="$dir/recover.log"
  mariadbd --defaults-file="$dir/my.cnf" --wsrep-recover --log-error="$log" >/dev/null 2>&1 ||
    die "node $n: position recovery failed (see $log)"
  position=$(grep -a 'WSREP: Recovered position:' "$log" | tail -1 | sed 's/.*Recovered position: *//')
  [ -n "$position" ] || die "node $n: no recovered position in $log"
  started=$(date +%s%N)
  local before
  before=$(wc -l <"$dir/mysqld.err" 2>/dev/null || echo 0)
  launch "$n" --wsrep-start-position="$position"
  wait_synced "$n"
  local how=SST
  tail -n +"$((before + 1))" "$dir/mysqld.err" | grep -aq 'IST received' && how=IST
  local tenths=$((($(date +%s%N) - started) / 100000000))
  say "node $n rejoined at $position by $how in $((tenths / 10)).$((tenths % 10)) s"
}

start() {
  install_missing
  local primary=0 n
  for n in "${nodes[@]}"; do
    running "$n" && [ "$(status_var "$n" wsrep_cluster_status)" = Primary ] && primary=1
  done
  # A cluster started by an older version of this script runs with other settings.
  if [ $primary -eq 1 ] && ! config_of 1 | cmp -s - "$(dir_of 1)/my.cnf"; then
    say "the nodes' settings changed: starting a new cluster"
    primary=0
  fi
  if [ $primary -eq 1 ]; then
    # A node that died rejoins the ones still serving.
    for n in "${nodes[@]}"; do running "$n" || rejoin "$n"; done
  else
    # Nothing serves (first run, or quorum lost): the data is throwaway, so start anew.
    stop_all
    bootstrap
  fi
  for n in "${nodes[@]}"; do wait_synced "$n"; done
  # DCL and DDL replicate to every node (total order isolation): once is enough.
  mariadb --socket="$(sock_of 1)" -uroot -e "
    CREATE USER IF NOT EXISTS 'affiliated'@'127.0.0.1' IDENTIFIED BY 'affiliated';
    GRANT ALL PRIVILEGES ON *.* TO 'affiliated'@'127.0.0.1';
    CREATE DATABASE IF NOT EXISTS affiliated_test;"
  local urls=()
  for n in "${nodes[@]}"; do urls+=("mysql://affiliated:affiliated@127.0.0.1:$(sql_port "$n")/affiliated_test"); done
  local IFS=,
  echo "export TEST_GALERA_URLS=${urls[*]}"
}

kill_node() {
  local n=$1 pid
  pid=$(pid_of "$n")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || die "node $n is not running"
  kill -9 "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  say "node $n killed (pid $pid)"
}

status() {
  local n
  for n in "${nodes[@]}"; do
    if running "$n"; then
      echo "node $n: $(status_var "$n" wsrep_local_state_comment), cluster size $(status_var "$n" wsrep_cluster_size), port $(sql_port "$n")"
    else
      echo "node $n: down"
    fi
  done
}

# SIGTERM is a clean shutdown; a node that has not finished joining (no socket yet) only exits on SIGKILL.
stop_all() {
  local n pid i
  for n in "${nodes[@]}"; do
    pid=$(pid_of "$n")
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || continue
    running "$n" && kill -TERM "$pid" || kill -9 "$pid"
    i=0
    while kill -0 "$pid" 2>/dev/null; do
      i=$((i + 1))
      [ $i -eq 300 ] && kill -9 "$pid"
      sleep 0.1
    done
  done
}

stop() {
  stop_all
  rm -rf "$root"
  say "stopped"
}

node_arg() {
  case "${1:-}" in
    1 | 2 | 3) echo "$1" ;;
    *) die "name a node: 1, 2 or 3" ;;
  esac
}

case "${1:-start}" in
  start) start ;;
  status) status ;;
  kill) kill_node "$(node_arg "${2:-}")" ;;
  restart)
    n=$(node_arg "${2:-}")
    running "$n" && die "node $n is running"
    rejoin "$n"
    ;;
  stop) stop ;;
  *) die "usage: test-cluster.sh [start|status|kill N|restart N|stop]" ;;
esac

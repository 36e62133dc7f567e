#!/usr/bin/env bash
# Prepares a Debian or Ubuntu machine for every test of connect-roll, installing only what is missing, from the
# distribution's own packages (run as root, or with sudo):
#   redis     redis-server, started on 127.0.0.1:6379 when nothing answers there  (npm test: the redis and e2e projects)
#   tools     redis-sentinel, redis-tools, openssl, openssh-server                 (npm test: Sentinel, Cluster, TLS, VM/ssh tests)
#   chromium  Chromium at /usr/bin/chromium                                        (npm test: the demo's browser test)
#   java      a JDK 17 and Maven                                                   (npm run test:kafka, the matrix, fidelity --kafka, connect-roll lab)
# Usage: scripts/prepare-machine.sh [redis|tools|chromium|java]…   (no argument: all four)
# `npm run test:fast` needs none of them. .ci/run calls this script.
set -euo pipefail

log() { printf '\n=== %s\n' "$*" >&2; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "prepare-machine: run as root (or install sudo): it installs packages with apt-get" >&2
    exit 1
  fi
fi

apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "prepare-machine: no apt-get here; install these yourself: $*" >&2
    exit 1
  fi
  if [ -z "${APT_UPDATED:-}" ]; then $SUDO apt-get update -qq; APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

ensure_redis() {
  if command -v redis-cli >/dev/null 2>&1 && redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; then
    log "Redis answers on 127.0.0.1:6379"
    return
  fi
  if ! command -v redis-server >/dev/null 2>&1; then
    log "installing redis-server"
    apt_install redis-server
  fi
  log "starting redis-server on 127.0.0.1:6379"
  $SUDO mkdir -p /var/lib/redis /var/log/redis
  $SUDO redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/connect-roll.log
  for _ in $(seq 1 50); do
    redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG && return
    sleep 0.2
  done
  echo "prepare-machine: redis-server did not start (see /var/log/redis/connect-roll.log)" >&2
  exit 1
}

ensure_tools() {
  # redis-sentinel for the Sentinel failover test, redis-cli for the Cluster test, openssl for the TLS test's
  # certificates, sshd for the VM/ssh executor test.
  if ! command -v redis-sentinel >/dev/null 2>&1; then log "installing redis-sentinel"; apt_install redis-sentinel; fi
  if ! command -v redis-cli >/dev/null 2>&1; then log "installing redis-tools"; apt_install redis-tools; fi
  if ! command -v openssl >/dev/null 2>&1; then log "installing openssl"; apt_install openssl; fi
  if [ ! -x /usr/sbin/sshd ]; then log "installing openssh-server"; apt_install openssh-server; fi
}

ensure_chromium() {
  if [ -x /usr/bin/chromium ]; then return; fi
  log "installing chromium"
  # Debian's package is chromium; Ubuntu ships it as a snap only, which a container cannot run: point CHROMIUM_PATH
  # at a Chromium there instead.
  if apt-cache show chromium >/dev/null 2>&1 || { $SUDO apt-get update -qq && APT_UPDATED=1 && apt-cache show chromium >/dev/null 2>&1; }; then
    apt_install chromium fonts-noto-color-emoji
  else
    echo "prepare-machine: no chromium package here (Ubuntu has only the snap); install Chromium and set CHROMIUM_PATH" >&2
    exit 1
  fi
}

ensure_java() {
  if ! command -v javac >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
    log "installing a JDK 17"
    apt_install openjdk-17-jdk-headless
  fi
  if ! command -v mvn >/dev/null 2>&1; then log "installing Maven"; apt_install maven; fi
}

parts=("$@")
if [ ${#parts[@]} -eq 0 ]; then parts=(redis tools chromium java); fi
for part in "${parts[@]}"; do
  case "$part" in
    redis) ensure_redis ;;
    tools) ensure_tools ;;
    chromium) ensure_chromium ;;
    java) ensure_java ;;
    *) echo "prepare-machine: unknown part $part (redis, tools, chromium, java)" >&2; exit 2 ;;
  esac
done

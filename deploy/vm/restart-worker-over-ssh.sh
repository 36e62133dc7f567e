#!/usr/bin/env bash
# connect-roll `command` executor: restarts (or upgrades) one Kafka Connect worker on a VM over ssh.
#
#   executor:
#     kind: command
#     argv: [/opt/connect-roll/restart-worker-over-ssh.sh, --host, "{host}", --worker, "{worker}",
#            --version, "{version}", --identity, /etc/connect-roll/ssh/id_ed25519,
#            --known-hosts, /etc/connect-roll/ssh/known_hosts]
#
# connect-roll runs it without a shell and passes each placeholder as one argument. This script checks every value
# against a strict pattern before anything runs, checks the worker's host key against the known_hosts file (never
# trust on first use), and sends only "restart WORKER" or "upgrade WORKER VERSION". On the worker the key is bound
# to forced-command.sh, which parses that line without a shell and runs the site's handler; so the bot's key can
# restart Connect on that VM and do nothing else. Exit 0 = the restart was accepted (the settle gate watches the rest).
set -euo pipefail
set -f

usage() {
  echo "usage: $0 --host HOST --worker NAME [--version V] [--kind restart|upgrade] --identity KEY --known-hosts FILE [--user USER] [--port PORT] [--connect-timeout S]" >&2
  exit 2
}
refuse() {
  echo "restart-worker-over-ssh: $*" >&2
  exit 2
}

host="" worker="" version="" identity="" known_hosts="" user="connect-roll" port="22" connect_timeout="10"
kind="${CONNECT_ROLL_KIND:-}"
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || usage
  case "$1" in
    --host) host="$2" ;;
    --worker) worker="$2" ;;
    --version) version="$2" ;;
    --kind) kind="$2" ;;
    --identity) identity="$2" ;;
    --known-hosts) known_hosts="$2" ;;
    --user) user="$2" ;;
    --port) port="$2" ;;
    --connect-timeout) connect_timeout="$2" ;;
    *) usage ;;
  esac
  shift 2
done
[ -n "$kind" ] || kind="restart"

# Every value is checked whole against a pattern that leaves no room for shell syntax, options or spaces.
[[ "$host" =~ ^[A-Za-z0-9]([A-Za-z0-9.-]{0,252})$ ]] || refuse "not a host name or IPv4 address: '$host'"
[[ "$worker" =~ ^[a-z0-9][a-z0-9._-]{0,62}$ ]] || refuse "not a worker name: '$worker'"
[[ "$user" =~ ^[a-z_][a-z0-9_-]{0,31}$ ]] || refuse "not a user name: '$user'"
[[ "$port" =~ ^[0-9]{1,5}$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] || refuse "not a port: '$port'"
[[ "$connect_timeout" =~ ^[0-9]{1,3}$ ]] || refuse "not a timeout in seconds: '$connect_timeout'"
case "$kind" in
  restart) remote="restart $worker" ;;
  upgrade)
    [[ "$version" =~ ^[0-9]+\.[0-9]+(\.[0-9]+)?(-[A-Za-z0-9.]{1,32})?$ ]] || refuse "not a version: '$version'"
    remote="upgrade $worker $version"
    ;;
  *) refuse "kind must be restart or upgrade, got '$kind'" ;;
esac
[ -r "$identity" ] || refuse "cannot read the ssh key $identity"
[ -r "$known_hosts" ] || refuse "cannot read the known_hosts file $known_hosts (host keys are always checked)"

exec ssh -n -T \
  -o BatchMode=yes \
  -o StrictHostKeyChecking=yes \
  -o UserKnownHostsFile="$known_hosts" \
  -o GlobalKnownHostsFile=/dev/null \
  -o UpdateHostKeys=no \
  -o IdentitiesOnly=yes \
  -o IdentityAgent=none \
  -o PasswordAuthentication=no \
  -o KbdInteractiveAuthentication=no \
  -o ConnectTimeout="$connect_timeout" \
  -o ServerAliveInterval=5 \
  -o ServerAliveCountMax=3 \
  -o LogLevel=ERROR \
  -F /dev/null \
  -i "$identity" -p "$port" -l "$user" \
  -- "$host" "$remote"

#!/usr/bin/env bash
# The worker side of restart-worker-over-ssh.sh: the only command connect-roll's ssh key may run on this VM.
# In ~connect-roll/.ssh/authorized_keys (one line):
#
#   command="/usr/local/lib/connect-roll/forced-command.sh --worker connect-1 --handler /usr/local/lib/connect-roll/systemd-handler.sh",restrict ssh-ed25519 AAAA… connect-roll
#
# sshd runs it whatever the client asked for and puts the request in SSH_ORIGINAL_COMMAND. It accepts exactly
# "restart WORKER" or "upgrade WORKER VERSION" for the worker named here, splits the line without a shell (no
# globbing, no expansion, no eval), checks every word against a strict pattern, and runs the handler with them as
# separate arguments: HANDLER restart|upgrade WORKER [VERSION]. Anything else is refused with exit 2.
set -euo pipefail
set -f

refuse() {
  echo "connect-roll forced command: $*" >&2
  exit 2
}

own_worker="" handler=""
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || refuse "usage: forced-command.sh --worker NAME --handler PROGRAM"
  case "$1" in
    --worker) own_worker="$2" ;;
    --handler) handler="$2" ;;
    *) refuse "unknown option $1" ;;
  esac
  shift 2
done
[[ "$own_worker" =~ ^[a-z0-9][a-z0-9._-]{0,62}$ ]] || refuse "misconfigured: --worker"
[ -x "$handler" ] || refuse "misconfigured: --handler is not executable"

request="${SSH_ORIGINAL_COMMAND:-}"
[ "${#request}" -le 200 ] || refuse "request too long"
[[ "$request" =~ ^[A-Za-z0-9.\ _-]*$ ]] || refuse "refused: unexpected characters in the request"
read -r -a words <<<"$request"
action="${words[0]:-}"
worker="${words[1]:-}"
version="${words[2]:-}"
[ "$worker" = "$own_worker" ] || refuse "refused: this key restarts $own_worker only, not '${worker}'"
case "$action" in
  restart)
    [ "${#words[@]}" -eq 2 ] || refuse "refused: restart takes the worker name only"
    exec "$handler" restart "$worker"
    ;;
  upgrade)
    [ "${#words[@]}" -eq 3 ] || refuse "refused: upgrade takes the worker name and a version"
    [[ "$version" =~ ^[0-9]+\.[0-9]+(\.[0-9]+)?(-[A-Za-z0-9.]{1,32})?$ ]] || refuse "refused: not a version"
    exec "$handler" upgrade "$worker" "$version"
    ;;
  *) refuse "refused: only 'restart WORKER' or 'upgrade WORKER VERSION'" ;;
esac

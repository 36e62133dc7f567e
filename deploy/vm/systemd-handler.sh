#!/usr/bin/env bash
# An example handler for forced-command.sh on a VM where Kafka Connect runs as a systemd service from a tarball
# install: /opt/kafka is a symlink to /opt/kafka-VERSION. Adapt the names (or replace this script with your package
# manager's upgrade) and allow exactly these commands in sudoers, e.g. in /etc/sudoers.d/connect-roll:
#   connect-roll ALL=(root) NOPASSWD: /usr/bin/systemctl restart kafka-connect.service, /usr/bin/ln -sfnT /opt/kafka-* /opt/kafka
# Called as: systemd-handler.sh restart WORKER | upgrade WORKER VERSION (arguments already checked).
set -euo pipefail
set -f

SERVICE="kafka-connect.service"
LINK="/opt/kafka"
PREFIX="/opt/kafka-"

action="$1"
version="${3:-}"
if [ "$action" = "upgrade" ]; then
  target="${PREFIX}${version}"
  [ -d "$target" ] || { echo "no $target on this VM: install Kafka $version there first" >&2; exit 1; }
  sudo -n /usr/bin/ln -sfnT "$target" "$LINK"
fi
# Returns once systemd has restarted the unit; connect-roll's settle gate watches the worker rejoin.
sudo -n /usr/bin/systemctl restart "$SERVICE"
echo "restarted $SERVICE${version:+ on $version}"

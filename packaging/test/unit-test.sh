#!/bin/sh
# Runs inside a booted Debian 12 container (systemd-nspawn -b, scripts/check-package)
# with the carbonroute package installed: the units for real. Writes its
# verdict to /var/log/carbonroute-unit-test.result, then powers the container off.
exec >/var/log/carbonroute-unit-test.log 2>&1
set -ex
result=FAIL
finish() {
  set +x
  if [ "$result" != PASS ]; then
    systemctl status --no-pager carbonroute-collector scheduler-lite || true
    journalctl --no-pager -n 60 || true
  fi
  echo "$result" > /var/log/carbonroute-unit-test.result
  systemctl poweroff --no-block
}
trap finish EXIT

wait_for() {  # wait_for SECONDS COMMAND...: polls the command every 0.2 s
  limit=$(( $1 * 5 )); shift
  i=0
  { set +x; } 2>/dev/null
  until "$@"; do
    i=$((i + 1)); [ "$i" -lt "$limit" ] || { set -x; return 1; }
    sleep 0.2
  done
  set -x
}
status_ok() { systemctl show -p StatusText --value carbonroute-collector | grep -q "locations, 0 failing"; }
restarted() { [ "$(systemctl show -p NRestarts --value carbonroute-collector)" -ge 1 ] && systemctl -q is-active carbonroute-collector; }

# Start: READY=1 makes it active; STATUS= says what it does.
systemctl start carbonroute-collector
systemctl -q is-active carbonroute-collector
wait_for 60 status_ok
systemctl show -p StatusText --value carbonroute-collector
curl -fsS http://127.0.0.1:9464/healthz

# Reload: RELOADING=1 … READY=1, still the same process.
pid=$(systemctl show -p MainPID --value carbonroute-collector)
systemctl reload carbonroute-collector
systemctl -q is-active carbonroute-collector
[ "$(systemctl show -p MainPID --value carbonroute-collector)" = "$pid" ]
journalctl -u carbonroute-collector --no-pager | grep -q "reload"

# A hung collector (every thread stopped: no WATCHDOG=1) is restarted by the watchdog.
mkdir -p /run/systemd/system/carbonroute-collector.service.d
printf '[Service]\nWatchdogSec=3s\n' > /run/systemd/system/carbonroute-collector.service.d/watchdog.conf
systemctl daemon-reload
systemctl restart carbonroute-collector
wait_for 60 status_ok
pid=$(systemctl show -p MainPID --value carbonroute-collector)
kill -STOP "$pid"
wait_for 60 restarted
[ "$(systemctl show -p MainPID --value carbonroute-collector)" != "$pid" ]
journalctl -u carbonroute-collector --no-pager | grep -i "watchdog timeout"

# scheduler-lite serve, fed by the collector.
systemctl start scheduler-lite
wait_for 60 curl -fsS -o /dev/null http://127.0.0.1:8888/healthz
scheduler-lite rank --candidates regions --metrics http://127.0.0.1:9464/metrics | grep europe-west1

# Stop.
systemctl stop scheduler-lite carbonroute-collector
! systemctl -q is-active carbonroute-collector
! systemctl -q is-active scheduler-lite
result=PASS

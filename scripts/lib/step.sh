# Sourced by the check scripts: `step NAME COMMAND...` runs the command and
# prints "<step_prefix>: NAME took N s" (step_prefix defaults to the script's name).
step() {
  local name=$1 start
  shift
  start=$(date +%s)
  "$@"
  echo "${step_prefix:-$(basename "$0")}: $name took $(( $(date +%s) - start )) s"
}
# `step_beside NAME COMMAND...` starts a step in the background, its output held
# in a file; `step_join NAME` waits for it, prints its output and how long it
# took, and returns its status. For a step that waits on the network or a boot
# more than it computes, run beside one that computes.
declare -A beside_pid beside_log beside_start
step_beside() {
  local name=$1
  shift
  beside_log[$name]=$(mktemp)
  beside_start[$name]=$(date +%s)
  "$@" >"${beside_log[$name]}" 2>&1 &
  beside_pid[$name]=$!
}
step_join() {
  local name=$1 status=0
  wait "${beside_pid[$name]}" || status=$?
  cat "${beside_log[$name]}"
  rm -f "${beside_log[$name]}"
  echo "${step_prefix:-$(basename "$0")}: $name took $(( $(date +%s) - beside_start[$name] )) s (beside the steps before)"
  return $status
}

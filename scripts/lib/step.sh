# Sourced by the check scripts: `step NAME COMMAND...` runs the command and
# prints "<step_prefix>: NAME took N s" (step_prefix defaults to the script's name).
step() {
  local name=$1 start
  shift
  start=$(date +%s)
  "$@"
  echo "${step_prefix:-$(basename "$0")}: $name took $(( $(date +%s) - start )) s"
}

# Sourced by scripts/deps and the check scripts: `install_missing_packages P...`
# installs those of the Debian packages P that are not installed yet (with sudo
# when not root), saying which; it prints nothing and touches nothing when
# every one is there.
install_missing_packages() {
  local missing=() p sudo=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "carbonroute: installing ${CARBONROUTE_INSTALL_WHAT:+${CARBONROUTE_INSTALL_WHAT}: }${missing[*]}" >&2
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Sourced by the scripts that configure a build: `ccache_flags` holds the
# CMake flag that puts ccache in front of the compiler when it is installed
# (nothing otherwise: a build without it is correct, only slower). Its
# settings travel in the launcher itself, so they hold however the build is
# run later (scripts/test, or `cmake --build build` by hand):
#   - the cache stays outside the clone (ccache's default, ~/.cache/ccache, or
#     $CCACHE_DIR), so every clone on a machine shares it; 5 GB holds the four
#     builds (gcc, ASan, TSan, package) of a few revisions;
#   - paths under the clone are hashed relative to it and the working
#     directory is not hashed, so objects compiled in another clone are reused
#     (their debug info then names that clone's directory). The clone's own
#     paths reach only test/testing/build_paths.cc.
# CARBONROUTE_CCACHE=OFF builds without it.
ccache_flags=()
if command -v ccache >/dev/null 2>&1 && [ "${CARBONROUTE_CCACHE:-ON}" = ON ]; then
  home=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
  ccache_dir=${CCACHE_DIR:-${XDG_CACHE_HOME:-$home/.cache}/ccache}
  ccache_flags=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_DIR=$ccache_dir;CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G};CCACHE_BASEDIR=$(pwd);CCACHE_NOHASHDIR=1;ccache")
fi

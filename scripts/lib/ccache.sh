# Sourced by the scripts that configure a build: `ccache_flags` holds the
# CMake flag that puts ccache in front of the compiler when it is installed
# (nothing otherwise: a build without it is correct, only slower). ccache's
# cache stays outside the clone (~/.cache/ccache, or $CCACHE_DIR), so every
# clone on a machine shares it; 5 GB holds the four builds (gcc, ASan, TSan,
# package) of a few revisions.
ccache_flags=()
if command -v ccache >/dev/null 2>&1 && [ "${CARBONROUTE_CCACHE:-ON}" = ON ]; then
  ccache_flags=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
  # Objects compiled in another clone's directory are reused here: paths under
  # the clone are hashed relative to it, and the working directory is not
  # hashed (the debug info then names the first clone's directory). The
  # clone's own paths reach only test/testing/build_paths.cc.
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(pwd)}
  export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
fi

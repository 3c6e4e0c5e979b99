# driver.sh: run one SRFI-64 file of tests/guile (the log compiler of the
# .scm tests); the file reports each test in TAP through (tap).
# Plain guile loads (perfdojo) from the build tree (pre-inst-env).  In the
# sanitizer builds the extension cannot be loaded into plain guile (the
# sanitizers' runtime must come first in a process), so the file runs
# in-process with perfdojo script instead.
: "${PERFDOJO:?PERFDOJO must name the perfdojo binary}"
: "${top_srcdir:?top_srcdir must be set}"
: "${top_builddir:?top_builddir must be set}"
test=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfdojo-guile.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
PERFDOJO_DB=$tmp/measurements.db
GUILE_LOAD_PATH="$top_srcdir/tests/guile${GUILE_LOAD_PATH:+:}$GUILE_LOAD_PATH"
GUILE_AUTO_COMPILE=0
export PERFDOJO_DB GUILE_LOAD_PATH GUILE_AUTO_COMPILE
cd "$tmp" || exit 1
case $test in
/*) ;;
*) test=$OLDPWD/$test ;;
esac
if [ "$ENABLE_ASAN" = yes ]; then
	echo "# in-process (perfdojo script): plain guile cannot load the sanitized extension"
	"$PERFDOJO" script "$test"
else
	"$top_builddir/pre-inst-env" "${GUILE:-guile}" --no-auto-compile "$test"
fi

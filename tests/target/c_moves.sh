# c_moves.sh: the C target on random legal move sequences of every example
. "$top_srcdir/tests/lib.sh"
exec "$top_builddir/tests/unit/test_c_moves" "$top_srcdir"/tests/ref/*.dojo

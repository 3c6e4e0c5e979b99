# c_moves.sh: the C target on random legal move sequences of every example,
# and after every example's move file (examples/NAME.actions)
. "$top_srcdir/tests/lib.sh"
exec "$top_builddir/tests/unit/test_c_moves" "$top_srcdir"/tests/ref/*.dojo \
    "$top_srcdir"/examples/*.actions

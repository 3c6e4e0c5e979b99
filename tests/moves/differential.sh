# differential.sh: random legal move sequences on every example kernel
# (small sizes) compute what the original computes; every move's inverse
# gives the start back; a long session of random moves stays valid.
. "$top_srcdir/tests/lib.sh"
exec "$top_builddir/tests/unit/test_moves" "$top_srcdir"/tests/ref/*.dojo

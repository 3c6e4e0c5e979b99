# walk.sh: a sample of the move fuzzer on the fuzz kernels: random legal
# walks of 10 to 20 moves, each state interpreted against the original and
# the last one run by the C target.  DOJO_WALKS (default 40) walks in all,
# DOJO_WALK_SEED (default 1) their seed.  The states of failed walks and
# their actions are kept in tests/fuzz/failures/ of the build tree.
. "$top_srcdir/tests/lib.sh"
"$top_builddir/tests/fuzz/walk_moves" --walks "${DOJO_WALKS:-40}" \
    --seed "${DOJO_WALK_SEED:-1}" --save "$top_builddir/tests/fuzz/failures" \
    "$top_srcdir"/tests/fuzz/kernels/*.dojo

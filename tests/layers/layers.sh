#!/bin/sh
# layers.sh: no include goes up or sideways across the layers of
# doc/design.md, and the check sees one that does.
. "$top_srcdir/tests/lib.sh"
check=$top_srcdir/tests/layers/check-layers.sh

"$SHELL" "$check" "$top_srcdir" > "$tmp/out" 2>&1
ok $? "every include of the tree goes to its own layer or one below"
sed 's/^/# /' "$tmp/out" | head -n 20

# a copy of the tree with one include that goes up, and a new folder
mkdir "$tmp/tree"
for d in src ir targets agents scripts ui; do
	cp -R "$top_srcdir/$d" "$tmp/tree/$d"
done
printf '#include "src/core/session.h"\n' >> "$tmp/tree/ir/arith.c"
"$SHELL" "$check" "$tmp/tree" > "$tmp/out" 2>&1
st=$?
ok $((st == 1 ? 0 : 1)) "an include of src/core in ir fails the check"
grep -q '^ir/arith.c:[0-9]*: includes src/core/session.h: src/core is above ir$' \
    "$tmp/out"
ok $? "the failure names the file, the line and the layers"

sed -i '$d' "$tmp/tree/ir/arith.c"
printf '#include "ui/explore.h"\n' >> "$tmp/tree/scripts/guile.h"
"$SHELL" "$check" "$tmp/tree" > "$tmp/out" 2>&1
ok $((1 - $?)) "an include of ui in scripts fails the check"

sed -i '$d' "$tmp/tree/scripts/guile.h"
mkdir "$tmp/tree/src/misc"
echo '/* a file in a folder with no layer */' > "$tmp/tree/src/misc/x.c"
"$SHELL" "$check" "$tmp/tree" > "$tmp/out" 2>&1
ok $((1 - $?)) "a file in a folder of no layer fails the check"
grep -q '^src/misc/x.c:1: in no layer' "$tmp/out"
ok $? "and says so"

rm "$tmp/tree/src/misc/x.c"
printf '#include "ir/moves_private.h"\n' >> "$tmp/tree/targets/c.c"
"$SHELL" "$check" "$tmp/tree" > "$tmp/out" 2>&1
ok $((1 - $?)) "an include of a private header of ir in targets fails the check"
grep -q '^targets/c.c:[0-9]*: includes ir/moves_private.h, private to ir$' \
    "$tmp/out"
ok $? "and names the folder it is private to"

sed -i '$d' "$tmp/tree/targets/c.c"
"$SHELL" "$check" "$tmp/tree" > /dev/null 2>&1
ok $? "the copy passes again once the includes are put back"
done_testing

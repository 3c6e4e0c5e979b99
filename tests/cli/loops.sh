# loops.sh: named loops (doc/ir.md, "Loop names"): the defaults, names a
# file gives, the names the moves keep and make, a name in place of an
# address, and the errors; the state id never depends on them.
. "$top_srcdir/tests/lib.sh"

P=$PERFDOJO
cd "$tmp" || exit 1
PERFDOJO_DB=$tmp/m.db
export PERFDOJO_DB
cat > mm.dojo <<'EOF'
A f32 [16, 16] heap in
B f32 [16, 16] heap in
C f32 [16, 16] heap out
16 | 16 | C[{0}, {1}] = 0
   |    | 16 | C[{0}, {1}] += A[{0}, {2}] * B[{2}, {1}]
EOF

# the defaults: the letter of the depth
"$P" show --names mm.dojo > out
grep -q '^i=16 | j=16 | C\[{0}, {1}\] = 0$' out &&
    grep -q '^     |      | k=16 | C' out
ok $? "show --names: the default names are the depth's letters"
"$P" show mm.dojo > plain
! grep -q '=16' plain
ok $? "show without --names prints the canonical text"

# names a file gives: kept in its texts, no part of the state
sed -e 's/^16 | 16 |/row=16 | col=16 |/' -e 's/^   |    | 16 |/       |        | red=16 |/' mm.dojo > named.dojo
same "$("$P" check mm.dojo | cut -d' ' -f4)" \
    "$("$P" check named.dojo | cut -d' ' -f4)" \
    "a file's names do not change the state id"
"$P" show named.dojo | grep -q '^row=16 | col=16 | C'
ok $? "show keeps the names the file gives"
"$P" apply named.dojo 'split red 4' -o out.dojo
grep -q 'red.o=4 | red.i=4 | C' out.dojo
ok $? "apply -o keeps them, and split makes NAME.o and NAME.i"

# a name in place of an address
"$P" apply mm.dojo 'split k 4' > by_name
"$P" apply mm.dojo 'split 0.0.1 4' > by_addr
cmp -s by_name by_addr
ok $? "split k 4 is split 0.0.1 4"
"$P" apply mm.dojo 'swap i' --names | grep -q '^j=16 | i=16 | C\[{1}, {0}\]'
ok $? "swap: the names go with their loops"
"$P" apply mm.dojo 'split k 4' 'join k.o' --names > out
grep -q '| k=16 | C' out
ok $? "join of NAME.o and NAME.i is NAME again"
"$P" apply mm.dojo 'fission j 1' --names > out
grep -q '^i=16 | j=16   | C' out && grep -q '^     | j_2=16 | k=16 | C' out
ok $? "fission: the second part is NAME_2"
"$P" apply mm.dojo 'fission j 1' 'fuse j' --names | grep -q '^i=16 | j=16 | C'
ok $? "fuse of a fission's parts gives the name back"
cat > two.dojo <<'EOF'
x f32 [8] heap in
y f32 [8] heap out
z f32 [8] heap out
a=8 | y[{0}] = x[{0}]
b=8 | z[{0}] = x[{0}] * 2
EOF
"$P" apply two.dojo 'fuse a' | grep -q '^a+b=8 | y'
ok $? "fuse of two named loops joins the names"
"$P" apply mm.dojo 'cache j C stack' --names > out
grep -q '^     | C_c.out1=16 | C\[{0}, {1}\] = C_c\[0, {1}\]$' out
ok $? "cache names its copy loops after the copy"
"$P" apply mm.dojo 'fission j 1' 'split k 4' 'rfactor k.o' --names > out
grep -q 'C_r.init=4' out && grep -q 'k.o=4 *| k.i=4' out &&
    grep -q 'C_r.out=4' out
ok $? "rfactor keeps S and L and names the partial results' loops"
"$P" emit mm.dojo > c
! grep -q '/\* [ijk] \*/' c
ok $? "emit's C is as before (the names are the explorer's view)"

# actions --at and --why take a name
"$P" actions mm.dojo --at k > out
grep -q '^vectorize 0.0.1$' out && ! grep -q ' 0\.0 ' out
ok $? "actions --at NAME lists the moves at that loop"
"$P" actions mm.dojo --why 'vectorize k' | grep -q 'is legal'
ok $? "actions --why takes a name"

# errors, one line each
"$P" apply mm.dojo 'split q 4' > /dev/null 2> err
same 1 $? "an unknown name fails"
same "perfdojo: split: no loop named 'q' (the loops: i, j, k)" "$(cat err)" \
    "... naming the loops there are"
printf 'x f32 [4] heap in\ny f32 [4] heap out\ni=4 | y[{0}] = x[{0}]\ni=4 | y[{0}] += x[{0}]\n' > dup.dojo
"$P" check dup.dojo 2> err
same 1 $? "a name given twice is refused"
same "perfdojo: dup.dojo:4:1: loop name 'i' given twice (first at line 3)" \
    "$(cat err)" "... at FILE:LINE:COL"
printf 'x f32 [4] heap in\ny f32 [4] heap out\na-b=4 | y[{0}] = x[{0}]\n' > bad.dojo
"$P" check bad.dojo 2> err
same 1 $? "a malformed name is refused"
grep -q "^perfdojo: bad.dojo:3:1: malformed loop name 'a-b'" err
ok $? "... at FILE:LINE:COL"

# a session keeps the names: the action is recorded with its address,
# and a state read back has its names
"$P" apply named.dojo 'split red 4' 'vectorize red.i' --session s > /dev/null 2>&1
ok $? "moves by name in a session"
git -C s log --format=%s main > log
same "vectorize 0.0.1.0
split 0.0.1 4
start: named.dojo" "$(cat log)" "the history records addresses"
"$P" diff main~2 main --session s > out
grep -q '^-       |        | red=16 | C' out &&
    grep -q '^+       |        | red.o=4 | red.i=4:v | C' out
ok $? "states read back from the session have their names"
git -C s show main:program.dojo | grep -q '^16 | 16 | C'
ok $? "program.dojo, the state, has no names"
"$P" checkout main~1 --session s > /dev/null 2>&1 &&
    "$P" apply named.dojo 'split red 4' 'unroll red.i' --session s > /dev/null 2>&1
ok $? "a name resolves in a state read back from the session"

done_testing

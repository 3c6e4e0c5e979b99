# cli.sh: the command line as a user meets it: help, version, usage
# errors, run with seeds, --inputs and --outputs, and their errors.
. "$top_srcdir/tests/lib.sh"

P=$PERFDOJO
ex=$top_srcdir/tests/ref

"$P" --help > "$tmp/help"
ok $? "--help succeeds"
for c in show check run; do
	grep -q "^  $c " "$tmp/help"
	ok $? "--help lists $c"
	"$P" $c --help > "$tmp/h" && grep -q "usage: perfdojo $c" "$tmp/h"
	ok $? "$c --help prints its usage"
done
"$P" --version | grep -qE '^perfdojo [0-9]+\.[0-9]+'
ok $? "--version prints the version"
"$P" 2> /dev/null
same 2 $? "no command is a usage error (2)"
"$P" frobnicate 2> "$tmp/err"
same 2 $? "unknown command exits 2"
same "perfdojo: unknown command 'frobnicate' (see perfdojo --help)" \
    "$(cat "$tmp/err")" "unknown command message"
"$P" show --bogus "$ex/matmul.dojo" 2> "$tmp/err"
same 2 $? "unknown option exits 2"
grep -q "unknown option '--bogus'" "$tmp/err"
ok $? "unknown option is named"
"$P" show 2> /dev/null
same 2 $? "missing FILE exits 2"
"$P" run --seed -3 "$ex/matmul.dojo" 2> /dev/null
same 2 $? "negative seed is a usage error"
"$P" show "$tmp/missing.dojo" 2> "$tmp/err"
same 1 $? "missing file exits 1"
same "perfdojo: $tmp/missing.dojo: No such file or directory" \
    "$(cat "$tmp/err")" "missing file message"

# run: one checksum line per output, deterministic per seed
"$P" run "$ex/softmax.dojo" > "$tmp/a"
ok $? "run succeeds"
same "y" "$(cut -d' ' -f1 "$tmp/a")" "one checksum line per out array"
"$P" run "$ex/softmax.dojo" > "$tmp/b"
cmp -s "$tmp/a" "$tmp/b"
ok $? "same seed, same checksums"
"$P" run --seed 2 "$ex/softmax.dojo" > "$tmp/c"
cmp -s "$tmp/a" "$tmp/c"
same 1 $? "another seed, other checksums"
sum=$(sed 's/.*sum=\([^ ]*\) .*/\1/' "$tmp/a")
awk -v s="$sum" 'BEGIN { exit !(s > 5.99 && s < 6.01) }'
ok $? "softmax rows sum to one each ($sum for 6 rows)"

# outputs written as .npy, read back as inputs of the same kernel
mkdir "$tmp/out"
"$P" run --outputs "$tmp/out" "$ex/bias_relu.dojo" > "$tmp/a"
ok $? "run --outputs succeeds"
[ -f "$tmp/out/y.npy" ] && [ ! -f "$tmp/out/x.npy" ]
ok $? "--outputs writes out arrays only"
head -c 6 "$tmp/out/y.npy" | od -An -c | grep -q 'N   U   M   P   Y'
ok $? "the output is a .npy file"
# the kernel y = max(x + b, 0) run on its own output with b = 0
cp "$tmp/out/y.npy" "$tmp/x.npy"
cat > "$tmp/id.dojo" <<'EOK'
x f32 [6, 10] heap in
y f32 [6, 10] heap out
6 | 10 | y[{0}, {1}] = x[{0}, {1}]
EOK
bshape=$(sed -n 's/^b f32 \[\([0-9, ]*\)\].*/\1/p' "$ex/bias_relu.dojo")
xshape=$(sed -n 's/^x f32 \[\([0-9, ]*\)\].*/\1/p' "$ex/bias_relu.dojo")
sed -i "s/6, 10/$xshape/g" "$tmp/id.dojo"
mkdir "$tmp/in"
cp "$tmp/out/y.npy" "$tmp/in/x.npy"
"$P" run --inputs "$tmp/in" "$tmp/id.dojo" > "$tmp/b"
ok $? "run --inputs reads a .npy file"
same "$(sed 's/^y //' "$tmp/a")" "$(sed 's/^y //' "$tmp/b")" \
    "identity of a kernel's output gives the same checksum"

# input errors are one clear line
"$P" run --inputs "$tmp/out" "$tmp/id.dojo" 2> "$tmp/err"
same 1 $? "missing input file exits 1"
same "perfdojo: $tmp/out/x.npy: No such file or directory" \
    "$(cat "$tmp/err")" "missing input file message"
sed "s/\[$xshape\]/[3, 4]/g; s/6 | 10 |/3 | 4 |/" "$tmp/id.dojo" > "$tmp/small.dojo"
sed -i "s/^.*| y\[/3 | 4 | y[/" "$tmp/small.dojo"
"$P" run --inputs "$tmp/in" "$tmp/small.dojo" 2> "$tmp/err"
same 1 $? "wrong shape exits 1"
same "perfdojo: $tmp/in/x.npy: shape [$xshape] does not match 'x' [3, 4]" \
    "$(cat "$tmp/err")" "wrong shape message"
sed 's/f32/f64/g' "$tmp/id.dojo" > "$tmp/f64.dojo"
"$P" run --inputs "$tmp/in" "$tmp/f64.dojo" 2> "$tmp/err"
same 1 $? "wrong dtype exits 1"
same "perfdojo: $tmp/in/x.npy: dtype '<f4' does not match 'x' (f64, expected '<f8')" \
    "$(cat "$tmp/err")" "wrong dtype message"
printf 'not numpy' > "$tmp/in/x.npy"
"$P" run --inputs "$tmp/in" "$tmp/id.dojo" 2> "$tmp/err"
same "perfdojo: $tmp/in/x.npy: not a .npy file" "$(cat "$tmp/err")" \
    "garbage input message"
"$P" run --outputs /proc/nonexistent/dir "$tmp/id.dojo" 2> "$tmp/err" >/dev/null
same 1 $? "unwritable output directory exits 1"

# show --addresses on the spec's matrix product
cat > "$tmp/mm.dojo" <<'EOK'
A f32 [256, 256] heap in
B f32 [256, 256] heap in
C f32 [256, 256] heap out
256 | 256 | C[{0}, {1}] = 0
    |     | 256 | C[{0}, {1}] += A[{0}, {2}] * B[{2}, {1}]
EOK
"$P" show "$tmp/mm.dojo" > "$tmp/out.txt"
cmp -s "$tmp/mm.dojo" "$tmp/out.txt"
ok $? "the spec's matmul is already canonical"
"$P" show -a "$tmp/mm.dojo" | sed -n 5p > "$tmp/line"
same "0.0.1.0      |     | 256 | C[{0}, {1}] += A[{0}, {2}] * B[{2}, {1}]" \
    "$(cat "$tmp/line")" "the address gutter names the operation"

# every command's options, found in its --help and by probing its parser
# (no list of them here): the synopsis names those the list describes,
# the parser takes each as described, and takes no other (-h, --help are
# every command's)
list_options() {	# "NAME LETTER KIND" for each option of the help "$1"
	awk '/^  -[A-Za-z0-9], --[a-z0-9]/ || /^      --[a-z0-9]/ {
		s = $0
		letter = "-"
		if (s ~ /^  -[A-Za-z0-9],/)
			letter = substr(s, 4, 1)
		sub(/^ *(-[A-Za-z0-9], )?--/, "", s)
		name = s
		sub(/[ =[].*/, "", name)
		rest = substr(s, length(name) + 1)
		kind = rest ~ /^ \[/ ? "optional" : \
		    rest ~ /^ [^ ]/ ? "value" : "flag"
		print name, letter, kind
	}' "$1"
}
probe() {	# the errors of a command line, in a directory with nothing
	(cd "$tmp/probe" && "$P" "$@" < /dev/null 2>&1 > /dev/null)
}
mkdir "$tmp/probe"
lower="a b c d e f g i j k l m n o p q r s t u v w x y z"	# not h
others="A B C D E F G H I J K L M N O P Q R S T U V W X Y Z 0 1 2 3 4 5 6 7 8 9"
cmds=$(sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p' "$tmp/help")
[ -n "$cmds" ]
ok $? "--help lists the commands"
for c in $cmds; do
	"$P" $c --help > "$tmp/h.$c"
	list_options "$tmp/h.$c" > "$tmp/o.$c"
	sed -n '/^usage:/,/^$/p' "$tmp/h.$c" |
	    grep -o -- '--[a-z0-9][a-z0-9-]*' | sed 's/^--//' | sort -u \
	    > "$tmp/syn.$c"
	cut -d' ' -f1 "$tmp/o.$c" | sort -u > "$tmp/lst.$c"
	same "$(cat "$tmp/lst.$c")" "$(cat "$tmp/syn.$c")" \
	    "$c: the synopsis names the options that --help lists"
	bad=
	while read -r name letter kind; do
		spellings=--$name
		[ "$letter" != - ] && spellings="$spellings -$letter"
		for o in $spellings; do
			case $kind:$(probe $c "$o") in
			*"unknown option '$o'"*)
				bad="$bad $o:unknown";;
			value:*"option '$o' needs a value"*) ;;
			value:*)
				bad="$bad $o:takes-no-value";;
			*"option '$o' needs a value"*)
				bad="$bad $o:needs-a-value";;
			esac
		done
	done < "$tmp/o.$c"
	same "" "$bad" "$c: the parser takes each option --help lists, as listed"
	extra=
	for l in $lower $others; do
		grep -q "^[^ ]* $l " "$tmp/o.$c" && continue
		case $(probe $c "-$l") in
		*"unknown option '-$l'"*) ;;
		*) extra="$extra -$l";;
		esac
	done
	# getopt_long takes a prefix of one long option: a letter that no
	# listed option starts with starts no option
	for l in $lower; do
		grep -q "^$l" "$tmp/lst.$c" && continue
		case $(probe $c "--$l") in
		*"unknown option '--$l'"*) ;;
		*) extra="$extra --$l...";;
		esac
	done
	same "" "$extra" "$c: the parser takes no option that --help leaves out"
done
[ -n "$(cat "$tmp"/o.*)" ]
ok $? "the lists of options are read"

# a failed write of stdout (a full disk) is an error, whatever printed it
if [ -w /dev/full ]; then
	for c in "show $ex/matmul.dojo" "emit $ex/matmul.dojo" \
	    "actions $ex/matmul.dojo" "run $ex/softmax.dojo" --version --help \
	    "help show"; do
		"$P" $c > /dev/full 2> "$tmp/err"
		same 1 $? "$c > /dev/full exits 1"
		same "perfdojo: write error: No space left on device" \
		    "$(cat "$tmp/err")" "$c > /dev/full says why"
	done
fi
done_testing

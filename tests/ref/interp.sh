# interp.sh: the interpreter agrees with hand-written C and with NumPy on
# every example kernel (small sizes), through --inputs and --outputs.
. "$top_srcdir/tests/lib.sh"

py=${PYTHON3:-python3}
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
"$py" -B "$top_srcdir/tests/ref/check.py" "$PERFDOJO" "$top_srcdir/tests/ref" \
    > "$tmp/log" 2>&1
st=$?
# one TAP line per kernel
grep -E '^(PASS|FAIL): ' "$tmp/log" > "$tmp/results"
while IFS= read -r line; do
	case $line in
	PASS:*) ok 0 "interpreter vs C and NumPy: ${line#PASS: }" ;;
	*) ok 1 "interpreter vs C and NumPy: ${line#FAIL: }" ;;
	esac
done < "$tmp/results"
n=$(grep -cE '^(PASS|FAIL): ' "$tmp/log")
[ "$n" -ge 11 ]
ok $? "all eleven example kernels were checked ($n)"
if [ $st -ne 0 ]; then
	sed 's/^/# /' "$tmp/log" | tail -n 30
fi
done_testing

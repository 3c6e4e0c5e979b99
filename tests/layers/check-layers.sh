#!/bin/sh
# check-layers.sh TOP: the includes of the sources under TOP that go up or
# sideways across the layers of doc/design.md, one "FILE:LINE: why" each;
# exits 1 when there is one.
#
# The layers, lowest first.  A file may include a header of its own layer
# or of one below, never above; a folder not named here is an error, so a
# new folder must be given its place.  A header named *_private.h is for
# the files of its own folder only.
LAYERS="src/util ir targets src/core agents scripts ui src/cmd"
top=${1:?usage: check-layers.sh TOP}
cd "$top" || exit 2
files=$(find src ir targets agents scripts ui -name '*.[ch]' | sort)
# shellcheck disable=SC2086
awk -v layers="$LAYERS" '
function rank(path,    n, i, best, bestlen, d) {
	best = -1; bestlen = 0
	for (i = 1; i <= nl; i++) {
		d = l[i] "/"
		if (substr(path, 1, length(d)) == d && length(d) > bestlen) {
			best = i; bestlen = length(d)
		}
	}
	return best
}
function folder(path) { sub(/\/[^\/]*$/, "", path); return path }
BEGIN { nl = split(layers, l, " "); bad = 0 }
FNR == 1 {
	me = rank(FILENAME)
	if (me < 0 || folder(FILENAME) != l[me]) {
		printf "%s:1: in no layer (a folder of its own needs a place in doc/design.md)\n", FILENAME
		bad = 1
	}
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
	h = $0
	sub(/^[^"]*"/, "", h); sub(/".*$/, "", h)
	if (h == "config.h" || h !~ /\//)
		next
	r = rank(h)
	if (r < 0)
		next
	if (h ~ /_private\.h$/ && folder(h) != folder(FILENAME)) {
		printf "%s:%d: includes %s, private to %s\n", FILENAME, FNR, h, folder(h)
		bad = 1
	}
	if (r > me) {
		printf "%s:%d: includes %s: %s is above %s\n", FILENAME, FNR, h, l[r], l[me]
		bad = 1
	}
}
END { exit bad }
' $files

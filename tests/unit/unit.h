/* unit.h: a table of test functions that report in TAP */
#ifndef DOJO_UNIT_H
#define DOJO_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

extern int unit_failed;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("#   %s:%d: check failed: %s\n", __FILE__,	\
		    __LINE__, #cond);					\
		unit_failed = 1;					\
	}								\
} while (0)

#define CHECK_STR(want, got) do {					\
	const char *w_ = (want), *g_ = (got);				\
	if (!g_ || strcmp(w_, g_) != 0) {				\
		printf("#   %s:%d: expected \"%s\"\n#   got \"%s\"\n",	\
		    __FILE__, __LINE__, w_, g_ ? g_ : "(null)");	\
		unit_failed = 1;					\
	}								\
} while (0)

/* Run every test of "tests" (NULL-terminated), print TAP; exit status.
 * With $UNIT_ONLY set, only the tests whose name holds it run (the
 * others are skipped), for one test of a long program at a time. */
static inline int
unit_run(const struct unit_test *tests)
{
	const char *only = getenv("UNIT_ONLY");
	int n, bad = 0;

	for (n = 0; tests[n].name; n++) {
		if (only && *only && !strstr(tests[n].name, only)) {
			printf("ok %d - %s # SKIP\n", n + 1, tests[n].name);
			continue;
		}
		unit_failed = 0;
		tests[n].fn();
		printf("%sok %d - %s\n", unit_failed ? "not " : "", n + 1,
		    tests[n].name);
		bad |= unit_failed;
	}
	printf("1..%d\n", n);
	return bad;
}

#endif

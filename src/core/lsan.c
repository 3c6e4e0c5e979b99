/* lsan.c: the LeakSanitizer hooks of the process.
 *
 * Graphviz 2.43's dot layout, its text layout plugin and fontconfig keep
 * memory they never free (virtual edges of clusters, font caches).  Under
 * LeakSanitizer (./configure --enable-asan), those reports are theirs and
 * would bury ours, so the suppressions name those libraries only:
 * allocations made by cgraph for our graphs (an agclose forgotten) still
 * show.  The options keep the list of suppressions out of the output, so
 * that a test's TAP stays clean.
 *
 * The sanitizer's runtime looks these functions up by name in the
 * program; it never calls them otherwise, and a program has one of each
 * (add to these rather than define them elsewhere).  Outside a sanitized
 * build they are never called.  From the static library, this file is
 * linked into the programs that use Graphviz through src/core/graph.c,
 * which refers to it (see there). */
#include "config.h"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_options(void);

const char *
__lsan_default_options(void)
{
	return "print_suppressions=0";
}

const char *
__lsan_default_suppressions(void)
{
	return "leak:libgvc.so\n"
	    "leak:libgvplugin_dot_layout.so\n"
	    "leak:libgvplugin_pango.so\n"
	    "leak:libgvplugin_core.so\n"
	    "leak:libfontconfig.so\n"
	    "leak:libpango\n"
	    "leak:libcairo.so\n";
}

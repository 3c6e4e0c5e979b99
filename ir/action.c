/* action.c: the text of an action (doc/moves.md, Actions) */
#include "config.h"
#include "ir/moves.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/moves_private.h"
#include "ir/program_private.h"

const struct dojo_move *
find_move(const char *name, size_t len)
{
	int i;

	for (i = 0; i < n_moves; i++)
		if (strlen(moves[i].name) == len &&
		    strncmp(moves[i].name, name, len) == 0)
			return &moves[i];
	return NULL;
}

int
dojo_action_parse(struct dojo_action *out, const char *text)
{
	return dojo_action_parse_in(out, text, NULL);
}

int
dojo_action_parse_in(struct dojo_action *out, const char *text,
    dojo_program *prog)
{
	static const char *const locs[] = { "heap", "stack", "reg", "shared" };
	const char *p = text, *w;
	const char *args;
	char word[256];
	size_t len;
	char *end;
	long v;
	int i;

	memset(out, 0, sizeof *out);
	while (*p == ' ' || *p == '\t')
		p++;
	w = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	out->move = find_move(w, p - w);
	if (!out->move)
		return dojo_error_set("unknown move '%.*s'", (int)(p - w), w);
	for (args = out->move->args; *args; args++) {
		if (*args == ' ')
			continue;
		while (*p == ' ' || *p == '\t')
			p++;
		w = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		len = p - w;
		if (len == 0)
			return dojo_error_set("%s: missing %s (usage: %s)",
			    out->move->name, *args == 'S' ? "scope address" :
			    *args == 'X' ? "node address" : *args == 'B' ?
			    "buffer name" : *args == 'A' ? "array name" :
			    *args == 'L' ? "location" : *args == 'P' ?
			    "dimension order" : "number",
			    dojo_move_synopsis(out->move - moves));
		if (len >= sizeof word)
			return dojo_error_set("%s: argument too long",
			    out->move->name);
		memcpy(word, w, len);
		word[len] = '\0';
		switch (*args) {
		case 'S':
		case 'X':
			if (prog && loop_name_valid(word, len)) {
				out->npath = dojo_program_find_loop(prog, word,
				    out->path);
				if (out->npath < 0) {
					char why[DOJO_ERROR_MAX];

					snprintf(why, sizeof why, "%s",
					    dojo_error_last());
					return dojo_error_set("%s: %s",
					    out->move->name, why);
				}
				break;
			}
			out->npath = dojo_address_parse(out->path, word);
			if (out->npath < 0)
				return dojo_error_set("%s: malformed address "
				    "'%s'", out->move->name, word);
			break;
		case 'B':
		case 'A':
			if (len > DOJO_MAX_NAME)
				return dojo_error_set("%s: name too long",
				    out->move->name);
			strcpy(*args == 'A' ? out->array : out->buffer, word);
			break;
		case 'P':
			for (w = word; ; ) {
				if (out->nperm == DOJO_MAX_DIMS || *w < '0' ||
				    *w > '9')
					return dojo_error_set("%s: malformed order "
					    "'%s' (dimensions like 1,0)",
					    out->move->name, word);
				errno = 0;
				v = strtol(w, &end, 10);
				if (errno || v > INT_MAX)
					return dojo_error_set("%s: dimension "
					    "'%.*s' of order '%s' is out of "
					    "range", out->move->name,
					    (int)strcspn(w, ","), w, word);
				out->perm[out->nperm++] = (int)v;
				if (!*end)
					break;
				if (*end != ',')
					return dojo_error_set("%s: malformed order "
					    "'%s' (dimensions like 1,0)",
					    out->move->name, word);
				w = end + 1;
			}
			break;
		case 'L':
			for (i = 0; i < 4; i++)
				if (strcmp(word, locs[i]) == 0)
					break;
			if (i == 4)
				return dojo_error_set("%s: unknown location "
				    "'%s' (heap, stack, reg or shared)",
				    out->move->name, word);
			out->loc = i;
			break;
		default:
			errno = 0;
			out->num[out->nnum] = strtoll(word, &end, 10);
			if (errno || *end || word[0] == '-' || word[0] == '+')
				return dojo_error_set("%s: '%s' is not a "
				    "non-negative integer", out->move->name,
				    word);
			out->nnum++;
			break;
		}
	}
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p)
		return dojo_error_set("%s: unexpected '%s' (usage: %s)",
		    out->move->name, p, dojo_move_synopsis(out->move - moves));
	return 0;
}

void
dojo_action_format(char *out, size_t len, const struct dojo_action *a)
{
	const char *args;
	size_t n;
	int num = 0, i;

	n = snprintf(out, len, "%s", a->move->name);
	for (args = a->move->args; *args && n < len; args++) {
		switch (*args) {
		case ' ':
			continue;
		case 'S':
		case 'X':
			n += snprintf(out + n, len - n, " ");
			if (n < len)
				dojo_address_format(out + n, len - n, a->path, a->npath);
			n = strlen(out);
			break;
		case 'B':
			n += snprintf(out + n, len - n, " %s", a->buffer);
			break;
		case 'A':
			n += snprintf(out + n, len - n, " %s", a->array);
			break;
		case 'L':
			n += snprintf(out + n, len - n, " %s",
			    dojo_loc_name(a->loc));
			break;
		case 'P':
			for (i = 0; i < a->nperm && n < len; i++)
				n += snprintf(out + n, len - n, "%c%d",
				    i ? ',' : ' ', a->perm[i]);
			break;
		default:
			n += snprintf(out + n, len - n, " %lld",
			    (long long)a->num[num++]);
			break;
		}
	}
}

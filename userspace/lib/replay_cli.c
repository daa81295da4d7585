// SPDX-License-Identifier: GPL-2.0
/* The shared options of the two replay tools (see replay_cli.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "fleet.h"
#include "replay_cli.h"
#include "replay_locality.h"
#include "units.h"

void replay_cli_init(struct replay_cli *a)
{
	memset(a, 0, sizeof(*a));
	replay_config_default(&a->rc);
	a->stagein = REPLAY_STAGEIN_RECORDED;
	a->assign = REPLAY_ASSIGN_RECORDED;
	a->bs = 1 << 20;
	a->qd = 4;
}

int replay_cli_finish(struct replay_cli *a, const char **why)
{
	a->rc.stagein = (enum replay_stagein_policy)a->stagein;
	a->rc.fail_from_records = !a->ignore_record_failures;
	if (!a->bs) {
		*why = "--bs 0 has no meaning here: every read and write is split into requests";
		return -1;
	}
	return replay_config_check(&a->rc, why);
}

static int add(struct fnblk_events *e, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int add(struct fnblk_events *e, const char *name, const char *fmt, ...)
{
	char buf[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return fnblk_events_set_param(e, name, buf);
}

/* Fixed-point text: the number parsers take no exponent. */
static int add_real(struct fnblk_events *e, const char *name, double v)
{
	char buf[64];
	size_t n;

	snprintf(buf, sizeof(buf), "%.9f", v);
	n = strlen(buf);
	while (n > 1 && buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = '\0';
	return fnblk_events_set_param(e, name, buf);
}

int replay_cli_params(const struct replay_cli *a, struct fnblk_events *e)
{
	const struct replay_config *c = &a->rc;
	char b1[FNBLK_UNIT_BUFLEN], b2[FNBLK_UNIT_BUFLEN], b3[FNBLK_UNIT_BUFLEN];
	char name[32];
	unsigned int i;
	int ret = 0;

	ret |= add_real(e, "time-scale", c->time_scale);
	ret |= add_real(e, "byte-scale", c->byte_scale);
	ret |= add(e, "stagein", "%s", replay_stagein_names[c->stagein]);
	ret |= add(e, "assign", "%s", replay_assign_names[a->assign]);
	ret |= add(e, "chunks", "%u", c->max_chunks);
	ret |= add(e, "ckpt-period", "%s",
		   fnblk_format_duration_exact(c->ckpt_period_ns, b1, sizeof(b1)));
	ret |= add(e, "ckpt-size", "%s",
		   fnblk_format_size_exact(c->ckpt_bytes, b2, sizeof(b2)));
	for (i = 0; i < REPLAY_NR_PHASES; i++) {
		snprintf(name, sizeof(name), "fail-%s", replay_phase_names[i]);
		ret |= add_real(e, name, c->fail[i]);
	}
	ret |= add(e, "ignore-record-failures", "%s",
		   a->ignore_record_failures ? "yes" : "no");
	ret |= add(e, "attempts", "%u", c->max_attempts);
	ret |= add(e, "backoff", "%s",
		   fnblk_format_duration_exact(c->backoff_ns, b3, sizeof(b3)));
	ret |= add(e, "seed", "%" PRIu64, c->seed);
	ret |= add(e, "bs", "%s", fnblk_format_size_exact(a->bs, b1, sizeof(b1)));
	ret |= add(e, "qd", "%u", a->qd);
	return ret ? -1 : 0;
}

int replay_cli_set(struct replay_cli *a, const char *name, const char *value,
		   char *err, size_t errlen)
{
	const struct cli_option opts[] = {
		REPLAY_CLI_OPTIONS(a),
		{ .name = NULL },
	};
	const struct cli_option *o;

	if (!strcmp(name, "ignore-record-failures")) {
		if (strcmp(value, "yes") && strcmp(value, "no"))
			return fnblk_seterr(err, errlen, "yes or no");
		a->ignore_record_failures = !strcmp(value, "yes");
		return 0;
	}
	for (o = opts; o->name; o++) {
		if (strcmp(o->name, name))
			continue;
		if (o->type == CLI_CALL)
			return o->set(a, o, value, err, errlen) ? -1 : 0;
		return cli_set_value(o, NULL, value, err, errlen) ? -1 : 0;
	}
	return 1;
}

int replay_cli_locality(const struct replay_cli *a, const char *const *names,
			unsigned int nr, struct replay_locality *loc, char *err,
			size_t errlen)
{
	if (!a->locality_path)
		return 0;
	return replay_locality_read(loc, a->locality_path, names, nr, err, errlen);
}

const char *replay_cli_stagein_choice(unsigned int i)
{
	return i <= REPLAY_STAGEIN_COPY ? replay_stagein_names[i] : NULL;
}

const char *replay_cli_assign_choice(unsigned int i)
{
	return i < REPLAY_NR_ASSIGN ? replay_assign_names[i] : NULL;
}

static int set_real(const char *arg, bool percent, double max, double *v,
		    char *err, size_t errlen)
{
	const char *why;

	if (fnblk_parse_real(arg, percent, v, &why))
		return fnblk_seterr(err, errlen, "%s", why);
	if (!(*v <= max))
		return fnblk_seterr(err, errlen, "out of range (0 to %g)", max);
	return 0;
}

static double *scale_of(struct replay_cli *a, const struct cli_option *o)
{
	return !strcmp(o->name, "time-scale") ? &a->rc.time_scale :
	       &a->rc.byte_scale;
}

int replay_cli_set_scale(void *ctx, const struct cli_option *o,
			 const char *arg, char *err, size_t errlen)
{
	double *v = scale_of(ctx, o);

	if (set_real(arg, false, 1e12, v, err, errlen))
		return -1;
	if (!(*v > 0))
		return fnblk_seterr(err, errlen, "must be above 0");
	return 0;
}

const char *replay_cli_show_scale(void *ctx, const struct cli_option *o,
				  char *buf, size_t len)
{
	snprintf(buf, len, "%g", *scale_of(ctx, o));
	return buf;
}

static double *fail_of(struct replay_cli *a, const struct cli_option *o)
{
	return &a->rc.fail[!strcmp(o->name, "fail-stagein") ? REPLAY_STAGEIN :
			   !strcmp(o->name, "fail-payload") ? REPLAY_PAYLOAD :
			   REPLAY_STAGEOUT];
}

int replay_cli_set_fail(void *ctx, const struct cli_option *o,
			const char *arg, char *err, size_t errlen)
{
	return set_real(arg, true, 1, fail_of(ctx, o), err, errlen);
}

const char *replay_cli_show_fail(void *ctx, const struct cli_option *o,
				 char *buf, size_t len)
{
	snprintf(buf, len, "%g%%", 100 * *fail_of(ctx, o));
	return buf;
}

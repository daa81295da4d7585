// SPDX-License-Identifier: GPL-2.0
/*
 * A device's configuration: defaults, the names of the enumerated settings,
 * and validation shared by module parameters and netlink.
 */
#include <linux/errno.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "fnblk.h"

#define FNBLK_DEFAULT_SIZE	SZ_1G

void fnblk_config_default(struct fnblk_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = FNBLK_DEFAULT_SIZE;
	cfg->key = FNBLK_KEY_TGID;
	cfg->store = FNBLK_STORE_MEMORY;
	cfg->max_users = FNBLK_MAX_USERS_DEFAULT;
	strscpy(cfg->fn_spec, "constant", sizeof(cfg->fn_spec));
	fnblk_params_default(&cfg->sched);
}

/* Parse fn_spec into the table, then check every field. */
int fnblk_config_check(struct fnblk_config *cfg, const char **err)
{
	int ret;

	if (!cfg->size || cfg->size % 4096 || cfg->size > FNBLK_SIZE_MAX) {
		*err = "size must be a multiple of 4 KiB from 4 KiB to 1 TiB";
		return -EINVAL;
	}
	if (cfg->key >= __FNBLK_KEY_MAX) {
		*err = "unknown key mode";
		return -EINVAL;
	}
	if (cfg->store >= __FNBLK_STORE_MAX) {
		*err = "unknown store";
		return -EINVAL;
	}
	if (cfg->cache >= __FNBLK_CACHE_MAX) {
		*err = "unknown cache mode";
		return -EINVAL;
	}
	if (!cfg->max_users || cfg->max_users > FNBLK_MAX_USERS_LIMIT) {
		*err = "max_users must be 1 to 1048576";
		return -EINVAL;
	}
	ret = fnblk_fn_parse(cfg->fn_spec, &cfg->sched.fn, err);
	if (ret)
		return ret;
	return fnblk_params_check(&cfg->sched, err);
}

static int match_name(const char *s, const char *const *names, unsigned int nr,
		      u8 *out)
{
	int i = __sysfs_match_string(names, nr, s);

	if (i < 0)
		return -EINVAL;
	*out = i;
	return 0;
}

int fnblk_parse_key(const char *s, u8 *out)
{
	return match_name(s, fnblk_key_names, __FNBLK_KEY_MAX, out);
}

int fnblk_parse_policy(const char *s, u8 *out)
{
	return match_name(s, fnblk_policy_names, __FNBLK_POLICY_MAX, out);
}

int fnblk_parse_users(const char *s, u8 *out)
{
	return match_name(s, fnblk_users_names, __FNBLK_USERS_MAX, out);
}

int fnblk_parse_store(const char *s, u8 *out)
{
	return match_name(s, fnblk_store_names, __FNBLK_STORE_MAX, out);
}

int fnblk_parse_cache(const char *s, u8 *out)
{
	return match_name(s, fnblk_cache_names, __FNBLK_CACHE_MAX, out);
}

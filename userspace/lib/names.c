// SPDX-License-Identifier: GPL-2.0
/* Names of the uapi's enum values and the layout of the n histogram. */
#include <string.h>

#include "fnblk.h"

static const char *const key_names[__FNBLK_KEY_MAX] = {
	[FNBLK_KEY_TGID] = "tgid",
	[FNBLK_KEY_PID] = "pid",
	[FNBLK_KEY_CGROUP] = "cgroup",
	[FNBLK_KEY_SINGLE] = "single",
};

static const char *const policy_names[__FNBLK_POLICY_MAX] = {
	[FNBLK_POLICY_ANON] = "anon",
	[FNBLK_POLICY_FIFO] = "fifo",
	[FNBLK_POLICY_WEIGHTED] = "weighted",
};

static const char *const users_names[__FNBLK_USERS_MAX] = {
	[FNBLK_USERS_ALL] = "all",
	[FNBLK_USERS_WRITES] = "writes",
};

static const char *const store_names[__FNBLK_STORE_MAX] = {
	[FNBLK_STORE_MEMORY] = "memory",
	[FNBLK_STORE_NONE] = "none",
};

static const char *const event_names[__FNBLK_CMD_MAX] = {
	[FNBLK_CMD_EVT_USER_ACTIVE] = "active",
	[FNBLK_CMD_EVT_USER_IDLE] = "idle",
	[FNBLK_CMD_EVT_DEV_ADDED] = "added",
	[FNBLK_CMD_EVT_DEV_REMOVED] = "removed",
	[FNBLK_CMD_EVT_DEV_CHANGED] = "changed",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *name_of(const char *const *names, unsigned int nr,
			   unsigned int v)
{
	return v < nr ? names[v] : NULL;
}

static int value_of(const char *const *names, unsigned int nr,
		    const char *name)
{
	for (unsigned int i = 0; i < nr; i++)
		if (names[i] && !strcmp(names[i], name))
			return (int)i;
	return -1;
}

const char *fnblk_key_name(unsigned int v)
{
	return name_of(key_names, ARRAY_SIZE(key_names), v);
}

const char *fnblk_policy_name(unsigned int v)
{
	return name_of(policy_names, ARRAY_SIZE(policy_names), v);
}

const char *fnblk_users_name(unsigned int v)
{
	return name_of(users_names, ARRAY_SIZE(users_names), v);
}

const char *fnblk_store_name(unsigned int v)
{
	return name_of(store_names, ARRAY_SIZE(store_names), v);
}

const char *fnblk_event_name(unsigned int v)
{
	return name_of(event_names, ARRAY_SIZE(event_names), v);
}

int fnblk_key_value(const char *name)
{
	return value_of(key_names, ARRAY_SIZE(key_names), name);
}

int fnblk_policy_value(const char *name)
{
	return value_of(policy_names, ARRAY_SIZE(policy_names), name);
}

int fnblk_users_value(const char *name)
{
	return value_of(users_names, ARRAY_SIZE(users_names), name);
}

int fnblk_store_value(const char *name)
{
	return value_of(store_names, ARRAY_SIZE(store_names), name);
}

uint32_t fnblk_nhist_bin_low(unsigned int bin)
{
	if (bin < FNBLK_NHIST_EXACT)
		return bin;
	return (uint32_t)FNBLK_NHIST_EXACT << (bin - FNBLK_NHIST_EXACT);
}

uint32_t fnblk_nhist_bin_high(unsigned int bin)
{
	if (bin < FNBLK_NHIST_EXACT)
		return bin;
	if (bin >= FNBLK_NHIST_BINS - 1)
		return UINT32_MAX;
	return fnblk_nhist_bin_low(bin + 1) - 1;
}

// SPDX-License-Identifier: GPL-2.0
/* Names of the uapi's enum values and the layout of the n histogram. */
#include <string.h>

#include "fnblk.h"
#include "module/fnblk_sched.h"

/* The settings' names come from the scheduler core, as the kernel's do. */
static const char *const event_names[__FNBLK_CMD_MAX] = {
	[FNBLK_CMD_EVT_USER_ACTIVE] = "active",
	[FNBLK_CMD_EVT_USER_IDLE] = "idle",
	[FNBLK_CMD_EVT_DEV_ADDED] = "added",
	[FNBLK_CMD_EVT_DEV_REMOVED] = "removed",
	[FNBLK_CMD_EVT_DEV_CHANGED] = "changed",
};

static const char *const fault_op_names[FNBLK_FAULT_WRITE + 1] = {
	[FNBLK_FAULT_ANY] = "any",
	[FNBLK_FAULT_READ] = "read",
	[FNBLK_FAULT_WRITE] = "write",
};

static const char *const fault_error_names[__FNBLK_FAULT_MAX] = {
	[FNBLK_FAULT_EIO] = "eio",
	[FNBLK_FAULT_TIMEOUT] = "timeout",
	[FNBLK_FAULT_DELAY] = "delay",
};

static const char *const bucket_names[__FNBLK_BUCKET_MAX] = {
	[FNBLK_BUCKET_RETIRED] = "retired",
	[FNBLK_BUCKET_OVERFLOW] = "overflow",
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
	return name_of(fnblk_key_names, ARRAY_SIZE(fnblk_key_names), v);
}

const char *fnblk_policy_name(unsigned int v)
{
	return name_of(fnblk_policy_names, ARRAY_SIZE(fnblk_policy_names), v);
}

const char *fnblk_users_name(unsigned int v)
{
	return name_of(fnblk_users_names, ARRAY_SIZE(fnblk_users_names), v);
}

const char *fnblk_store_name(unsigned int v)
{
	return name_of(fnblk_store_names, ARRAY_SIZE(fnblk_store_names), v);
}

const char *fnblk_cache_name(unsigned int v)
{
	return name_of(fnblk_cache_names, ARRAY_SIZE(fnblk_cache_names), v);
}

const char *fnblk_fault_op_name(unsigned int v)
{
	return name_of(fault_op_names, ARRAY_SIZE(fault_op_names), v);
}

const char *fnblk_fault_error_name(unsigned int v)
{
	return name_of(fault_error_names, ARRAY_SIZE(fault_error_names), v);
}

int fnblk_fault_op_value(const char *name)
{
	return value_of(fault_op_names, ARRAY_SIZE(fault_op_names), name);
}

int fnblk_fault_error_value(const char *name)
{
	return value_of(fault_error_names, ARRAY_SIZE(fault_error_names),
			name);
}

const char *fnblk_event_name(unsigned int v)
{
	return name_of(event_names, ARRAY_SIZE(event_names), v);
}

const char *fnblk_bucket_name(unsigned int v)
{
	return name_of(bucket_names, ARRAY_SIZE(bucket_names), v);
}

int fnblk_key_value(const char *name)
{
	return value_of(fnblk_key_names, ARRAY_SIZE(fnblk_key_names), name);
}

int fnblk_policy_value(const char *name)
{
	return value_of(fnblk_policy_names, ARRAY_SIZE(fnblk_policy_names), name);
}

int fnblk_users_value(const char *name)
{
	return value_of(fnblk_users_names, ARRAY_SIZE(fnblk_users_names), name);
}

int fnblk_store_value(const char *name)
{
	return value_of(fnblk_store_names, ARRAY_SIZE(fnblk_store_names), name);
}

int fnblk_cache_value(const char *name)
{
	return value_of(fnblk_cache_names, ARRAY_SIZE(fnblk_cache_names), name);
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

uint64_t fnblk_rsize_bin_low(unsigned int bin)
{
	return (uint64_t)1 << (FNBLK_RSIZE_SHIFT + bin);
}

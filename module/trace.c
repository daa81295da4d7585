// SPDX-License-Identifier: GPL-2.0
/*
 * The one place the fnblk tracepoints (fnblk_trace.h) are instantiated.
 */
#include "fnblk.h"

#define CREATE_TRACE_POINTS
#include "fnblk_trace.h"

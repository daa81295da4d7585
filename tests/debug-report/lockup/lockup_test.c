// SPDX-License-Identifier: GPL-2.0
/*
 * A real lockup on purpose, to show that the debug guest's detectors still
 * report one (tests/debug-report/record-lockup.sh): loading this module
 * spins for "secs" seconds of guest time with preemption disabled, in its
 * init, so that CPU neither schedules (soft-lockup detector) nor passes an
 * RCU quiescent state (RCU CPU stall detector). Never load it elsewhere.
 */
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/timekeeping.h>

static unsigned int secs = 100;
module_param(secs, uint, 0444);
MODULE_PARM_DESC(secs, "seconds to spin with preemption disabled (1-300)");

static int __init lockup_test_init(void)
{
	u64 end;

	if (!secs || secs > 300)
		return -EINVAL;
	pr_info("lockup_test: spinning %u s with preemption disabled\n", secs);
	/* By the clock: under TCG mdelay()'s calibration is far off. */
	end = ktime_get_ns() + (u64)secs * NSEC_PER_SEC;
	preempt_disable();
	while (ktime_get_ns() < end)
		cpu_relax();
	preempt_enable();
	pr_info("lockup_test: done\n");
	return 0;
}

static void __exit lockup_test_exit(void)
{
}

module_init(lockup_test_init);
module_exit(lockup_test_exit);
MODULE_DESCRIPTION("fnblk test: a deliberate soft lockup and RCU stall");
MODULE_LICENSE("GPL");

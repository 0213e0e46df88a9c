// SPDX-License-Identifier: GPL-2.0
// A kernel change to gate: a kthread on one CPU that, every period_ms, holds that CPU for hold_us
// with interrupts off (a raw spinlock taken with irqsave: what a driver's long critical section
// does) or with preemption off. rtgate's lab loads it in the guest to inject a regression of a
// known size, and to check that the gate calls it.
//
//   insmod rtgate_stall.ko hold_us=1000 period_ms=100 mode=irq cpu=0
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

static unsigned int hold_us = 1000;
module_param(hold_us, uint, 0444);
MODULE_PARM_DESC(hold_us, "how long each section holds the CPU, in microseconds (1-100000)");

static unsigned int period_ms = 100;
module_param(period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "the time between sections, in milliseconds (1-60000)");

static char *mode = "irq";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "irq: interrupts off (a raw spinlock with irqsave); preempt: preemption off");

static unsigned int cpu;
module_param(cpu, uint, 0444);
MODULE_PARM_DESC(cpu, "the CPU the sections run on");

static DEFINE_RAW_SPINLOCK(stall_lock);
static struct task_struct *stall_thread;
static unsigned long sections;

// Busy until hold_us have passed on the clock the kernel keeps (no sleep, no yield).
static void hold(void)
{
	const u64 until = ktime_get_ns() + (u64)hold_us * NSEC_PER_USEC;

	while (ktime_get_ns() < until)
		cpu_relax();
}

static int stall_fn(void *unused)
{
	const bool irq_off = strcmp(mode, "preempt") != 0;
	unsigned long flags;

	while (!kthread_should_stop()) {
		msleep_interruptible(period_ms);
		if (kthread_should_stop())
			break;
		if (irq_off) {
			raw_spin_lock_irqsave(&stall_lock, flags);
			hold();
			raw_spin_unlock_irqrestore(&stall_lock, flags);
		} else {
			preempt_disable();
			hold();
			preempt_enable();
		}
		sections++;
	}
	return 0;
}

static int __init stall_init(void)
{
	if (hold_us < 1 || hold_us > 100000 || period_ms < 1 || period_ms > 60000)
		return -EINVAL;
	if (strcmp(mode, "irq") != 0 && strcmp(mode, "preempt") != 0)
		return -EINVAL;
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	stall_thread = kthread_create(stall_fn, NULL, "rtgate_stall/%u", cpu);
	if (IS_ERR(stall_thread))
		return PTR_ERR(stall_thread);
	kthread_bind(stall_thread, cpu);
	wake_up_process(stall_thread);
	pr_info("rtgate_stall: %s off for %u us every %u ms on CPU %u\n",
		strcmp(mode, "preempt") ? "interrupts" : "preemption", hold_us, period_ms, cpu);
	return 0;
}

static void __exit stall_exit(void)
{
	kthread_stop(stall_thread);
	pr_info("rtgate_stall: %lu sections\n", sections);
}

module_init(stall_init);
module_exit(stall_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rtgate lab: a periodic interrupts-off or preemption-off section");

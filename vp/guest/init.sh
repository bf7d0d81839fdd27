#!/bin/busybox sh
# The npusim VP guest's /init: load drm and npusim, run the plan (/vp/plan.sh, written by scripts/vp),
# send results to the host over the second serial port, power off.
# Markers on the console (ttyS0): "VP-GUEST: <event>"; on ttyS1 every file as
# "==> NAME" / base64 lines / "<== NAME".
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
mkdir -p /out
say() { echo "VP-GUEST: $*"; }
emit() { # NAME FILE: a file to the host
	{ echo "==> $1"; base64 "$2"; echo "<== $1"; } > /dev/ttyS1
}
finish() {
	dmesg > /out/dmesg.txt
	emit dmesg.txt /out/dmesg.txt
	say "done $(cut -d' ' -f1 /proc/uptime)"
	sync
	poweroff -f
}
debugfs_dump() { # TAG: the driver's registers and job log
	d=$(ls -d /sys/kernel/debug/accel/*/ 2>/dev/null | head -1)
	[ -n "$d" ] || return 0
	cat "$d/jobs" > "/out/jobs-$1.txt" 2>&1
	cat "$d/regs" > "/out/regs-$1.txt" 2>&1
	emit "jobs-$1.txt" "/out/jobs-$1.txt"
	emit "regs-$1.txt" "/out/regs-$1.txt"
}
# npurun NAME PROGRAM INPUTS [runner options]: one program; its output, log and exit code to the host
npurun() {
	name=$1 prog=$2 in=$3
	shift 3
	npusim-run "$@" "$prog" "$in" "/out/$name.bin" > "/out/$name.log" 2>&1
	rc=$?
	cat "/out/$name.log"
	say "run $name rc=$rc"
	echo "$rc" > "/out/$name.rc"
	emit "$name.log" "/out/$name.log"
	emit "$name.rc" "/out/$name.rc"
	[ -f "/out/$name.bin" ] && emit "$name.bin" "/out/$name.bin"
	return $rc
}
say "init $(cut -d' ' -f1 /proc/uptime)"
for m in /lib/modules/drm.ko /lib/modules/npusim.ko; do
	if ! insmod $m $(cat /vp/params-$(basename $m .ko) 2>/dev/null); then
		say "module load failed: $m"
		finish
	fi
done
if [ ! -e /dev/accel/accel0 ]; then
	say "no /dev/accel/accel0: the driver did not bind"
	finish
fi
say "module loaded $(cut -d' ' -f1 /proc/uptime)"
. /vp/plan.sh
say "plan ended $(cut -d' ' -f1 /proc/uptime)"
debugfs_dump end
finish

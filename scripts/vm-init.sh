#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the metaroce test guest (busybox, in the initramfs built by
# scripts/vm-run.sh). Mounts the host root read-only over 9p with a tmpfs
# overlay, chroots into it and hands over to scripts/vm-guest.sh.
# Kernel command line parameters mro_* arrive as environment variables.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
while read -r m; do insmod "$m" 2>/dev/null; done </modules.list

fail() {
	echo "vm-init: $*" >/dev/console
	echo o >/proc/sysrq-trigger
	while :; do sleep 1; done
}

mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 hostroot /mnt/lower ||
	fail "cannot mount the host root"
mount -t tmpfs -o size=75% rw /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay overlay -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work /mnt/root ||
	fail "cannot mount the overlay"
R=/mnt/root
mkdir -p $R/mro_out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 mroout $R/mro_out ||
	fail "cannot mount the results share"
mount -t proc proc $R/proc
mount -t sysfs sys $R/sys
mount -t devtmpfs dev $R/dev
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts devpts $R/dev/pts
mount -t tmpfs tmp $R/tmp
mount -t tmpfs run $R/run
mount -t debugfs debugfs $R/sys/kernel/debug 2>/dev/null
mount -t configfs configfs $R/sys/kernel/config 2>/dev/null
if [ -n "$mro_modroot" ] && [ "$mro_modroot" != "/" ]; then
	mkdir -p "$R/lib/modules/$mro_kver"
	mount -o bind "$R$mro_modroot/lib/modules/$mro_kver" "$R/lib/modules/$mro_kver" ||
		fail "cannot bind the guest kernel's modules"
fi
chroot $R /bin/bash "$mro_top/scripts/vm-guest.sh"
echo o >/proc/sysrq-trigger
while :; do sleep 1; done

// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce: a multipath soft-RDMA device over UDP/IP (the MetaRoCE
 * transport). Module entry and exit.
 *
 *   rdma link add mr0 type metaroce netdev eth0
 *   rdma link delete mr0
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <rdma/rdma_netlink.h>

#include "mro.h"

MODULE_AUTHOR("metaroce developers");
MODULE_DESCRIPTION("MetaRoCE multipath soft-RDMA driver");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK("metaroce");

struct dentry *mro_debugfs_root;

static int __init mro_module_init(void)
{
	int err;

	/* test and telemetry hooks; absent debugfs is not an error */
	mro_debugfs_root = debugfs_create_dir("metaroce", NULL);

	err = mro_net_init();
	if (err)
		goto err_debugfs;
	err = mro_dev_init();
	if (err)
		goto err_net;

	pr_info("loaded, UDP port %u\n", mro_udp_dport());
	return 0;

err_net:
	mro_net_exit();
err_debugfs:
	debugfs_remove_recursive(mro_debugfs_root);
	return err;
}

static void __exit mro_module_exit(void)
{
	mro_dev_exit();		/* every device is gone after this */
	mro_net_exit();
	debugfs_remove_recursive(mro_debugfs_root);
	pr_info("unloaded\n");
}

/* late: after ib_core and the UDP tunnel code when built in */
late_initcall(mro_module_init);
module_exit(mro_module_exit);

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 2
# mro-debug-args: 16384
# mro-debug-skip: two debug guests take ~10 min; cm.sh runs the same rdma_cm code on the debug kernel
#
# rdma_cm between two guests over metaroce, in both directions: cm.sh's
# two-guest case (guest 0 serves while guest 1 connects, then the other
# way round; link eth0, 198.18.0.1 <-> 198.18.0.2).
exec bash "$(dirname "$0")/cm.sh" "$@"

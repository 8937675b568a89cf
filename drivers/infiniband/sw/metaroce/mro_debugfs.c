// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce debugfs telemetry (per device, per QP, per path).
 * The device-level files still live in mro_dev.c; this file takes them over.
 */
#include "mro.h"

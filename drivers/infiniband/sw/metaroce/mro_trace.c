// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce tracepoints: the one translation unit that instantiates them
 * (CREATE_TRACE_POINTS); the events are declared in mro_trace.h.
 */
#include "mro.h"

#define CREATE_TRACE_POINTS
#include "mro_trace.h"

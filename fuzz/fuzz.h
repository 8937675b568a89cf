/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libFuzzer entry points. The names are libFuzzer's API (hence CamelCase,
 * which check.sh tolerates for fuzz/ only).
 */
#ifndef METAROCE_FUZZ_H
#define METAROCE_FUZZ_H

#include <stddef.h>
#include "mrt_types.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif /* METAROCE_FUZZ_H */

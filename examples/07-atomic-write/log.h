/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The remote log of example 07: an 8-byte count of the bytes used, then the
 * entries, each a NUL-terminated word. The count is what makes an entry
 * part of the log, so it is updated with an atomic write only after the
 * entry itself is durable: a crash leaves either the old or the new log.
 */

#ifndef RPMA_EXAMPLES_07_ATOMIC_WRITE_LOG_H
#define RPMA_EXAMPLES_07_ATOMIC_WRITE_LOG_H

#include <stdint.h>

#define LOG_SIZE 4096
/* where the used-bytes count lives; 8-byte aligned for the atomic write */
#define LOG_USED_OFFSET 0
#define LOG_ENTRIES_OFFSET 8
#define LOG_CAPACITY (LOG_SIZE - LOG_ENTRIES_OFFSET)

/* the server's accept private data is a struct ex_apm_pdata */

#endif /* RPMA_EXAMPLES_07_ATOMIC_WRITE_LOG_H */

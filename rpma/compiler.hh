// SPDX-License-Identifier: BSD-3-Clause
// compiler.hh -- the only steering of the compiler's inlining in rpma/ and
// engine/: kept where instruction counts show that leaving the choice to
// the compiler costs, and nowhere else.
//
// The measurement: bench/run --counts (callgrind, instructions per I/O;
// bench/README.md) of the tree against the same tree with every such
// annotation removed, gcc 12 -O2, rows apm-write-bs4k-qd1/qd16-nj1. Without
// them the client's engine + librpma took 286 -> ~370 instructions per I/O
// at qd1 (run_sync, sync_flush, sync_poll, write, completion_token and
// librpma's valid_transfer became calls) and the qd16 row paid for calls
// of post, post_write, write, handle and completion_token and for a frame
// in queue() (queue_async inlined into it: +6 per I/O). getevents_wait's
// noinline changed nothing (the same count), and post_sync runs in none of
// the rows: both were dropped. GpspmServer::wait(), which a sleeping GPSPM
// server runs twice per request: a call, it put the server's engine at
// 597 instructions per request (gpspm-write-bs4k-qd1-nj1 server) against
// 559 where the compiler had inlined it; with the annotation, 555.
#ifndef RPMA_COMPILER_HH
#define RPMA_COMPILER_HH

// Inlined into every caller: a step of the per-I/O path whose call (the
// call, the register saves) costs as much as its work.
#define RPMA_INLINE [[gnu::always_inline]] inline
// Never inlined: keeps its caller free of a frame of its own.
#define RPMA_OUT_OF_LINE [[gnu::noinline]]
// Never inlined, and laid out away from the hot code.
#define RPMA_COLD [[gnu::cold, gnu::noinline]]

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* The greetings both sides of example 01 exchange as private data. */

#ifndef RPMA_EXAMPLES_01_CONNECTION_HELLO_H
#define RPMA_EXAMPLES_01_CONNECTION_HELLO_H

/* both fit the 56 bytes a RoCE connect request can carry (NUL included) */
#define HELLO_FROM_CLIENT "Hello, server! I am the client."
#define HELLO_FROM_SERVER "Hello, client! I am the server."

#endif /* RPMA_EXAMPLES_01_CONNECTION_HELLO_H */

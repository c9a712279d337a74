// SPDX-License-Identifier: BSD-3-Clause
// The fio engines' link watch (engine/link.cc), built into this program for
// threads_test.cc: it needs neither fio nor anything else of the engines.
#include "../../engine/link.cc"

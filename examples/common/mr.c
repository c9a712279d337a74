// SPDX-License-Identifier: BSD-3-Clause

#include "err.h"
#include "mr.h"

int
ex_mr_reg(struct rpma_peer *peer, void *ptr, size_t size, int usage,
	struct rpma_mr_local **mr_ptr)
{
	int ret = rpma_mr_reg(peer, ptr, size, usage, mr_ptr);
	if (ret) {
		EX_ERR("rpma_mr_reg", ret);
		return -1;
	}
	return 0;
}

int
ex_mr_dereg(struct rpma_mr_local **mr_ptr)
{
	int ret = rpma_mr_dereg(mr_ptr);
	if (ret) {
		EX_ERR("rpma_mr_dereg", ret);
		return -1;
	}
	return 0;
}

int
ex_mr_descriptor(const struct rpma_mr_local *mr, void *desc)
{
	size_t size = 0;
	int ret = rpma_mr_get_descriptor_size(mr, &size);
	if (ret) {
		EX_ERR("rpma_mr_get_descriptor_size", ret);
		return -1;
	}
	if (size != EX_MR_DESC_SIZE) {
		EX_FAIL("MR descriptor is %zu bytes, expected %d", size,
			EX_MR_DESC_SIZE);
		return -1;
	}
	ret = rpma_mr_get_descriptor(mr, desc);
	if (ret) {
		EX_ERR("rpma_mr_get_descriptor", ret);
		return -1;
	}
	return 0;
}

int
ex_mr_remote(const void *desc, struct rpma_mr_remote **mr_ptr)
{
	int ret = rpma_mr_remote_from_descriptor(desc, EX_MR_DESC_SIZE, mr_ptr);
	if (ret) {
		EX_ERR("rpma_mr_remote_from_descriptor", ret);
		return -1;
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe.c -- prints what a program built against some librpma.h observes of
 * the library it runs with: constants, strings, defaults, descriptor codecs
 * and the error codes of bad arguments. Built once against upstream's header
 * and run against upstream's library and against ours, the two outputs must
 * be identical (tests/abi/compare.sh). Needs no RDMA device.
 */
#include <stdio.h>
#include <string.h>

#include <librpma.h>

#define SHOW(expr) printf("%s = %ld\n", #expr, (long)(expr))

static void constants(void)
{
	SHOW(RPMA_E_UNKNOWN);
	SHOW(RPMA_E_NOT_SHARED_CHNL);
	SHOW(RPMA_MR_USAGE_RECV);
	SHOW(RPMA_F_COMPLETION_ALWAYS);
	SHOW(RPMA_CONN_UNREACHABLE);
	SHOW(RPMA_FLUSH_TYPE_VISIBILITY);
	SHOW(RPMA_LOG_THRESHOLD_MAX);
	SHOW(sizeof(struct rpma_conn_private_data));
}

static void strings(void)
{
	for (int code = -100011; code <= -99999; ++code)
		printf("err %d: %s\n", code, rpma_err_2str(code));
	printf("err 0: %s\n", rpma_err_2str(0));
	for (int event = -3; event <= 6; ++event)
		printf("event %d: %s\n", event,
		       rpma_utils_conn_event_2str((enum rpma_conn_event)event));
}

static void logging(void)
{
	enum rpma_log_level level = RPMA_LOG_LEVEL_DEBUG;
	SHOW(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &level));
	SHOW(level);
	SHOW(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_AUX, &level));
	SHOW(level);
	SHOW(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_MAX, &level));
	SHOW(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, NULL));
	SHOW(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_MAX, RPMA_LOG_LEVEL_INFO));
	SHOW(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)6));
	SHOW(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level) - 2));
	SHOW(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION));
	/* keep bad-argument reports off stderr: only return codes are compared */
	SHOW(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_DISABLED));
}

static void configurations(void)
{
	struct rpma_conn_cfg *cfg = NULL;
	int timeout = 0;
	uint32_t size = 0;
	bool shared = true;
	struct rpma_srq *srq = (struct rpma_srq *)&size;

	SHOW(rpma_conn_cfg_new(NULL));
	SHOW(rpma_conn_cfg_new(&cfg));
	SHOW(rpma_conn_cfg_get_timeout(cfg, &timeout));
	SHOW(timeout);
	SHOW(rpma_conn_cfg_get_cq_size(cfg, &size));
	SHOW(size);
	SHOW(rpma_conn_cfg_get_rcq_size(cfg, &size));
	SHOW(size);
	SHOW(rpma_conn_cfg_get_sq_size(cfg, &size));
	SHOW(size);
	SHOW(rpma_conn_cfg_get_rq_size(cfg, &size));
	SHOW(size);
	SHOW(rpma_conn_cfg_get_compl_channel(cfg, &shared));
	SHOW(shared);
	SHOW(rpma_conn_cfg_get_srq(cfg, &srq));
	SHOW(srq == NULL);
	SHOW(rpma_conn_cfg_set_timeout(cfg, -1));
	SHOW(rpma_conn_cfg_set_timeout(NULL, 5));
	SHOW(rpma_conn_cfg_set_srq(cfg, NULL));
	SHOW(rpma_conn_cfg_set_cq_size(cfg, 77));
	SHOW(rpma_conn_cfg_get_cq_size(cfg, &size));
	SHOW(size);
	SHOW(rpma_conn_cfg_get_cq_size(cfg, NULL));
	SHOW(rpma_conn_cfg_delete(&cfg));
	SHOW(cfg == NULL);
	SHOW(rpma_conn_cfg_delete(&cfg));
	SHOW(rpma_conn_cfg_delete(NULL));

	struct rpma_srq_cfg *scfg = NULL;
	SHOW(rpma_srq_cfg_new(&scfg));
	SHOW(rpma_srq_cfg_get_rq_size(scfg, &size));
	SHOW(size);
	SHOW(rpma_srq_cfg_get_rcq_size(scfg, &size));
	SHOW(size);
	SHOW(rpma_srq_cfg_set_rq_size(NULL, 1));
	SHOW(rpma_srq_cfg_delete(&scfg));
	SHOW(rpma_srq_cfg_delete(NULL));
}

static void descriptors(void)
{
	struct rpma_peer_cfg *pcfg = NULL;
	unsigned char byte = 0xAA;
	size_t size = 0;
	bool supported = true;

	SHOW(rpma_peer_cfg_new(&pcfg));
	SHOW(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &supported));
	SHOW(supported);
	SHOW(rpma_peer_cfg_get_descriptor_size(pcfg, &size));
	SHOW(size);
	SHOW(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true));
	SHOW(rpma_peer_cfg_get_descriptor(pcfg, &byte));
	SHOW(byte);
	SHOW(rpma_peer_cfg_delete(&pcfg));
	byte = 7;
	SHOW(rpma_peer_cfg_from_descriptor(&byte, 0, &pcfg));
	SHOW(rpma_peer_cfg_from_descriptor(&byte, 1, &pcfg));
	SHOW(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &supported));
	SHOW(supported);
	SHOW(rpma_peer_cfg_delete(&pcfg));

	/* 0x7f1234560000, 100 MiB, rkey 0x1a2b, usage 0x2f, then a tail */
	const unsigned char desc[24] = {0x00, 0x00, 0x56, 0x34, 0x12, 0x7f, 0x00, 0x00,
					0x00, 0x00, 0x40, 0x06, 0x00, 0x00, 0x00, 0x00,
					0x2b, 0x1a, 0x00, 0x00, 0x2f, 0xff, 0xff, 0xff};
	struct rpma_mr_remote *mr = NULL;
	int flush_type = -1;
	SHOW(rpma_mr_remote_from_descriptor(desc, 20, &mr));
	SHOW(rpma_mr_remote_from_descriptor(NULL, 21, &mr));
	SHOW(rpma_mr_remote_from_descriptor(desc, 24, &mr));
	SHOW(rpma_mr_remote_get_size(mr, &size));
	SHOW(size);
	SHOW(rpma_mr_remote_get_flush_type(mr, &flush_type));
	SHOW(flush_type);
	SHOW(rpma_mr_remote_delete(&mr));
	SHOW(mr == NULL);

	unsigned char no_usage[21];
	memcpy(no_usage, desc, sizeof(no_usage));
	no_usage[20] = 0;
	SHOW(rpma_mr_remote_from_descriptor(no_usage, 21, &mr));
}

static void bad_arguments(void)
{
	char word[8] = {0};
	struct rpma_conn_private_data pdata;
	enum rpma_conn_event event;
	struct ibv_wc wc;
	struct rpma_cq *cq = NULL;
	int fd = 0;

	SHOW(rpma_utils_get_ibv_context(NULL, RPMA_UTIL_IBV_CONTEXT_LOCAL, NULL));
	SHOW(rpma_utils_ibv_context_is_odp_capable(NULL, &fd));
	SHOW(rpma_peer_new(NULL, NULL));
	SHOW(rpma_peer_delete(NULL));
	SHOW(rpma_mr_reg(NULL, word, 8, RPMA_MR_USAGE_READ_SRC, NULL));
	SHOW(rpma_mr_dereg(NULL));
	SHOW(rpma_mr_get_descriptor(NULL, word));
	SHOW(rpma_mr_get_ptr(NULL, NULL));
	SHOW(rpma_conn_req_new(NULL, "127.0.0.1", "7204", NULL, NULL));
	SHOW(rpma_conn_req_delete(NULL));
	SHOW(rpma_conn_req_connect(NULL, NULL, NULL));
	SHOW(rpma_conn_req_recv(NULL, NULL, 0, 0, NULL));
	SHOW(rpma_conn_req_get_private_data(NULL, &pdata));
	SHOW(rpma_ep_listen(NULL, "127.0.0.1", "7204", NULL));
	SHOW(rpma_ep_shutdown(NULL));
	SHOW(rpma_ep_get_fd(NULL, &fd));
	SHOW(rpma_ep_next_conn_req(NULL, NULL, NULL));
	SHOW(rpma_conn_get_event_fd(NULL, &fd));
	SHOW(rpma_conn_next_event(NULL, &event));
	SHOW(rpma_conn_get_private_data(NULL, &pdata));
	SHOW(rpma_conn_apply_remote_peer_cfg(NULL, NULL));
	SHOW(rpma_conn_get_qp_num(NULL, NULL));
	SHOW(rpma_conn_get_cq(NULL, &cq));
	SHOW(rpma_conn_get_rcq(NULL, &cq));
	SHOW(rpma_conn_get_compl_fd(NULL, &fd));
	SHOW(rpma_conn_wait(NULL, 0, &cq, NULL));
	SHOW(rpma_conn_disconnect(NULL));
	SHOW(rpma_conn_delete(NULL));
	SHOW(rpma_read(NULL, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, NULL));
	SHOW(rpma_write(NULL, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, NULL));
	SHOW(rpma_write_with_imm(NULL, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, 1, NULL));
	SHOW(rpma_atomic_write(NULL, NULL, 0, word, RPMA_F_COMPLETION_ALWAYS, NULL));
	SHOW(rpma_flush(NULL, NULL, 0, 0, RPMA_FLUSH_TYPE_VISIBILITY, RPMA_F_COMPLETION_ALWAYS,
			NULL));
	SHOW(rpma_send(NULL, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, NULL));
	SHOW(rpma_send_with_imm(NULL, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, 1, NULL));
	SHOW(rpma_recv(NULL, NULL, 0, 0, NULL));
	SHOW(rpma_cq_get_fd(NULL, &fd));
	SHOW(rpma_cq_wait(NULL));
	SHOW(rpma_cq_get_wc(NULL, 1, &wc, NULL));
	SHOW(rpma_srq_new(NULL, NULL, NULL));
	SHOW(rpma_srq_delete(NULL));
	SHOW(rpma_srq_recv(NULL, NULL, 0, 0, NULL));
	SHOW(rpma_srq_get_rcq(NULL, &cq));
}

int main(void)
{
	constants();
	strings();
	logging();
	configurations();
	descriptors();
	bad_arguments();
	return 0;
}

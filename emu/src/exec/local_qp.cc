// SPDX-License-Identifier: GPL-2.0
// QPs whose work never leaves the HCA (the driver's UMR QP). No UMR
// feature is advertised (umr_modify_entity_size_disabled and friends), so
// a UMR WQE completes with a local QP operation error; NOPs complete.
#include "exec/datapath.h"
#include "fw/prm_cq.h"
#include "fw/prm_qp.h"
#include "fw/prm_wqe.h"

namespace mlx5emu {

void DataPath::local_send(Qp &qp)
{
	SendWr wr;
	UdAddress av;
	uint8_t s;
	while (qp.state == prm::qp_state::RTS && take_send_wqe(qp, &wr, &av, &s)) {
		if (s || wr.opcode != prm::wqe::OP_NOP) {
			++qp.ctr.errors;
			complete_send_error(qp, wr, s ? s : static_cast<uint8_t>(prm::cqe_syndrome::LOCAL_QP_OP));
			enter_error(qp);
			return;
		}
		complete_send(qp, wr, 0);
	}
}

} // namespace mlx5emu

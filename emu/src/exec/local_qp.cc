// SPDX-License-Identifier: GPL-2.0
// QPs whose work never leaves the HCA (the driver's UMR QP): UMR WQEs
// (exec/umr.cc) and NOPs, executed and completed in order. A failed WQE
// completes in error and the QP enters the error state, as the in-tree
// driver's UMR recovery expects.
#include "exec/datapath.h"
#include "prm/cq.h"
#include "prm/qp.h"
#include "prm/wqe.h"

namespace mlx5emu {

void RdmaRequester::local_send(Qp &qp)
{
	SendWr wr;
	DataPath::UdAddress av;
	uint8_t s;
	while (qp.state == prm::qp_state::RTS && dp_.take_send_wqe(qp, &wr, &av, &s)) {
		if (!s && wr.opcode == prm::wqe::OP_UMR)
			s = execute_umr(qp, wr);
		else if (!s && wr.opcode != prm::wqe::OP_NOP)
			s = prm::cqe_syndrome::LOCAL_QP_OP;
		if (s) {
			++qp.ctr.errors;
			dp_.completer_.complete_send_error(qp, wr, s);
			dp_.completer_.enter_error(qp);
			return;
		}
		dp_.completer_.complete_send(qp, wr, 0);
	}
}

} // namespace mlx5emu

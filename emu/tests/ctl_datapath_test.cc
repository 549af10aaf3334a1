// SPDX-License-Identifier: GPL-2.0
// The control channel's data-path commands: per-QP counters (hca N qps),
// data-path counters (hca N datapath), and the fabric (link stats / drop /
// delay), through the command language.
#include "ctl/ctl_commands.h"
#include "dp_harness.h"

namespace mlx5emu::test {
namespace {

bool contains(const std::string &s, const std::string &what) { return s.find(what) != std::string::npos; }

TEST(CtlDatapath, QpsDatapathAndLink)
{
	RcPair p;
	std::vector<Hca *> hcas{p.a.h.hca.get(), p.b.h.hca.get()};
	auto ask = [&](const std::string &l) { return execute_control_command(hcas, l); };

	EXPECT_TRUE(contains(ask("help"), "link drop N"));
	EXPECT_EQ(ask("link drop 1"), "ok\n");
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	p.b.post_recv(p.bqp, {{dst.addr, 64, dst.key}});
	DpHca::Wr w;
	w.sgl = {{src.addr, 8, src.key}};
	p.a.post_send(p.aqp, w);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	std::string stats = ask("link stats");
	EXPECT_TRUE(contains(stats, "dropped 1\n")) << stats;
	EXPECT_TRUE(contains(stats, "drops_pending 0\n")) << stats;

	char qp[32];
	std::snprintf(qp, sizeof qp, "qp 0x%x RC RTS", p.aqp.qpn);
	std::string qps = ask("hca 0 qps");
	EXPECT_TRUE(contains(qps, qp)) << qps;
	EXPECT_TRUE(contains(qps, "retransmits=1")) << qps;
	std::string dp = ask("hca 1 datapath");
	EXPECT_TRUE(contains(dp, "cqes 1\n")) << dp;

	EXPECT_EQ(ask("link delay 5"), "ok\n");
	EXPECT_TRUE(contains(ask("link stats"), "delay_ms 5\n"));
	EXPECT_EQ(ask("link delay 0"), "ok\n");
	EXPECT_EQ(ask("link drop 2 3"), "ok\n");
	EXPECT_TRUE(contains(ask("link stats"), "drops_pending 2\n"));
	EXPECT_TRUE(contains(ask("link drop x"), "error"));
	EXPECT_TRUE(contains(ask("link delay 100000"), "error"));
}

} // namespace
} // namespace mlx5emu::test

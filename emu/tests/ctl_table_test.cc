// SPDX-License-Identifier: GPL-2.0
// The control channel's command table (ctl/ctl_commands.cc): the help text
// it writes is the one the commands always answered, the Markdown table
// has a row per command, and the argument checks answer as before.
#include "ctl/ctl_commands.h"

#include <sstream>

#include "dp_harness.h"

namespace mlx5emu::test {
namespace {

// help's answer before the table, word for word.
const char kHelpBefore[] =
	"commands:\n"
	"help                                   this text\n"
	"list                                   HCAs served by this process\n"
	"hca N stats                            counters, per-opcode totals, EQs, faults\n"
	"hca N trace [LAST]                     command trace (opcode, op_mod, status, us:\n"
	"                                       doorbell to completion, at: ms since the clear)\n"
	"hca N trace-clear                      empty the command trace\n"
	"hca N pages                            firmware pages outstanding and history\n"
	"hca N page-request NUM                 PAGE_REQUEST EQE: NUM > 0 give, < 0 take back\n"
	"hca N eqs                              event queues\n"
	"hca N fail-cmd OPCODE STATUS [SYND] [COUNT|forever]\n"
	"                                       next COUNT (1) OPCODE commands fail\n"
	"hca N delay-cmd OPCODE MS              hold OPCODE completions MS ms (0 clears)\n"
	"hca N drop-eqe TYPE [COUNT]            drop the next COUNT (1) EQEs of TYPE\n"
	"hca N delay-eqe TYPE MS                write EQEs of TYPE MS ms late (0 clears)\n"
	"hca N drop-cmd-eqe OPCODE [COUNT]      complete the next COUNT OPCODE commands without their EQE\n"
	"hca N delay-cmd-eqe OPCODE MS          post the completion EQE of OPCODE commands MS ms late (0 clears)\n"
	"hca N cqe-repeat [COUNT] [send|recv]   write the next COUNT (1) CQEs twice (0 clears)\n"
	"hca N cqe-corrupt FIELD VALUE [COUNT] [send|recv]\n"
	"                                       the next COUNT (1) CQEs carry VALUE in FIELD:\n"
	"                                       wqe_counter, byte_cnt or qpn (0 clears)\n"
	"hca N sq-error [COUNT]                 the next COUNT (1) Ethernet SQ WQEs fail, their SQ in error (0 clears)\n"
	"hca N memic-addr-bogus [outside|unaligned] [COUNT]\n"
	"                                       the next COUNT (1) ALLOC_MEMIC answer a bad address\n"
	"hca N faults                           active fault injections\n"
	"hca N clear-faults                     remove every fault injection\n"
	"hca N health-syndrome SYND [EXT] [fatal]  set the health buffer syndrome\n"
	"hca N fw [version X.Y.Z | fail download|verify|activate]\n"
	"                                       firmware: running/stored versions, update;\n"
	"                                       set the running version; fail a flash step once\n"
	"hca N hang | unhang                    stop/resume answering commands and heartbeat\n"
	"hca N unplug | replug                  surprise removal: BAR reads all ones, no DMA,\n"
	"                                       interrupts or packets; replug: back from reset\n"
	"hca N qps                              queue pairs: state, PSNs, per-QP counters\n"
	"hca N nic                              Ethernet: link, SQs, RQs, counters, flow tables\n"
	"hca N port down | up                   Ethernet: pull the cable / plug it back (link flap)\n"
	"hca N qos                              Ethernet: the port's PFC, pause, ETS, trust,\n"
	"                                       DSCP map, buffers, DCBX mode\n"
	"hca N vport [mac MAC | link auto|enable|disable | vlan VID [QOS] | spoofchk on|off | trust on|off | guid node|port G]\n"
	"                                       VF: the host side of its vport: show it, set\n"
	"                                       the MAC it reads, its link (a flap), VST, the\n"
	"                                       spoof check, trust, an IB VF's GUIDs\n"
	"hca N vfs                              PF with VFs: SR-IOV state, per VF enabled,\n"
	"                                       alive, pages held\n"
	"hca N esw                              Ethernet PF with VFs: its legacy e-switch\n"
	"hca N datapath                         data-path counters, CQs, SRQs\n"
	"die                                    the emulator process dies at once (SIGKILL)\n"
	"                                       after answering: every HCA is gone\n"
	"link stats                             fabric counters (packets, drops, delay)\n"
	"link drop N [SKIP]                     drop N packets on the fabric (after SKIP more)\n"
	"link delay MS                          deliver every packet MS ms late (0 clears)\n"
	"OPCODE: name (INIT_HCA) or number (0x102). TYPE: number or cmd, page-request, comp,\n"
	"port-change.\n";

TEST(CtlTable, HelpIsTheTextItAlwaysWas)
{
	std::vector<Hca *> none;
	std::string want = "mlx5-emu control channel\n" + std::string(kHelpBefore) + ".\n";
	EXPECT_EQ(execute_control_command(none, "help"), want);
}

TEST(CtlTable, MarkdownHasARowPerHelpCommand)
{
	std::string md = control_commands_markdown();
	std::istringstream is(md);
	std::string l;
	std::vector<std::string> rows;
	while (std::getline(is, l))
		rows.push_back(l);
	ASSERT_GE(rows.size(), 3u);
	EXPECT_EQ(rows[0], "| command | effect |");
	EXPECT_EQ(rows[1], "|---|---|");
	EXPECT_EQ(rows.size(), 2u + 36u) << md;
	for (size_t i = 2; i < rows.size(); ++i) {
		EXPECT_EQ(rows[i].rfind("| `", 0), 0u) << rows[i];
		EXPECT_EQ(rows[i].back(), '|') << rows[i];
	}
	for (const char *syn : {"| `hca N fail-cmd OPCODE STATUS [SYND] [COUNT\\|forever]` |",
				"| `hca N hang \\| unhang` |", "| `link delay MS` |", "| `die` |", "| `hca N port down \\| up` |",
				"| `hca N vfs` |", "| `hca N esw` |"})
		EXPECT_NE(md.find(syn), std::string::npos) << syn;
}

TEST(CtlTable, MalformedCommandsAnswerAsBefore)
{
	std::vector<Hca *> none;
	EXPECT_EQ(execute_control_command(none, ""), "error: empty command\n");
	EXPECT_EQ(execute_control_command(none, "help me"), "error: unknown command 'help' (try help)\n");
	EXPECT_EQ(execute_control_command(none, "die now"), "error: unknown command 'die' (try help)\n");
	EXPECT_EQ(execute_control_command(none, "stats"), "error: unknown command 'stats' (try help)\n");
	EXPECT_EQ(execute_control_command(none, "link stats"), "error: no hca\n");
	EXPECT_EQ(execute_control_command(none, "hca 0 stats"), "error: no hca 0\n");
	EXPECT_EQ(execute_control_command(none, "hca x stats"), "error: usage: hca N COMMAND ...\n");

	RcPair p;
	std::vector<Hca *> hcas{p.a.h.hca.get(), p.b.h.hca.get()};
	auto ask = [&](const std::string &l) { return execute_control_command(hcas, l); };
	const std::string link_usage = "error: usage: link stats | link drop N [SKIP] | link delay MS\n";
	for (const char *l : {"link", "link stats 1", "link drop", "link drop x", "link drop 1 x", "link drop 1 2 3",
			      "link delay 60001", "link delay", "link frob"})
		EXPECT_EQ(ask(l), link_usage) << l;
	EXPECT_EQ(ask("link delay 0"), "ok\n");
	EXPECT_EQ(ask("link drop 0 0"), "ok\n");
	EXPECT_EQ(ask("hca 0 port sideways"), "error: unknown or malformed command 'port' (try help)\n");
	EXPECT_EQ(ask("hca 0 port up"), "error: port: not an Ethernet port\n");
	EXPECT_EQ(ask("hca 0 vport mac"), "error: unknown or malformed command 'vport' (try help)\n");
	EXPECT_EQ(ask("hca 0 vport vlan x"), "error: vport: vlan VID [QOS]\n");
	EXPECT_EQ(ask("hca 0 vport vlan 5 1 2"), "error: unknown or malformed command 'vport' (try help)\n");
	EXPECT_EQ(ask("hca 0 vport spoofchk maybe"), "error: vport: spoofchk on or off\n");
	EXPECT_EQ(ask("hca 0 vport frob 1"), "error: unknown or malformed command 'vport' (try help)\n");
	EXPECT_EQ(ask("hca 0 vport mac 02:00:00:00:00"), "error: vport: MAC must be XX:XX:XX:XX:XX:XX\n");
	EXPECT_EQ(ask("hca 0 vport link sideways"), "error: vport: link is auto, enable or disable\n");
	EXPECT_EQ(ask("hca 0 vport link disable"),
		  "error: vport: not an Ethernet VF (a PF's driver manages its own vport)\n");
	EXPECT_EQ(ask("hca 0 vfs"), "error: vfs: not a PF with VFs\n");
	EXPECT_EQ(ask("hca 0 vfs 1"), "error: unknown or malformed command 'vfs' (try help)\n");
	EXPECT_EQ(ask("hca 0 stats 1"), "error: unknown or malformed command 'stats' (try help)\n");
	EXPECT_EQ(ask("hca 0 fail-cmd INIT_HCA"), "error: unknown or malformed command 'fail-cmd' (try help)\n");
	EXPECT_EQ(ask("hca 0 fail-cmd INIT_HCA 3 0 1 2"),
		  "error: unknown or malformed command 'fail-cmd' (try help)\n");
	EXPECT_EQ(ask("hca 0 unhang x"), "error: unknown or malformed command 'unhang' (try help)\n");
	EXPECT_EQ(ask("hca 0 frob"), "error: unknown or malformed command 'frob' (try help)\n");
	EXPECT_EQ(ask("hca 1 trace-clear"), "ok\n");
	EXPECT_EQ(ask("hca 1 trace 0"), "hca 1 trace\n.\n");
	EXPECT_EQ(ask("hca 1 trace x"), "error: trace: LAST must be a number\n");
	EXPECT_EQ(ask("hca 0 hang"), "ok\n");
	EXPECT_EQ(ask("hca 0 unhang"), "ok\n");
	EXPECT_EQ(ask("hca 0 health-syndrome 0x100"), "error: health-syndrome: SYND must be 0..0xff\n");
	EXPECT_EQ(ask("hca 0 cqe-repeat x"), "error: cqe-repeat: usage: cqe-repeat [COUNT] [send|recv]\n");
	EXPECT_EQ(ask("hca 0 clear-faults"), "ok\n");
	std::string list = ask("list");
	EXPECT_EQ(list.rfind("hcas 2\nhca 0 device 0x", 0), 0u) << list;
}

// list names each HCA's function: a PF, or a VF with its vhca_id.
TEST(CtlTable, ListShowsTheFunction)
{
	HcaConfig pf_cfg, vf_cfg;
	vf_cfg.index = 1;
	vf_cfg.device_id = 0x1018;
	vf_cfg.role = pci::FunctionRole::Vf;
	FwHarness pf(pf_cfg), vf(vf_cfg);
	std::vector<Hca *> hcas{pf.hca.get(), vf.hca.get()};
	std::string list = execute_control_command(hcas, "list");
	EXPECT_NE(list.find("\nhca 0 device 0x1017 function pf vhca_id 0 node_guid 0x"), std::string::npos) << list;
	EXPECT_NE(list.find("\nhca 1 device 0x1018 function vf vhca_id 1 node_guid 0x"), std::string::npos) << list;
	EXPECT_NE(list.find(" lid 2\n"), std::string::npos) << "the line still ends in the LID: " << list;
}

} // namespace
} // namespace mlx5emu::test

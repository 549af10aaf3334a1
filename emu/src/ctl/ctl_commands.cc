// SPDX-License-Identifier: GPL-2.0
// The control-channel command language.
#include "ctl/ctl_commands.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "exec/datapath.h"
#include "fabric/fabric.h"
#include "fw/firmware.h"
#include "prm/opcode_names.h"
#include "prm/prm.h"

namespace mlx5emu {

namespace {

const char kHelp[] =
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
	"hca N memic-addr-bogus [outside|unaligned] [COUNT]\n"
	"                                       the next COUNT (1) ALLOC_MEMIC answer a bad address\n"
	"hca N faults                           active fault injections\n"
	"hca N clear-faults                     remove every fault injection\n"
	"hca N health-syndrome SYND [EXT] [fatal]  set the health buffer syndrome\n"
	"hca N hang | unhang                    stop/resume answering commands and heartbeat\n"
	"hca N unplug | replug                  surprise removal: BAR reads all ones, no DMA,\n"
	"                                       interrupts or packets; replug: back from reset\n"
	"hca N qps                              queue pairs: state, PSNs, per-QP counters\n"
	"hca N nic                              Ethernet: link, SQs, RQs, counters, flow tables\n"
	"hca N port down | up                   Ethernet: pull the cable / plug it back (link flap)\n"
	"hca N datapath                         data-path counters, CQs, SRQs\n"
	"die                                    the emulator process dies at once (SIGKILL)\n"
	"                                       after answering: every HCA is gone\n"
	"link stats                             fabric counters (packets, drops, delay)\n"
	"link drop N [SKIP]                     drop N packets on the fabric (after SKIP more)\n"
	"link delay MS                          deliver every packet MS ms late (0 clears)\n"
	"OPCODE: name (INIT_HCA) or number (0x102). TYPE: number or cmd, page-request, comp,\n"
	"port-change.\n";

std::vector<std::string> split(const std::string &line)
{
	std::istringstream is(line);
	std::vector<std::string> w;
	std::string s;
	while (is >> s)
		w.push_back(s);
	return w;
}

bool parse_i64(const std::string &s, int64_t *v)
{
	if (s.empty())
		return false;
	char *end = nullptr;
	long long x = std::strtoll(s.c_str(), &end, 0);
	if (*end)
		return false;
	*v = x;
	return true;
}

bool parse_u32(const std::string &s, uint32_t *v)
{
	int64_t x;
	if (!parse_i64(s, &x) || x < 0 || x > 0xffffffffll)
		return false;
	*v = static_cast<uint32_t>(x);
	return true;
}

bool parse_eqe_type(std::string s, uint8_t *t)
{
	std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
	std::replace(s.begin(), s.end(), '_', '-');
	if (s == "cmd")
		*t = prm::event::CMD;
	else if (s == "page-request" || s == "pages")
		*t = prm::event::PAGE_REQUEST;
	else if (s == "comp")
		*t = prm::event::COMP;
	else if (s == "port-change")
		*t = prm::event::PORT_CHANGE;
	else {
		uint32_t v;
		if (!parse_u32(s, &v) || v > 0xff)
			return false;
		*t = static_cast<uint8_t>(v);
	}
	return true;
}

bool parse_cqe_kind(const std::string &s, Faults::CqeKind *k)
{
	if (s == "send")
		*k = Faults::CqeKind::Send;
	else if (s == "recv")
		*k = Faults::CqeKind::Recv;
	else
		return false;
	return true;
}

std::string ok(const std::string &msg = "") { return msg.empty() ? "ok\n" : "ok " + msg + "\n"; }
std::string error(const std::string &msg) { return "error: " + msg + "\n"; }

std::string block(const std::string &header, const std::vector<std::string> &lines)
{
	std::string s = header + "\n";
	for (const std::string &l : lines)
		s += l + "\n";
	return s + ".\n";
}

std::string hca_command(Hca &hca, unsigned n, const std::vector<std::string> &w)
{
	Firmware &fw = hca.impl();
	const std::string &cmd = w[2];
	size_t argc = w.size() - 3;
	auto arg = [&](size_t i) -> const std::string & { return w[3 + i]; };
	std::string head = "hca " + std::to_string(n) + " " + cmd;

	if (cmd == "stats" && argc == 0)
		return block(head, fw.stats_lines());
	if (cmd == "pages" && argc == 0)
		return block(head, fw.pages_lines());
	if (cmd == "eqs" && argc == 0)
		return block(head, fw.eq_lines());
	if (cmd == "faults" && argc == 0)
		return block(head, fw.faults.describe());
	if (cmd == "qps" && argc == 0) {
		auto lk = fw.dp().lock();
		return block(head, fw.dp().qp_lines());
	}
	if (cmd == "nic" && argc == 0) {
		auto lk = fw.dp().lock();
		return block(head, fw.dp().nic_lines());
	}
	if (cmd == "port" && argc == 1 && (arg(0) == "up" || arg(0) == "down")) {
		if (!fw.set_eth_cable(arg(0) == "up"))
			return error("port: not an Ethernet port");
		return ok();
	}
	if (cmd == "datapath" && argc == 0) {
		auto lk = fw.dp().lock();
		return block(head, fw.dp().stats_lines());
	}
	if (cmd == "trace" && argc <= 1) {
		std::vector<TraceEntry> t = fw.trace_entries();
		uint32_t last = static_cast<uint32_t>(t.size());
		if (argc == 1 && !parse_u32(arg(0), &last))
			return error("trace: LAST must be a number");
		std::vector<std::string> lines;
		size_t from = t.size() > last ? t.size() - last : 0;
		for (size_t i = from; i < t.size(); ++i)
			lines.push_back(CommandTrace::format(t[i]));
		return block(head, lines);
	}
	if (cmd == "trace-clear" && argc == 0) {
		fw.trace_clear();
		return ok();
	}
	if (cmd == "clear-faults" && argc == 0) {
		fw.faults.clear();
		return ok();
	}
	if ((cmd == "hang" || cmd == "unhang") && argc == 0) {
		fw.hang(cmd == "hang");
		return ok();
	}
	if ((cmd == "unplug" || cmd == "replug") && argc == 0) {
		fw.unplug(cmd == "unplug");
		return ok();
	}
	if (cmd == "page-request" && argc == 1) {
		int64_t num;
		if (!parse_i64(arg(0), &num) || num == 0 || num > 0x7fffffff || num < -0x7fffffff)
			return error("page-request: NUM must be a non-zero number");
		std::string err;
		if (!fw.page_request(static_cast<int32_t>(num), &err))
			return error("page-request: " + err);
		return ok();
	}
	if (cmd == "fail-cmd" && argc >= 2 && argc <= 4) {
		uint16_t op;
		uint32_t st, synd = 0x0badf00d, count = 1;
		if (!parse_opcode(arg(0), &op))
			return error("fail-cmd: unknown opcode " + arg(0));
		if (!parse_u32(arg(1), &st) || st == 0 || st > 0xff)
			return error("fail-cmd: STATUS must be 1..0xff");
		if (argc >= 3 && !parse_u32(arg(2), &synd))
			return error("fail-cmd: bad SYNDROME");
		if (argc == 4) {
			if (arg(3) == "forever")
				count = Faults::kForever;
			else if (!parse_u32(arg(3), &count) || count == 0)
				return error("fail-cmd: COUNT must be > 0 or 'forever'");
		}
		fw.faults.fail_cmd(op, static_cast<uint8_t>(st), synd, count);
		return ok();
	}
	if (cmd == "delay-cmd" && argc == 2) {
		uint16_t op;
		uint32_t ms;
		if (!parse_opcode(arg(0), &op))
			return error("delay-cmd: unknown opcode " + arg(0));
		if (!parse_u32(arg(1), &ms))
			return error("delay-cmd: bad MS");
		fw.faults.delay_cmd(op, ms);
		return ok();
	}
	if (cmd == "drop-eqe" && (argc == 1 || argc == 2)) {
		uint8_t t;
		uint32_t count = 1;
		if (!parse_eqe_type(arg(0), &t))
			return error("drop-eqe: bad TYPE " + arg(0));
		if (argc == 2 && !parse_u32(arg(1), &count))
			return error("drop-eqe: bad COUNT");
		fw.faults.drop_eqe(t, count);
		return ok();
	}
	if (cmd == "delay-eqe" && argc == 2) {
		uint8_t t;
		uint32_t ms;
		if (!parse_eqe_type(arg(0), &t))
			return error("delay-eqe: bad TYPE " + arg(0));
		if (!parse_u32(arg(1), &ms))
			return error("delay-eqe: bad MS");
		fw.faults.delay_eqe(t, ms);
		return ok();
	}
	if (cmd == "drop-cmd-eqe" && (argc == 1 || argc == 2)) {
		uint16_t op;
		uint32_t count = 1;
		if (!parse_opcode(arg(0), &op))
			return error("drop-cmd-eqe: unknown opcode " + arg(0));
		if (argc == 2 && !parse_u32(arg(1), &count))
			return error("drop-cmd-eqe: bad COUNT");
		fw.faults.drop_cmd_eqe(op, count);
		return ok();
	}
	if (cmd == "delay-cmd-eqe" && argc == 2) {
		uint16_t op;
		uint32_t ms;
		if (!parse_opcode(arg(0), &op))
			return error("delay-cmd-eqe: unknown opcode " + arg(0));
		if (!parse_u32(arg(1), &ms) || ms > 600000)
			return error("delay-cmd-eqe: MS must be 0..600000");
		fw.faults.delay_cmd_eqe(op, ms);
		return ok();
	}
	if (cmd == "cqe-repeat" && argc <= 2) {
		uint32_t count = 1;
		Faults::CqeKind kind = Faults::CqeKind::Any;
		for (size_t i = 0; i < argc; ++i) {
			if (!parse_cqe_kind(arg(i), &kind) && (i || !parse_u32(arg(i), &count)))
				return error("cqe-repeat: usage: cqe-repeat [COUNT] [send|recv]");
		}
		fw.faults.repeat_cqe(count, kind);
		return ok();
	}
	if (cmd == "cqe-corrupt" && argc >= 2 && argc <= 4) {
		Faults::CqeField field;
		uint32_t value, count = 1;
		Faults::CqeKind kind = Faults::CqeKind::Any;
		if (arg(0) == "wqe_counter")
			field = Faults::CqeField::WqeCounter;
		else if (arg(0) == "byte_cnt")
			field = Faults::CqeField::ByteCnt;
		else if (arg(0) == "qpn")
			field = Faults::CqeField::Qpn;
		else
			return error("cqe-corrupt: FIELD must be wqe_counter, byte_cnt or qpn");
		if (!parse_u32(arg(1), &value) || (field == Faults::CqeField::WqeCounter && value > 0xffff) ||
		    (field == Faults::CqeField::Qpn && value > 0xffffff))
			return error("cqe-corrupt: VALUE does not fit " + arg(0));
		for (size_t i = 2; i < argc; ++i) {
			if (!parse_cqe_kind(arg(i), &kind) && (i > 2 || !parse_u32(arg(i), &count)))
				return error("cqe-corrupt: usage: cqe-corrupt FIELD VALUE [COUNT] [send|recv]");
		}
		fw.faults.corrupt_cqe(field, value, count, kind);
		return ok();
	}
	if (cmd == "memic-addr-bogus" && argc <= 2) {
		uint32_t count = 1;
		Faults::MemicBogus how = Faults::MemicBogus::Outside;
		for (size_t i = 0; i < argc; ++i) {
			if (arg(i) == "outside" && i == 0)
				how = Faults::MemicBogus::Outside;
			else if (arg(i) == "unaligned" && i == 0)
				how = Faults::MemicBogus::Unaligned;
			else if (i != argc - 1 || !parse_u32(arg(i), &count))
				return error("memic-addr-bogus: usage: memic-addr-bogus [outside|unaligned] [COUNT]");
		}
		if (!fw.memic)
			return error("memic-addr-bogus: the function has no device memory");
		fw.faults.bogus_memic(how, count);
		return ok();
	}
	if (cmd == "health-syndrome" && argc >= 1 && argc <= 3) {
		uint32_t synd, ext = 0;
		bool fatal = false;
		if (!parse_u32(arg(0), &synd) || synd > 0xff)
			return error("health-syndrome: SYND must be 0..0xff");
		for (size_t i = 1; i < argc; ++i) {
			if (arg(i) == "fatal")
				fatal = true;
			else if (!parse_u32(arg(i), &ext) || ext > 0xffff)
				return error("health-syndrome: EXT must be 0..0xffff");
		}
		fw.set_health_syndrome(static_cast<uint8_t>(synd), static_cast<uint16_t>(ext), fatal);
		return ok();
	}
	return error("unknown or malformed command '" + cmd + "' (try help)");
}

} // namespace

std::string execute_control_command(const std::vector<Hca *> &hcas, const std::string &line)
{
	std::vector<std::string> w = split(line);
	if (w.empty())
		return error("empty command");
	if (w[0] == "help" && w.size() == 1) {
		std::vector<std::string> lines;
		std::istringstream is(kHelp);
		std::string l;
		while (std::getline(is, l))
			lines.push_back(l);
		return block("mlx5-emu control channel", lines);
	}
	if (w[0] == "list" && w.size() == 1) {
		std::vector<std::string> lines;
		for (size_t i = 0; i < hcas.size(); ++i) {
			const HcaConfig &c = hcas[i]->config();
			char b[128];
			std::snprintf(b, sizeof b, "hca %zu device 0x%04x node_guid 0x%016llx lid %u", i, c.device_id,
				      static_cast<unsigned long long>(hcas[i]->impl().port().node_guid),
				      hcas[i]->impl().port().lid);
			lines.push_back(b);
		}
		return block("hcas " + std::to_string(hcas.size()), lines);
	}
	if (w[0] == "die" && w.size() == 1)
		return ok("dying"); // the control server kills the process after sending it
	if (w[0] == "link") {
		if (hcas.empty() || !hcas[0])
			return error("no hca");
		Fabric &f = hcas[0]->impl().fabric();
		uint32_t n;
		if (w.size() == 2 && w[1] == "stats")
			return block("link stats", f.describe());
		uint32_t skip = 0;
		if ((w.size() == 3 || w.size() == 4) && w[1] == "drop" && parse_u32(w[2], &n) &&
		    (w.size() == 3 || parse_u32(w[3], &skip))) {
			f.drop_next(n, skip);
			return ok();
		}
		if (w.size() == 3 && w[1] == "delay" && parse_u32(w[2], &n) && n <= 60000) {
			f.set_delay_ms(n);
			return ok();
		}
		return error("usage: link stats | link drop N [SKIP] | link delay MS");
	}
	if (w[0] == "hca") {
		uint32_t n;
		if (w.size() < 3 || !parse_u32(w[1], &n))
			return error("usage: hca N COMMAND ...");
		if (n >= hcas.size() || !hcas[n])
			return error("no hca " + w[1]);
		return hca_command(*hcas[n], n, w);
	}
	return error("unknown command '" + w[0] + "' (try help)");
}

} // namespace mlx5emu

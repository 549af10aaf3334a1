// SPDX-License-Identifier: GPL-2.0
// The control-channel command language.
#include "ctl/ctl_commands.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <sstream>
#include <utility>

#include "exec/datapath.h"
#include "fabric/fabric.h"
#include "fw/firmware.h"
#include "prm/opcode_names.h"
#include "prm/prm.h"

namespace mlx5emu {

namespace {

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

// A 64-bit GUID: 0x and up to 16 hex digits, or 16 hex digits.
bool parse_guid(const std::string &s, uint64_t *v)
{
	std::string h = s.rfind("0x", 0) == 0 ? s.substr(2) : s;
	if (h.empty() || h.size() > 16 || h.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
		return false;
	*v = std::stoull(h, nullptr, 16);
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

// One command line being answered: its words and, for `hca N ...`, the HCA.
struct Call {
	const std::vector<Hca *> &hcas;
	const std::vector<std::string> &w;
	size_t first = 1; // the first argument's word
	Hca *hca = nullptr;
	unsigned n = 0;

	size_t argc() const { return w.size() - first; }
	const std::string &arg(size_t i) const { return w[first + i]; }
	const std::string &cmd() const { return w[first - 1]; }
	Firmware &fw() const { return hca->impl(); }
	// The first line of a block answer: "hca N CMD".
	std::string head() const { return "hca " + std::to_string(n) + " " + cmd(); }
};

// A handler's answer; an empty string: the arguments do not fit (the
// caller answers the scope's usage error).
using Handler = std::string (*)(const Call &);

enum class Scope : uint8_t { Top, Hca, Link };

// One row of the command table: what dispatches the command, its help
// line(s) and its line in Documentation/emulator.md.
struct CtlSpec {
	Scope scope;
	const char *name;     // the word after the scope ("stats" of "hca N stats")
	const char *alias;    // a second word with the same handler, or nullptr
	unsigned min_args, max_args;
	const char *synopsis; // as help and the documentation show it
	const char *help;     // help text; '\n' starts a continuation line
	const char *doc;      // the documentation's description (Markdown), nullptr: help
	Handler handler;
};

std::string cmd_help(const Call &c);

std::string cmd_list(const Call &c)
{
	std::vector<std::string> lines;
	for (size_t i = 0; i < c.hcas.size(); ++i) {
		const HcaConfig &cfg = c.hcas[i]->config();
		const Firmware &fw = c.hcas[i]->impl();
		char b[160];
		std::snprintf(b, sizeof b, "hca %zu device 0x%04x function %s vhca_id %u node_guid 0x%016llx lid %u", i,
			      cfg.device_id, cfg.is_vf() ? "vf" : "pf", fw.caps.gen(prm::cmd_hca_cap::vhca_id),
			      static_cast<unsigned long long>(fw.port().node_guid), fw.port().lid);
		lines.push_back(b);
	}
	return block("hcas " + std::to_string(c.hcas.size()), lines);
}

std::string cmd_die(const Call &)
{
	return ok("dying"); // the control server kills the process after sending it
}

Fabric &fabric_of(const Call &c) { return c.hcas[0]->impl().fabric(); }

std::string link_stats(const Call &c) { return block("link stats", fabric_of(c).describe()); }

std::string link_drop(const Call &c)
{
	uint32_t n, skip = 0;
	if (!parse_u32(c.arg(0), &n) || (c.argc() == 2 && !parse_u32(c.arg(1), &skip)))
		return {};
	fabric_of(c).drop_next(n, skip);
	return ok();
}

std::string link_delay(const Call &c)
{
	uint32_t n;
	if (!parse_u32(c.arg(0), &n) || n > 60000)
		return {};
	fabric_of(c).set_delay_ms(n);
	return ok();
}

std::string hca_stats(const Call &c) { return block(c.head(), c.fw().stats_lines()); }
std::string hca_pages(const Call &c) { return block(c.head(), c.fw().pages_lines()); }
std::string hca_eqs(const Call &c) { return block(c.head(), c.fw().eq_lines()); }
std::string hca_faults(const Call &c) { return block(c.head(), c.fw().faults.describe()); }

std::string hca_qps(const Call &c)
{
	auto lk = c.fw().dp().lock();
	return block(c.head(), c.fw().dp().qp_lines());
}

std::string hca_nic(const Call &c)
{
	auto lk = c.fw().dp().lock();
	return block(c.head(), c.fw().dp().nic_lines());
}

std::string hca_datapath(const Call &c)
{
	auto lk = c.fw().dp().lock();
	return block(c.head(), c.fw().dp().stats_lines());
}

std::string hca_port(const Call &c)
{
	if (c.arg(0) != "up" && c.arg(0) != "down")
		return {};
	if (!c.fw().set_eth_cable(c.arg(0) == "up"))
		return error("port: not an Ethernet port");
	return ok();
}

// The port's QoS registers as the firmware holds them (fw/port_qos.h).
std::string hca_qos(const Call &c)
{
	const Firmware &fw = c.fw();
	if (!fw.is_eth())
		return error("qos: not an Ethernet port");
	std::lock_guard<std::mutex> lk(fw.mu);
	const EthPort &e = fw.eth;
	return block(c.head(), e.qos.lines(e.pfc_tx, e.pfc_rx, e.pause_tx, e.pause_rx));
}

bool parse_mac(const std::string &s, MacAddr *m)
{
	unsigned b[6];
	char tail;
	if (std::sscanf(s.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6)
		return false;
	for (unsigned i = 0; i < 6; ++i)
		(*m)[i] = static_cast<uint8_t>(b[i]);
	return true;
}

// The host side of a VF's vport: what `ip link set <pf> vf N ...` sets
// on a host, here set from outside the guest.
std::string hca_vport(const Call &c)
{
	if (c.argc() == 0)
		return block(c.head(), c.fw().vport_lines());
	std::string err;
	if (c.arg(0) == "vlan") {
		uint32_t vid, qos = 0;
		if (c.argc() > 3 || !parse_u32(c.arg(1), &vid) || (c.argc() == 3 && !parse_u32(c.arg(2), &qos)))
			return error("vport: vlan VID [QOS]");
		err = c.fw().set_host_vport_vlan(static_cast<uint16_t>(std::min(vid, 0xffffu)),
						 static_cast<uint8_t>(std::min(qos, 0xffu)));
		return err.empty() ? ok() : error("vport: " + err);
	}
	if (c.arg(0) == "guid") {
		uint64_t g;
		if (c.argc() != 3 || (c.arg(1) != "node" && c.arg(1) != "port") || !parse_guid(c.arg(2), &g))
			return error("vport: guid node|port 0xGUID");
		err = c.fw().set_host_vport_guid(c.arg(1) == "node", g);
		return err.empty() ? ok() : error("vport: " + err);
	}
	if (c.argc() != 2)
		return {};
	if (c.arg(0) == "spoofchk") {
		if (c.arg(1) != "on" && c.arg(1) != "off")
			return error("vport: spoofchk on or off");
		err = c.fw().set_host_vport_spoofchk(c.arg(1) == "on");
	} else if (c.arg(0) == "trust") {
		if (c.arg(1) != "on" && c.arg(1) != "off")
			return error("vport: trust on or off");
		err = c.fw().set_host_vport_trust(c.arg(1) == "on");
	} else if (c.arg(0) == "mac") {
		MacAddr m;
		if (!parse_mac(c.arg(1), &m))
			return error("vport: MAC must be XX:XX:XX:XX:XX:XX");
		err = c.fw().set_host_vport_mac(m);
	} else if (c.arg(0) == "link") {
		static constexpr std::pair<const char *, VportAdmin> kStates[] = {
			{"auto", VportAdmin::Auto}, {"enable", VportAdmin::Up}, {"disable", VportAdmin::Down}};
		auto it = std::find_if(std::begin(kStates), std::end(kStates),
				       [&](const auto &st) { return c.arg(1) == st.first; });
		if (it == std::end(kStates))
			return error("vport: link is auto, enable or disable");
		err = c.fw().set_host_vport_admin(it->second);
	} else {
		return {};
	}
	return err.empty() ? ok() : error("vport: " + err);
}

// A PF's VFs: the SR-IOV state of its capability, and per VF whether the
// PF enabled it, whether it lives, the PF's pages the firmware holds for it.
std::string hca_vfs(const Call &c)
{
	std::vector<std::string> v = c.fw().vfs_lines();
	if (v.size() == 1 && v[0].rfind("error: ", 0) == 0)
		return error("vfs: " + v[0].substr(7));
	return block(c.head(), v);
}

// An e-switch manager's legacy e-switch: its MPFS, the vports' VLAN
// contexts and each table namespace.
std::string hca_esw(const Call &c)
{
	std::vector<std::string> v = c.fw().esw_lines();
	if (v.size() == 1 && v[0].rfind("error: ", 0) == 0)
		return error("esw: " + v[0].substr(7));
	return block(c.head(), v);
}

std::string hca_trace(const Call &c)
{
	std::vector<TraceEntry> t = c.fw().trace_entries();
	uint32_t last = static_cast<uint32_t>(t.size());
	if (c.argc() == 1 && !parse_u32(c.arg(0), &last))
		return error("trace: LAST must be a number");
	std::vector<std::string> lines;
	size_t from = t.size() > last ? t.size() - last : 0;
	for (size_t i = from; i < t.size(); ++i)
		lines.push_back(CommandTrace::format(t[i]));
	return block(c.head(), lines);
}

std::string hca_trace_clear(const Call &c)
{
	c.fw().trace_clear();
	return ok();
}

std::string hca_clear_faults(const Call &c)
{
	c.fw().faults.clear();
	return ok();
}

std::string hca_hang(const Call &c)
{
	c.fw().hang(c.cmd() == "hang");
	return ok();
}

std::string hca_unplug(const Call &c)
{
	c.fw().unplug(c.cmd() == "unplug");
	return ok();
}

std::string hca_page_request(const Call &c)
{
	int64_t num;
	if (!parse_i64(c.arg(0), &num) || num == 0 || num > 0x7fffffff || num < -0x7fffffff)
		return error("page-request: NUM must be a non-zero number");
	std::string err;
	if (!c.fw().page_request(static_cast<int32_t>(num), &err))
		return error("page-request: " + err);
	return ok();
}

std::string hca_fail_cmd(const Call &c)
{
	uint16_t op;
	uint32_t st, synd = 0x0badf00d, count = 1;
	if (!parse_opcode(c.arg(0), &op))
		return error("fail-cmd: unknown opcode " + c.arg(0));
	if (!parse_u32(c.arg(1), &st) || st == 0 || st > 0xff)
		return error("fail-cmd: STATUS must be 1..0xff");
	if (c.argc() >= 3 && !parse_u32(c.arg(2), &synd))
		return error("fail-cmd: bad SYNDROME");
	if (c.argc() == 4) {
		if (c.arg(3) == "forever")
			count = Faults::kForever;
		else if (!parse_u32(c.arg(3), &count) || count == 0)
			return error("fail-cmd: COUNT must be > 0 or 'forever'");
	}
	c.fw().faults.fail_cmd(op, static_cast<uint8_t>(st), synd, count);
	return ok();
}

std::string hca_delay_cmd(const Call &c)
{
	uint16_t op;
	uint32_t ms;
	if (!parse_opcode(c.arg(0), &op))
		return error("delay-cmd: unknown opcode " + c.arg(0));
	if (!parse_u32(c.arg(1), &ms))
		return error("delay-cmd: bad MS");
	c.fw().faults.delay_cmd(op, ms);
	return ok();
}

std::string hca_drop_eqe(const Call &c)
{
	uint8_t t;
	uint32_t count = 1;
	if (!parse_eqe_type(c.arg(0), &t))
		return error("drop-eqe: bad TYPE " + c.arg(0));
	if (c.argc() == 2 && !parse_u32(c.arg(1), &count))
		return error("drop-eqe: bad COUNT");
	c.fw().faults.drop_eqe(t, count);
	return ok();
}

std::string hca_delay_eqe(const Call &c)
{
	uint8_t t;
	uint32_t ms;
	if (!parse_eqe_type(c.arg(0), &t))
		return error("delay-eqe: bad TYPE " + c.arg(0));
	if (!parse_u32(c.arg(1), &ms))
		return error("delay-eqe: bad MS");
	c.fw().faults.delay_eqe(t, ms);
	return ok();
}

std::string hca_drop_cmd_eqe(const Call &c)
{
	uint16_t op;
	uint32_t count = 1;
	if (!parse_opcode(c.arg(0), &op))
		return error("drop-cmd-eqe: unknown opcode " + c.arg(0));
	if (c.argc() == 2 && !parse_u32(c.arg(1), &count))
		return error("drop-cmd-eqe: bad COUNT");
	c.fw().faults.drop_cmd_eqe(op, count);
	return ok();
}

std::string hca_delay_cmd_eqe(const Call &c)
{
	uint16_t op;
	uint32_t ms;
	if (!parse_opcode(c.arg(0), &op))
		return error("delay-cmd-eqe: unknown opcode " + c.arg(0));
	if (!parse_u32(c.arg(1), &ms) || ms > 600000)
		return error("delay-cmd-eqe: MS must be 0..600000");
	c.fw().faults.delay_cmd_eqe(op, ms);
	return ok();
}

std::string hca_cqe_repeat(const Call &c)
{
	uint32_t count = 1;
	Faults::CqeKind kind = Faults::CqeKind::Any;
	for (size_t i = 0; i < c.argc(); ++i) {
		if (!parse_cqe_kind(c.arg(i), &kind) && (i || !parse_u32(c.arg(i), &count)))
			return error("cqe-repeat: usage: cqe-repeat [COUNT] [send|recv]");
	}
	c.fw().faults.repeat_cqe(count, kind);
	return ok();
}

std::string hca_cqe_corrupt(const Call &c)
{
	Faults::CqeField field;
	uint32_t value, count = 1;
	Faults::CqeKind kind = Faults::CqeKind::Any;
	if (c.arg(0) == "wqe_counter")
		field = Faults::CqeField::WqeCounter;
	else if (c.arg(0) == "byte_cnt")
		field = Faults::CqeField::ByteCnt;
	else if (c.arg(0) == "qpn")
		field = Faults::CqeField::Qpn;
	else
		return error("cqe-corrupt: FIELD must be wqe_counter, byte_cnt or qpn");
	if (!parse_u32(c.arg(1), &value) || (field == Faults::CqeField::WqeCounter && value > 0xffff) ||
	    (field == Faults::CqeField::Qpn && value > 0xffffff))
		return error("cqe-corrupt: VALUE does not fit " + c.arg(0));
	for (size_t i = 2; i < c.argc(); ++i) {
		if (!parse_cqe_kind(c.arg(i), &kind) && (i > 2 || !parse_u32(c.arg(i), &count)))
			return error("cqe-corrupt: usage: cqe-corrupt FIELD VALUE [COUNT] [send|recv]");
	}
	c.fw().faults.corrupt_cqe(field, value, count, kind);
	return ok();
}

std::string hca_sq_error(const Call &c)
{
	uint32_t count = 1;
	if (c.argc() && !parse_u32(c.arg(0), &count))
		return error("sq-error: usage: sq-error [COUNT]");
	c.fw().faults.fail_sq_wqe(count);
	return ok();
}

std::string hca_memic_addr_bogus(const Call &c)
{
	uint32_t count = 1;
	Faults::MemicBogus how = Faults::MemicBogus::Outside;
	for (size_t i = 0; i < c.argc(); ++i) {
		if (c.arg(i) == "outside" && i == 0)
			how = Faults::MemicBogus::Outside;
		else if (c.arg(i) == "unaligned" && i == 0)
			how = Faults::MemicBogus::Unaligned;
		else if (i != c.argc() - 1 || !parse_u32(c.arg(i), &count))
			return error("memic-addr-bogus: usage: memic-addr-bogus [outside|unaligned] [COUNT]");
	}
	if (!c.fw().memic)
		return error("memic-addr-bogus: the function has no device memory");
	c.fw().faults.bogus_memic(how, count);
	return ok();
}

std::string hca_health_syndrome(const Call &c)
{
	uint32_t synd, ext = 0;
	bool fatal = false;
	if (!parse_u32(c.arg(0), &synd) || synd > 0xff)
		return error("health-syndrome: SYND must be 0..0xff");
	for (size_t i = 1; i < c.argc(); ++i) {
		if (c.arg(i) == "fatal")
			fatal = true;
		else if (!parse_u32(c.arg(i), &ext) || ext > 0xffff)
			return error("health-syndrome: EXT must be 0..0xffff");
	}
	c.fw().set_health_syndrome(static_cast<uint8_t>(synd), static_cast<uint16_t>(ext), fatal);
	return ok();
}

// The boot image: what runs, what is stored, the update in progress; set
// the running version, or fail the next update step once.
std::string hca_fw(const Call &c)
{
	Firmware &fw = c.fw();
	std::lock_guard<std::mutex> lk(fw.mu);
	if (c.argc() == 0)
		return block(c.head(), fw.fwup.lines());
	if (c.argc() == 2 && c.arg(0) == "fail") {
		static const std::pair<const char *, FwUpdate::Step> kSteps[] = {
			{"download", FwUpdate::Step::Download},
			{"verify", FwUpdate::Step::Verify},
			{"activate", FwUpdate::Step::Activate},
		};
		for (auto &[name, step] : kSteps)
			if (c.arg(1) == name) {
				fw.fwup.fail_next(step);
				return ok();
			}
		return error("fw: fail download|verify|activate");
	}
	unsigned a, b, d;
	char tail;
	if (c.argc() == 2 && c.arg(0) == "version" &&
	    std::sscanf(c.arg(1).c_str(), "%u.%u.%u%c", &a, &b, &d, &tail) == 3 && a <= 0xff && b <= 0xff &&
	    d <= 0xffff && (a || b || d)) {
		fw.fwup.set_running(fw_version(a, b, d));
		return ok();
	}
	return error("fw: version MAJOR.MINOR.SUB (255.255.65535 at most, not 0.0.0) | fail STEP");
}

// Every command, in the order help lists them.
const CtlSpec kCommands[] = {
	{Scope::Top, "help", nullptr, 0, 0, "help", "this text", "these commands, their arguments and effects",
	 cmd_help},
	{Scope::Top, "list", nullptr, 0, 0, "list", "HCAs served by this process",
	 "the HCAs served by this process: device id, function (`pf`, `vf`), vhca_id, node GUID, LID", cmd_list},
	{Scope::Hca, "stats", nullptr, 0, 0, "hca N stats", "counters, per-opcode totals, EQs, faults",
	 "counters, per-opcode command totals, EQs, fault injections, the process's RSS", hca_stats},
	{Scope::Hca, "trace", nullptr, 0, 1, "hca N trace [LAST]",
	 "command trace (opcode, op_mod, status, us:\ndoorbell to completion, at: ms since the clear)",
	 "the command trace, the LAST entries (opcode, op_mod, status, us from doorbell to completion, ms since "
	 "the clear, `eqe=`)",
	 hca_trace},
	{Scope::Hca, "trace-clear", nullptr, 0, 0, "hca N trace-clear", "empty the command trace", nullptr,
	 hca_trace_clear},
	{Scope::Hca, "pages", nullptr, 0, 0, "hca N pages", "firmware pages outstanding and history", nullptr,
	 hca_pages},
	{Scope::Hca, "page-request", nullptr, 1, 1, "hca N page-request NUM",
	 "PAGE_REQUEST EQE: NUM > 0 give, < 0 take back",
	 "the firmware asks for (NUM > 0) or returns (NUM < 0) pages: a PAGE_REQUEST EQE", hca_page_request},
	{Scope::Hca, "eqs", nullptr, 0, 0, "hca N eqs", "event queues", nullptr, hca_eqs},
	{Scope::Hca, "fail-cmd", nullptr, 2, 4, "hca N fail-cmd OPCODE STATUS [SYND] [COUNT|forever]",
	 "next COUNT (1) OPCODE commands fail",
	 "the next COUNT (1) commands of OPCODE fail with STATUS and syndrome SYND (0x0badf00d)", hca_fail_cmd},
	{Scope::Hca, "delay-cmd", nullptr, 2, 2, "hca N delay-cmd OPCODE MS",
	 "hold OPCODE completions MS ms (0 clears)", nullptr, hca_delay_cmd},
	{Scope::Hca, "drop-eqe", nullptr, 1, 2, "hca N drop-eqe TYPE [COUNT]", "drop the next COUNT (1) EQEs of TYPE",
	 nullptr, hca_drop_eqe},
	{Scope::Hca, "delay-eqe", nullptr, 2, 2, "hca N delay-eqe TYPE MS", "write EQEs of TYPE MS ms late (0 clears)",
	 nullptr, hca_delay_eqe},
	{Scope::Hca, "drop-cmd-eqe", nullptr, 1, 2, "hca N drop-cmd-eqe OPCODE [COUNT]",
	 "complete the next COUNT OPCODE commands without their EQE",
	 "the next COUNT (1) commands of OPCODE complete (output, ownership) without their completion EQE; the "
	 "trace's `eqe=` says which (`none` when no command EQ was there to owe one)",
	 hca_drop_cmd_eqe},
	{Scope::Hca, "delay-cmd-eqe", nullptr, 2, 2, "hca N delay-cmd-eqe OPCODE MS",
	 "post the completion EQE of OPCODE commands MS ms late (0 clears)",
	 "commands of OPCODE complete at once, their completion EQE is posted MS ms later (0 clears)",
	 hca_delay_cmd_eqe},
	{Scope::Hca, "cqe-repeat", nullptr, 0, 2, "hca N cqe-repeat [COUNT] [send|recv]",
	 "write the next COUNT (1) CQEs twice (0 clears)",
	 "a device that misbehaves: the next COUNT (1) CQEs (of requests, of receives, or either) are written "
	 "twice, the copy in the next slot; 0 clears",
	 hca_cqe_repeat},
	{Scope::Hca, "cqe-corrupt", nullptr, 2, 4, "hca N cqe-corrupt FIELD VALUE [COUNT] [send|recv]",
	 "the next COUNT (1) CQEs carry VALUE in FIELD:\nwqe_counter, byte_cnt or qpn (0 clears)",
	 "the next COUNT (1) CQEs carry VALUE in FIELD: `wqe_counter` (16 bits), `byte_cnt` or `qpn` (24 bits); "
	 "0 clears",
	 hca_cqe_corrupt},
	{Scope::Hca, "sq-error", nullptr, 0, 1, "hca N sq-error [COUNT]",
	 "the next COUNT (1) Ethernet SQ WQEs fail, their SQ in error (0 clears)",
	 "the next COUNT (1) WQEs the function's Ethernet SQs execute complete in error (local protection, "
	 "syndrome 0x4) and move their SQ to the error state, as a real WQE error does; 0 clears",
	 hca_sq_error},
	{Scope::Hca, "memic-addr-bogus", nullptr, 0, 2, "hca N memic-addr-bogus [outside|unaligned] [COUNT]",
	 "the next COUNT (1) ALLOC_MEMIC answer a bad address",
	 "the next COUNT (1) successful ALLOC_MEMIC answer an address past the MEMIC window (`outside`) or 8 "
	 "bytes into the allocation (`unaligned`); the allocation is undone, a DEALLOC_MEMIC of the answered "
	 "address succeeds",
	 hca_memic_addr_bogus},
	{Scope::Hca, "faults", nullptr, 0, 0, "hca N faults", "active fault injections", nullptr, hca_faults},
	{Scope::Hca, "clear-faults", nullptr, 0, 0, "hca N clear-faults", "remove every fault injection", nullptr,
	 hca_clear_faults},
	{Scope::Hca, "health-syndrome", nullptr, 1, 3, "hca N health-syndrome SYND [EXT] [fatal]",
	 "set the health buffer syndrome", "raise a health syndrome (fatal: the function's fatal state)",
	 hca_health_syndrome},
	{Scope::Hca, "fw", nullptr, 0, 2, "hca N fw [version X.Y.Z | fail download|verify|activate]",
	 "firmware: running/stored versions, update;\nset the running version; fail a flash step once",
	 "the boot-image firmware (`fw/fw_update.h`): the running version (the init segment's `fw_rev`), the "
	 "stored one (pending until the next firmware reset) and the update in progress (MCC state, handle, "
	 "error code, bytes staged); `version` sets the running version as if the device had booted it; `fail` "
	 "fails the next MCDA block (`download`, INTERNAL_ERR), VERIFY_COMPONENT (`verify`, a digest error) or "
	 "ACTIVATE (`activate`) once",
	 hca_fw},
	{Scope::Hca, "hang", "unhang", 0, 0, "hca N hang | unhang", "stop/resume answering commands and heartbeat",
	 "stop answering commands and freeze the heartbeat / resume", hca_hang},
	{Scope::Hca, "unplug", "replug", 0, 0, "hca N unplug | replug",
	 "surprise removal: BAR reads all ones, no DMA,\ninterrupts or packets; replug: back from reset", nullptr,
	 hca_unplug},
	{Scope::Hca, "qps", nullptr, 0, 0, "hca N qps", "queue pairs: state, PSNs, per-QP counters", nullptr, hca_qps},
	{Scope::Hca, "nic", nullptr, 0, 0, "hca N nic", "Ethernet: link, SQs, RQs, counters, flow tables",
	 "Ethernet: link, SQs, RQs, counters, flow tables, RoCE counters and the GID table", hca_nic},
	{Scope::Hca, "port", nullptr, 1, 1, "hca N port down | up", "Ethernet: pull the cable / plug it back (link flap)",
	 nullptr, hca_port},
	{Scope::Hca, "qos", nullptr, 0, 0, "hca N qos", "Ethernet: the port's PFC, pause, ETS, trust,\nDSCP map, buffers, DCBX mode",
	 "Ethernet: the port's QoS registers as the firmware holds them: global pause and PFC per direction "
	 "(PFCC, `pfc` a priority bit mask), trust (QPTS), priority -> TC (QTCT), per TC its ETS group, share "
	 "and rate limit (QETCR), DSCP -> priority (QPDPM, 64 values), priority -> buffer (PPTB), the port "
	 "buffer and each buffer's size, lossy bit and XOFF/XON thresholds in cells (PBMC), the DCBX mode "
	 "(DCBX_PARAM)",
	 hca_qos},
	{Scope::Hca, "vport", nullptr, 0, 3,
	 "hca N vport [mac MAC | link auto|enable|disable | vlan VID [QOS] | spoofchk on|off | trust on|off | "
	 "guid node|port G]",
	 "VF: the host side of its vport: show it, set\nthe MAC it reads, its link (a flap), VST, the\nspoof check, "
	 "trust, an IB VF's GUIDs",
	 "an Ethernet VF's vport as its host sets it (`ip link set <pf> vf N mac|state|vlan|spoofchk` on a "
	 "ConnectX host): without arguments, its MAC, link setting, ACLs and state; `mac` sets the permanent MAC "
	 "the VF's driver reads when it builds its netdev (seen after a driver reload, as on a ConnectX); "
	 "`link disable` takes the vport down and `enable` holds it up with the cable out, each with a port "
	 "change event; `auto` follows the cable; `vlan VID [QOS]` tags the VF's frames with VID (and priority "
	 "QOS) on their way out and lets only VID's frames in, untagged; a frame the VF tagged itself is dropped "
	 "(0 clears); `spoofchk on` drops the VF's frames whose source is not the vport's MAC; a VF gets the "
	 "unicast frames for its MAC and the unicast list it gave its vport, and every unicast frame in a "
	 "promiscuous mode only with `trust on`; drops counted in `hca N nic`. An InfiniBand VF's vport (`ip link set <pf> vf N node_guid|port_guid|state`): without "
	 "arguments its GUIDs, SMI, link policy and state; `guid node|port` sets the node GUID or the port GUID "
	 "(GID[0]) its driver reads, at once, kept across resets (0 restores the emulator's); `link disable` holds "
	 "the vport DOWN (a port change event; its traffic stops), `auto` and `enable` follow the port. On a PF "
	 "with VFs, without arguments: its own vport, then each VF's (what the PF or the control channel set, "
	 "what the VF reports)",
	 hca_vport},
	{Scope::Hca, "vfs", nullptr, 0, 0, "hca N vfs",
	 "PF with VFs: SR-IOV state, per VF enabled,\nalive, pages held",
	 "a PF with VFs: TotalVFs, NumVFs, VF Enable and VF MSE of its SR-IOV capability, whether its PF is a "
	 "guest function; per VF its vport, whether the PF enabled it (ENABLE_HCA function_id n), whether it "
	 "lives (a VF lives while the PF has it enabled, VF Enable is set and it is within NumVFs), whether its "
	 "function exists, the PF's pages the firmware holds and wants for it, and the NIC_VPORT_CHANGE events "
	 "sent about it",
	 hca_vfs},
	{Scope::Hca, "esw", nullptr, 0, 0, "hca N esw", "Ethernet PF with VFs: its legacy e-switch",
	 "an Ethernet PF with VFs (the e-switch manager): what its driver programmed into the legacy e-switch: "
	 "the MPFS entries (SET_L2_TABLE_ENTRY), each vport's C-VLAN strip and insert "
	 "(MODIFY_ESW_VPORT_CONTEXT), and per table namespace (the FDB, each vport's ingress and egress ACL) "
	 "its root table, tables and entries; the transmit scheduling elements (CREATE_SCHEDULING_ELEMENT: "
	 "TSARs, a VPORT element per rate-limited vport, their maximum rate in Mb/s and share) and each "
	 "vport's resulting transmit rate. The VFs' frames pass their ACLs (drops counted in `hca N nic`, "
	 "`tx_acl_dropped`, `rx_acl_dropped`); a vport's send queues wait for its rate (`tx_rate_waits`)",
	 hca_esw},
	{Scope::Hca, "datapath", nullptr, 0, 0, "hca N datapath", "data-path counters, CQs, SRQs", nullptr,
	 hca_datapath},
	{Scope::Top, "die", nullptr, 0, 0, "die", "the emulator process dies at once (SIGKILL)\nafter answering: every HCA is gone",
	 nullptr, cmd_die},
	{Scope::Link, "stats", nullptr, 0, 0, "link stats", "fabric counters (packets, drops, delay)", nullptr,
	 link_stats},
	{Scope::Link, "drop", nullptr, 1, 2, "link drop N [SKIP]", "drop N packets on the fabric (after SKIP more)",
	 nullptr, link_drop},
	{Scope::Link, "delay", nullptr, 1, 1, "link delay MS", "deliver every packet MS ms late (0 clears)", nullptr,
	 link_delay},
};

// What the argument words mean, after the commands in help.
const char kHelpFooter[] = "OPCODE: name (INIT_HCA) or number (0x102). TYPE: number or cmd, page-request, comp,\n"
			   "port-change.";

// Help's column of descriptions; a longer synopsis puts them on the next line.
constexpr size_t kHelpColumn = 39, kHelpWrap = 41;

std::vector<std::string> help_lines()
{
	std::vector<std::string> lines{"commands:"};
	for (const CtlSpec &s : kCommands) {
		std::string syn = s.synopsis;
		std::string indent(kHelpColumn, ' ');
		std::string first;
		if (syn.size() > kHelpWrap) {
			lines.push_back(syn);
			first = indent;
		} else {
			first = syn + std::string(std::max(kHelpColumn, syn.size() + 2) - syn.size(), ' ');
		}
		std::istringstream is(s.help);
		std::string l;
		bool at_first = true;
		while (std::getline(is, l)) {
			lines.push_back((at_first ? first : indent) + l);
			at_first = false;
		}
	}
	std::istringstream is(kHelpFooter);
	std::string l;
	while (std::getline(is, l))
		lines.push_back(l);
	return lines;
}

std::string cmd_help(const Call &) { return block("mlx5-emu control channel", help_lines()); }

// The row of `scope` named `name` whose argument count fits, or nullptr.
const CtlSpec *find(Scope scope, const std::string &name, size_t argc)
{
	for (const CtlSpec &s : kCommands) {
		if (s.scope == scope && (name == s.name || (s.alias && name == s.alias)) && argc >= s.min_args &&
		    argc <= s.max_args)
			return &s;
	}
	return nullptr;
}

std::string markdown_cell(const std::string &text)
{
	std::string out;
	for (char ch : text) {
		if (ch == '|')
			out += '\\';
		out += ch == '\n' ? ' ' : ch;
	}
	return out;
}

} // namespace

std::string control_commands_markdown()
{
	std::string md = "| command | effect |\n|---|---|\n";
	for (const CtlSpec &s : kCommands)
		md += "| `" + markdown_cell(s.synopsis) + "` | " + markdown_cell(s.doc ? s.doc : s.help) + " |\n";
	return md;
}

std::string execute_control_command(const std::vector<Hca *> &hcas, const std::string &line)
{
	std::vector<std::string> w = split(line);
	if (w.empty())
		return error("empty command");
	Call c{hcas, w};
	if (w[0] == "link") {
		if (hcas.empty() || !hcas[0])
			return error("no hca");
		c.first = 2;
		const CtlSpec *s = w.size() >= 2 ? find(Scope::Link, w[1], c.argc()) : nullptr;
		std::string answer = s ? s->handler(c) : std::string();
		return answer.empty() ? error("usage: link stats | link drop N [SKIP] | link delay MS") : answer;
	}
	if (w[0] == "hca") {
		uint32_t n;
		if (w.size() < 3 || !parse_u32(w[1], &n))
			return error("usage: hca N COMMAND ...");
		if (n >= hcas.size() || !hcas[n])
			return error("no hca " + w[1]);
		c.first = 3;
		c.hca = hcas[n];
		c.n = n;
		const CtlSpec *s = find(Scope::Hca, w[2], c.argc());
		std::string answer = s ? s->handler(c) : std::string();
		return answer.empty() ? error("unknown or malformed command '" + w[2] + "' (try help)") : answer;
	}
	const CtlSpec *s = find(Scope::Top, w[0], c.argc());
	if (!s)
		return error("unknown command '" + w[0] + "' (try help)");
	return s->handler(c);
}

} // namespace mlx5emu

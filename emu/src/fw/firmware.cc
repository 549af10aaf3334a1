// SPDX-License-Identifier: GPL-2.0
#include "fw/firmware.h"

#include <cstdio>
#include <endian.h>
#include <unistd.h>

#include <algorithm>

#include "exec/datapath.h"
#include "fabric/fabric.h"
#include "fw/mad.h"
#include "prm/opcode_names.h"
#include "prm/prm.h"
#include "prm/cq.h"
#include "prm/wqe.h"
#include "util/fmt.h"

namespace mlx5emu {

namespace {

uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

// The emulator process's resident set from /proc/self/statm, in KiB: all
// of it, and without shared pages (guest RAM the data path touched is a
// shared memfd mapping), i.e. what the emulator's own queues hold.
void process_rss_kib(unsigned long long *rss, unsigned long long *anon)
{
	*rss = *anon = 0;
	FILE *f = std::fopen("/proc/self/statm", "r");
	if (!f)
		return;
	unsigned long long size, res, shared;
	if (std::fscanf(f, "%llu %llu %llu", &size, &res, &shared) == 3) {
		unsigned long long kib = static_cast<unsigned long long>(sysconf(_SC_PAGESIZE)) / 1024;
		*rss = res * kib;
		*anon = (res - std::min(res, shared)) * kib;
	}
	std::fclose(f);
}

} // namespace

// The data path's events go to the EQs, through the fault injections.
class Firmware::Events : public EventSink {
public:
	explicit Events(Firmware &fw) : fw_(fw) {}
	void completion_event(uint32_t eqn, uint32_t cqn) override
	{
		uint8_t eqe[prm::eqe::kSize] = {};
		eqe[prm::eqe::kType] = prm::event::COMP;
		bits::store_be32(eqe + prm::async_event::kCompCqn, cqn & 0xffffff);
		fw_.post_event_to(static_cast<uint8_t>(eqn), eqe);
	}
	void async_event(const uint8_t *eqe64) override { fw_.post_event(eqe64); }
	bool listens(uint8_t type) const override { return fw_.eqs.wants(type); }
	// The health buffer's FW internal error syndrome (1), not fatal:
	// the engine thread holds the state lock and cannot reset the
	// function (Firmware::mu comes first).
	void internal_error() override { fw_.health.set_syndrome(1, 0, false); }

private:
	Firmware &fw_;
};

Firmware::Firmware(const HcaConfig &c, GuestMemory &m, InterruptSink &i)
	: link(m, i), cfg(c), mem(link), irq(link), caps(c), eqs(link, link), health(c),
	  iseg(cfg, health, [this](uint32_t mask) { engine_.ring(mask); }, [this] { restart("software reset"); }),
	  engine_(*this)
{
	// GUIDs: Mellanox OUI 00:02:c9 and 40 bits from the seed and index.
	uint64_t low = mix64(cfg.guid_seed ^ (static_cast<uint64_t>(cfg.index) << 48)) & 0xfffffffffeull;
	fabric_ = cfg.fabric ? cfg.fabric : std::make_shared<Fabric>();
	bool internal_sm = fabric_->sm() == Fabric::Sm::Internal;
	port_.node_guid = default_node_guid_ = 0x0002c9ull << 40 | low;
	port_.system_image_guid = port_.node_guid;
	port_power_on();
	default_node_description(*this, node_desc);
	// Ethernet: the permanent MAC is the OUI and the low 24 bits of the
	// port GUID.
	eth.perm_mac = {0x00, 0x02, 0xc9, static_cast<uint8_t>(port_.port_guid >> 16),
			static_cast<uint8_t>(port_.port_guid >> 8), static_cast<uint8_t>(port_.port_guid)};

	eqs.set_max_eqs(1u << caps.log_max_eq());
	if (cfg.adapter)
		health.share(&cfg.adapter->shared_syndrome(), !cfg.is_vf());
	pages.set_label(fmt("hca %u", cfg.index));

	events_ = std::make_unique<Events>(*this);
	DataPath::Config dc;
	dc.hca_index = cfg.index;
	dc.lid = port_.lid;
	dc.active = internal_sm;
	dc.port_mtu = port_.mtu;
	dc.port_guid = port_.port_guid;
	dc.gid_prefix = port_.gid_prefix;
	dc.log_max_msg = static_cast<uint8_t>(caps.gen_max(prm::cmd_hca_cap::log_max_msg));
	dc.eth = is_eth();
	dc.smi = has_smi();
	dp_ = std::make_unique<DataPath>(dc, mem, *fabric_, *events_);
	dp_->set_faults(&faults);
	if (cfg.adapter && is_eth())
		dp_->set_eswitch(&cfg.adapter->eswitch(), cfg.vport());
	eth.admin_up = initial_port_admin_up();
	eth.vport_on_eswitch = cfg.is_vf();
	if (is_eth() && eth.admin_up)
		eth_port_changed(false); // the data path learns the link; no event while disabled
	if (cfg.memic_size) {
		memic = std::make_unique<DeviceMemory>(cfg.bar0_size - cfg.memic_size, cfg.memic_size);
		dp_->res().mkeys.set_device_memory(memic.get());
	}
	if (cfg.poll_doorbells)
		dbpages = std::make_unique<DoorbellPages>(cfg.bar0_size, first_uar() + 1, uar_limit());
	engine_.start();
	if (cfg.adapter) {
		// One function of an adapter: its vport record (seeded from the
		// defaults above on its first attach) and, for a VF of a guest
		// PF, whether that PF has enabled it.
		std::lock_guard<std::mutex> lk(mu);
		cfg.adapter->attach(cfg.vport(), this, vport_seed());
		attached_ = true;
		apply_adapter_locked();
	}
}

Firmware::~Firmware()
{
	if (cfg.adapter)
		cfg.adapter->detach(cfg.vport(), this);
	engine_.stop();
	dp_.reset();
}

uint32_t Firmware::first_uar() const { return prm::uar_page::kFirstUarIndex; }
uint32_t Firmware::uar_limit() const
{
	return static_cast<uint32_t>((cfg.bar0_size - (memic ? memic->size() : 0)) >> 12);
}

// ---------------------------------------------------------------------------
// BAR0

uint64_t Firmware::bar_read(uint64_t offset, unsigned size)
{
	if (link.is_cut())
		return size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
	if (iseg.contains(offset))
		return iseg.read(offset, size);
	if (memic && memic->contains(offset))
		return memic->bar_read(offset, size);
	return 0; // UAR pages read as zero
}

void Firmware::bar_write(uint64_t offset, unsigned size, uint64_t value)
{
	if (link.is_cut()) {
		++bar.writes_unplugged;
		return;
	}
	if (iseg.contains(offset)) {
		if (!iseg.write(offset, size, value))
			++bar.iseg_writes_ignored;
		return;
	}
	if (memic && memic->contains(offset))
		return memic->bar_write(offset, size, value);
	uint32_t index = static_cast<uint32_t>(offset >> 12);
	if (index < first_uar() || offset >= cfg.bar0_size) {
		++bar.iseg_writes_ignored;
		return;
	}
	uar_write(index, static_cast<uint32_t>(offset & 0xfff), size, value);
}

void Firmware::configure_datapath()
{
	// Atomic mode 1 ("host endianness") on a little-endian host: 8-byte
	// operands in little-endian order; otherwise big-endian (IB order).
	const Caps::Block *a = caps.cur(prm::cap_type::ATOMIC);
	bool mode1 = a && bits::get(a->data(), prm::atomic_caps::atomic_req_8B_endianness_mode) == 1;
	bool host_le = !(host_endianness[0] & 0x80);
	auto lk = dp_->lock();
	dp_->set_atomic_le(mode1 && host_le);
}

void Firmware::reset()
{
	restart("device reset");
	iseg.reset();
}

void Firmware::restart(const char *why)
{
	engine_.reset();
	{
		std::lock_guard<std::mutex> lk(mu);
		function_reset(why);
		fwup.reset();
		health.set_syndrome(0, 0, false);
		crashed_ = false;
		if (cfg.adapter && attached_)
			apply_adapter_locked();
	}
	engine_.set_hung(ctl_hung_ || link.is_cut());
}

// ---------------------------------------------------------------------------
// Function lifecycle

// The InfiniBand port as the firmware brings it up: with the internal SM
// configured (ACTIVE, LID = index + 1, SM LID 1), with an external one in
// INIT without a LID, waiting for a sweep. Everything an SM set is gone.
void Firmware::port_power_on()
{
	PortAttrs p;
	p.node_guid = port_.node_guid;
	p.system_image_guid = port_.system_image_guid;
	p.init(host_port_guid ? host_port_guid : default_node_guid_ + 1, caps.pkey_table_len(), caps.gid_table_len());
	p.mtu_cap = p.neighbor_mtu = p.mtu;
	p.cap_mask = kCapSystemImageGuid | kCapExtendedSpeeds | kCapCm | kCapClientReregister;
	if (fabric_->sm() == Fabric::Sm::Internal) {
		p.lid = static_cast<uint16_t>(cfg.index + 1);
		p.sm_lid = 1;
		p.state = mad::PORT_ACTIVE;
	}
	port_ = std::move(p);
}

uint8_t Firmware::ib_vport_state() const
{
	return ib_vport_admin == VportAdmin::Down ? uint8_t{mad::PORT_DOWN} : port_.state;
}

// An IB VF's link policy: the data path and the VF learn the vport's
// state (PORT_CHANGE ACTIVE or DOWN when it changed).
std::string Firmware::set_ib_vport_admin(VportAdmin a)
{
	if (host_set([a](VportRecord &r) { r.admin = a; }))
		return {};
	std::lock_guard<std::mutex> lk(mu);
	uint8_t before = ib_vport_state();
	ib_vport_admin = a;
	{
		auto dl = dp().lock();
		dp().set_port(port_.lid, port_.lmc, ib_vport_state(), port_.gid_prefix);
	}
	post_vport_state_event(before);
	return {};
}

std::string Firmware::set_host_vport_guid(bool node, uint64_t guid)
{
	if (!cfg.is_vf() || is_eth())
		return "not an InfiniBand VF (a PF's GUIDs are its own)";
	if (host_set([node, guid](VportRecord &r) { (node ? r.node_guid : r.port_guid) = guid; }))
		return {};
	std::lock_guard<std::mutex> lk(mu);
	if (node) {
		port_.node_guid = guid ? guid : default_node_guid_;
		return {};
	}
	host_port_guid = guid;
	port_.port_guid = port_.guids[0] = guid ? guid : default_node_guid_ + 1;
	auto dl = dp_->lock();
	dp_->set_port_guid(port_.port_guid);
	return {};
}

void Firmware::function_reset(const char *why)
{
	{
		auto lk = dp_->lock();
		dp_->clear();
		// An IB port loses its link and what the SM configured: the
		// switch port at the other end retrains to INIT and flags the
		// change for the SM's next sweep (a peer HCA back to back
		// keeps its state).
		if (!is_eth()) {
			port_power_on();
			dp_->set_port(port_.lid, port_.lmc, ib_vport_state(), port_.gid_prefix);
			fabric_->retrain(dp_.get());
		}
	}
	eqs.clear();
	uars.clear();
	if (dbpages)
		dbpages->close_all();
	if (memic)
		memic->clear();
	caps.reset_current();
	issi = 0;
	std::fill(std::begin(host_endianness), std::end(host_endianness), 0);
	default_node_description(*this, node_desc);
	driver_version.clear();
	sw_owner_id.clear();
	{
		// What the vport's manager set (a VF's host side) and the cable
		// outlive the function's reset.
		EthPort old = std::move(eth);
		bool was_up = old.oper_up();
		eth = EthPort{};
		eth.perm_mac = old.perm_mac;
		eth.cable_up = old.cable_up;
		eth.vport_on_eswitch = old.vport_on_eswitch;
		if (cfg.is_vf()) {
			eth.vport_admin = old.vport_admin;
			eth.vst_vlan = old.vst_vlan;
			eth.vst_qos = old.vst_qos;
			eth.spoofchk = old.spoofchk;
			eth.trust = old.trust;
		}
		eth.admin_up = initial_port_admin_up();
		if (is_eth()) {
			eth_port_changed(was_up);
			vport_acl_changed();
		}
	}
	// A PF's VFs go with it: each is disabled (and reset); the pages it
	// held for them are released below with its own, and the e-switch it
	// programmed goes too.
	if (cfg.adapter && !cfg.is_vf()) {
		cfg.adapter->pf_reset();
		auto lk = dp_->lock();
		cfg.adapter->eswitch().clear();
	}
	pages.release_all(why);
	state = FnState::Disabled;
	publish_vport();
}

FnState Firmware::function_state() const
{
	std::lock_guard<std::mutex> lk(mu);
	return state;
}

// ---------------------------------------------------------------------------
// Events

void Firmware::write_eqe_now(uint8_t eqn, const uint8_t *eqe64) { eqs.post(eqn, eqe64); }

void Firmware::post_event_to(uint8_t eqn, const uint8_t *eqe64)
{
	uint8_t type = eqe64[prm::eqe::kType];
	if (faults.take_eqe_drop(type))
		return;
	if (uint32_t ms = faults.eqe_delay_ms(type)) {
		std::vector<uint8_t> copy(eqe64, eqe64 + prm::eqe::kSize);
		engine_.schedule(CommandEngine::Clock::now() + std::chrono::milliseconds(ms),
				 [this, eqn, copy] { write_eqe_now(eqn, copy.data()); });
		return;
	}
	write_eqe_now(eqn, eqe64);
}

// A PORT_CHANGE EQE of `subtype` for port 1 (data byte 8).
void Firmware::post_port_change(uint8_t subtype)
{
	uint8_t eqe[prm::eqe::kSize] = {};
	eqe[prm::eqe::kType] = prm::event::PORT_CHANGE;
	eqe[prm::eqe::kSubType] = subtype;
	eqe[prm::eqe::kData + 8] = 1 << 4; // port 1
	post_event(eqe);
}

// ACTIVE or DOWN when the vport's state went to or left ACTIVE.
void Firmware::post_vport_state_event(uint8_t before)
{
	uint8_t now = ib_vport_state();
	if (now == before)
		return;
	if (now == mad::PORT_ACTIVE)
		post_port_change(prm::port_change::ACTIVE);
	else if (before == mad::PORT_ACTIVE)
		post_port_change(prm::port_change::DOWN);
}

// The events of IBA port changes as the PRM reports them (PORT_CHANGE
// EQE, sub_type, the port in data byte 8): the driver turns them into
// LID/PKEY/GID change, port active/error and client-reregister events. A
// VF's vport may be held down by its host's policy: the data path and the
// state events follow the vport's state.
void Firmware::port_changed(const PortChanges &ch)
{
	{
		auto lk = dp().lock();
		dp().set_port(port_.lid, port_.lmc, ib_vport_state(), port_.gid_prefix);
	}
	namespace sub = prm::port_change;
	if (ch.lid || ch.sm)
		post_port_change(sub::LID);
	if (ch.pkey)
		post_port_change(sub::PKEY);
	if (ch.gid)
		post_port_change(sub::GUID);
	if (ch.state)
		post_vport_state_event(ib_vport_admin == VportAdmin::Down ? uint8_t{mad::PORT_DOWN} : ch.old_state);
	if (ch.rereg)
		post_port_change(sub::CLIENT_REREG);
	publish_vport();
}

bool Firmware::post_event(const uint8_t *eqe64)
{
	int eqn = eqs.find_for_event(eqe64[prm::eqe::kType]);
	if (eqn < 0)
		return false;
	post_event_to(static_cast<uint8_t>(eqn), eqe64);
	return true;
}

// ---------------------------------------------------------------------------
// Control API

void Firmware::hang(bool hung)
{
	ctl_hung_ = hung;
	engine_.set_hung(hung || crashed_ || link.is_cut());
	health.freeze(hung);
}

bool Firmware::hung() const { return ctl_hung_; }

void Firmware::unplug(bool gone)
{
	if (link.is_cut() == gone)
		return;
	if (gone) {
		link.cut(true);
		dp_->set_unplugged(true);
		engine_.set_hung(true);
		return;
	}
	// Plugged back: a device fresh from reset (which resumes the command
	// engine once the link works), on a link that works.
	link.cut(false);
	reset();
	dp_->set_unplugged(false);
}

void Firmware::set_health_syndrome(uint8_t synd, uint16_t ext_synd, bool fatal)
{
	bool crash = fatal && synd;
	health.set_syndrome(synd, ext_synd, fatal);
	if (crashed_.exchange(crash) == crash)
		return;
	if (crash) {
		engine_.set_hung(true);
		engine_.reset();
		// The command being executed, if any, finishes first (the
		// worker holds `mu`).
		std::lock_guard<std::mutex> lk(mu);
		function_reset("firmware crash (fatal syndrome)");
		return;
	}
	engine_.reset();
	engine_.set_hung(ctl_hung_ || link.is_cut());
}

bool Firmware::page_request(int32_t npages, std::string *err)
{
	std::lock_guard<std::mutex> lk(mu);
	if (state == FnState::Disabled) {
		*err = "function is not enabled";
		return false;
	}
	int eqn = eqs.find_for_event(prm::event::PAGE_REQUEST);
	if (eqn < 0) {
		*err = "no EQ subscribed to page requests";
		return false;
	}
	if (npages < 0 && static_cast<uint64_t>(-static_cast<int64_t>(npages)) > pages.held({})) {
		*err = "device holds fewer pages than requested back";
		return false;
	}
	pages.adjust_demand(npages);
	uint8_t eqe[prm::eqe::kSize] = {};
	eqe[prm::eqe::kType] = prm::event::PAGE_REQUEST;
	bits::store_be16(eqe + prm::eqe::kPageReqEcFunction, 0);
	bits::store_be16(eqe + prm::eqe::kPageReqFuncId, 0);
	bits::store_be32(eqe + prm::eqe::kPageReqNumPages, static_cast<uint32_t>(npages));
	std::vector<uint8_t> copy(eqe, eqe + sizeof eqe);
	uint8_t target = static_cast<uint8_t>(eqn);
	// Written by the worker, like every other event.
	engine_.schedule(CommandEngine::Clock::now(), [this, target, copy] { post_event_to(target, copy.data()); });
	return true;
}

uint64_t Firmware::pages_outstanding() const
{
	std::lock_guard<std::mutex> lk(mu);
	return pages.held_total();
}

std::vector<std::string> Firmware::pages_lines() const
{
	std::lock_guard<std::mutex> lk(mu);
	const PageTracker::Counters &pc = pages.counters();
	std::vector<std::string> v;
	v.push_back(fmt("outstanding %llu", static_cast<unsigned long long>(pages.held_total())));
	v.push_back(fmt("given %llu", static_cast<unsigned long long>(pc.given)));
	v.push_back(fmt("taken %llu", static_cast<unsigned long long>(pc.taken)));
	v.push_back(fmt("cant_give %llu", static_cast<unsigned long long>(pc.cant_give)));
	v.push_back(fmt("leak_reports %llu", static_cast<unsigned long long>(pc.leak_reports)));
	v.push_back(fmt("leaked_pages %llu", static_cast<unsigned long long>(pc.leaked_pages)));
	if (!pc.last_leak.empty())
		v.push_back("last_leak " + pc.last_leak);
	return v;
}

std::vector<std::string> Firmware::eq_lines() const
{
	std::vector<std::string> v;
	for (const EqSnapshot &s : eqs.list())
		v.push_back(fmt("eq %u log_size=%u intr=%u uar=%u mask0=0x%llx producer=%u ci=%u %s%s eqes=%llu irqs=%llu dropped=%llu",
				s.eqn, s.ctx.log_size, s.ctx.intr, s.ctx.uar_page,
				static_cast<unsigned long long>(s.ctx.event_mask[0]), s.producer, s.consumer,
				s.armed ? "armed" : "fired", s.overrun ? " OVERRUN" : "",
				static_cast<unsigned long long>(s.eqes), static_cast<unsigned long long>(s.irqs),
				static_cast<unsigned long long>(s.dropped)));
	return v;
}

std::vector<std::string> Firmware::stats_lines() const
{
	std::vector<std::string> v;
	const char *st = "disabled";
	uint64_t held;
	size_t nuars;
	{
		std::lock_guard<std::mutex> lk(mu);
		st = state == FnState::Disabled ? "disabled" : state == FnState::Enabled ? "enabled" : "initialized";
		held = pages.held_total();
		nuars = uars.size();
	}
	auto u = [](uint64_t x) { return static_cast<unsigned long long>(x); };
	v.push_back(fmt("state %s", st));
	unsigned long long rss, anon;
	process_rss_kib(&rss, &anon);
	v.push_back(fmt("process_rss_kib %llu", rss));
	v.push_back(fmt("process_anon_kib %llu", anon));
	v.push_back(fmt("hung %d", hung() ? 1 : 0));
	v.push_back(fmt("unplugged %d bar_writes_lost %llu dma_irq_lost %llu", unplugged() ? 1 : 0,
			u(bar.writes_unplugged.load()), u(link.lost())));
	v.push_back(fmt("health_syndrome 0x%x", health.syndrome()));
	v.push_back(fmt("pages_outstanding %llu", u(held)));
	v.push_back(fmt("eqs %zu", eqs.count()));
	v.push_back(fmt("uars %zu", nuars));
	CommandEngine::Counters ec = engine_.counters();
	v.push_back(fmt("cmd_doorbells %llu", u(ec.doorbells)));
	v.push_back(fmt("commands %llu", u(ec.commands)));
	v.push_back(fmt("delivery_errors %llu", u(ec.delivery_errors)));
	v.push_back(fmt("not_hw_owned %llu", u(ec.not_hw_owned)));
	v.push_back(fmt("entry_dma_errors %llu", u(ec.entry_dma_errors)));
	EqTable::Counters qc = eqs.counters();
	v.push_back(fmt("eq_arm_doorbells %llu", u(qc.arm_doorbells)));
	v.push_back(fmt("eq_ci_doorbells %llu", u(qc.ci_doorbells)));
	v.push_back(fmt("eq_bad_doorbells %llu", u(qc.bad_doorbells)));
	v.push_back(fmt("eq_uar_mismatch %llu", u(qc.uar_mismatch)));
	v.push_back(fmt("eqes %llu", u(qc.eqes)));
	v.push_back(fmt("irqs %llu", u(qc.irqs)));
	v.push_back(fmt("eq_overruns %llu", u(qc.overruns)));
	v.push_back(fmt("eqes_dropped_overrun %llu", u(qc.dropped_overrun)));
	v.push_back(fmt("cq_doorbells %llu", u(bar.cq_doorbells.load())));
	v.push_back(fmt("bf_writes %llu", u(bar.bf_writes.load())));
	v.push_back(fmt("polled_doorbells %llu", u(bar.polled_doorbells.load())));
	v.push_back(fmt("other_uar_writes %llu", u(bar.other_uar_writes.load())));
	// Doorbells a ConnectX drops: not through the object's own UAR page
	// (or for no object at all).
	DroppedDoorbells dd = doorbells_dropped();
	v.push_back(fmt("doorbells_dropped_eq %llu", u(dd.eq)));
	v.push_back(fmt("doorbells_dropped_cq %llu", u(dd.cq)));
	v.push_back(fmt("doorbells_dropped_sq %llu", u(dd.sq)));
	for (const std::string &s : refusals.lines())
		v.push_back(s);
	for (const auto &[op, cnt] : opstats.snapshot())
		v.push_back(fmt("op %s 0x%x total=%llu failed=%llu", opcode_name(op), op, u(cnt.total), u(cnt.failed)));
	{
		auto lk = dp_->lock();
		for (const std::string &s : dp_->stats_lines())
			v.push_back("dp " + s);
	}
	for (const std::string &s : eq_lines())
		v.push_back(s);
	for (const std::string &s : faults.describe())
		v.push_back("fault " + s);
	return v;
}

} // namespace mlx5emu

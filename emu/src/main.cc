// SPDX-License-Identifier: GPL-2.0
// mlx5-emu: serves emulated ConnectX HCAs to QEMU over vfio-user, one
// socket (= one PCI function) each.
//
//   mlx5-emu --socket PATH [--socket PATH ...] [--ctl PATH] [--device-id 0x1017]
//            [--msix N] [--pidfile F] [-v]
//   mlx5-emu --hca N --socket-dir DIR ...      sockets DIR/hca0.sock .. hca{N-1}.sock
//   mlx5-emu ... --function vf                 each HCA a VF as a VM sees one
//   mlx5-emu ... --vfs N                       each PF with N VFs (hcaI-vfJ.sock)
//   mlx5-emu ctl ...                           control-channel client
//   mlx5-emu --ctl-commands-markdown           the control commands as a Markdown table
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ctl/control_server.h"
#include "ctl/ctl_commands.h"
#include "dma/dma_map_table.h"
#include "fabric/fabric.h"
#include "fw/adapter.h"
#include "fw/doorbell_poller.h"
#include "fw/firmware.h"
#include "fw/hca.h"
#include "irq/eventfd_irqs.h"
#include "pci/connectx_config.h"
#include "pci/function.h"
#include "util/log.h"
#include "vfio_user/server.h"

namespace mlx5emu {
namespace {

struct Options {
	std::vector<std::string> sockets;
	std::string ctl_path;
	std::string pidfile;
	std::string socket_dir;
	unsigned hca_count = 0;
	uint16_t device_id = 0x1017;
	uint32_t msix = 64;
	bool verbose = false;
	std::vector<LinkType> links; // one for all HCAs, or one per HCA
	std::vector<pci::FunctionRole> roles; // the same
	std::vector<unsigned> vfs;            // the same
	Fabric::Sm sm = Fabric::Sm::Internal;
	bool poll_doorbells = false;
};

void usage(FILE *out)
{
	std::fprintf(out,
		     "usage: mlx5-emu --socket PATH [--socket PATH ...] [options]\n"
		     "       mlx5-emu --hca N --socket-dir DIR [options]\n"
		     "       mlx5-emu ctl --ctl PATH COMMAND...\n"
		     "       mlx5-emu --ctl-commands-markdown\n"
		     "options:\n"
		     "  --socket PATH      vfio-user socket of one HCA (repeat for more)\n"
		     "  --hca N            serve N HCAs on DIR/hca0.sock .. DIR/hca{N-1}.sock\n"
		     "  --socket-dir DIR   directory for --hca\n"
		     "  --ctl PATH         control-channel socket\n"
		     "  --device-id ID     PCI device id (default 0x1017, ConnectX-5)\n"
		     "  --msix N           MSI-X vectors per HCA (default 64, 1..512)\n"
		     "  --link ib|eth[,..] link layer of every HCA's port, or of each HCA in turn\n"
		     "                     (default ib)\n"
		     "  --function pf|vf[,..]\n"
		     "                     every HCA a physical function (default), or a virtual\n"
		     "                     function as a VM sees one (the VF device ID of\n"
		     "                     --device-id's generation, VF caps and config space;\n"
		     "                     manager commands refused), or each HCA in turn\n"
		     "  --vfs N[,..]       every HCA (a PF) with N VFs (0..7), or each HCA in turn:\n"
		     "                     an SR-IOV capability, and the VFs served from the start\n"
		     "                     on sockets named after the PF's (DIR/hcaI-vfJ.sock);\n"
		     "                     on the control channel they are the HCAs after the PFs\n"
		     "  --sm internal|external\n"
		     "                     who configures the ports: the emulator (default: ACTIVE,\n"
		     "                     LID = index + 1) or a subnet manager in the guest\n"
		     "                     (opensm; ports wait in INIT without a LID)\n"
		     "  --doorbells trap|poll\n"
		     "                     UAR pages trapped (default: every doorbell a vfio-user\n"
		     "                     message) or shared memory QEMU maps into BAR0, polled\n"
		     "                     (all but the first UAR page; the init segment traps)\n"
		     "  --pidfile FILE     write the process id to FILE\n"
		     "  -v                 trace every vfio-user message\n"
		     "  --ctl-commands-markdown\n"
		     "                     print the control channel's commands as a Markdown\n"
		     "                     table (Documentation/emulator.md) and exit\n");
}

bool parse_number(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = std::strtoul(s, &end, 0);
	if (errno || end == s || *end || v > max)
		return false;
	*out = v;
	return true;
}

// A comma-separated list of the words of `names` ("ib,eth"), each read
// as its value: false on an empty or unknown word.
template <class T>
bool parse_list(const char *s, std::initializer_list<std::pair<const char *, T>> names, std::vector<T> *out)
{
	out->clear();
	std::string all = s;
	size_t at = 0;
	while (true) {
		size_t comma = all.find(',', at);
		std::string w = all.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
		auto it = std::find_if(names.begin(), names.end(), [&](const auto &n) { return w == n.first; });
		if (it == names.end())
			return false;
		out->push_back(it->second);
		if (comma == std::string::npos)
			return true;
		at = comma + 1;
	}
}

bool parse_links(const char *s, std::vector<LinkType> *out)
{
	return parse_list<LinkType>(s, {{"ib", LinkType::Ib}, {"eth", LinkType::Eth}}, out);
}

bool parse_roles(const char *s, std::vector<pci::FunctionRole> *out)
{
	return parse_list<pci::FunctionRole>(s, {{"pf", pci::FunctionRole::Pf}, {"vf", pci::FunctionRole::Vf}}, out);
}

bool parse_vfs(const char *s, std::vector<unsigned> *out)
{
	return parse_list<unsigned>(s, {{"0", 0}, {"1", 1}, {"2", 2}, {"3", 3}, {"4", 4}, {"5", 5}, {"6", 6}, {"7", 7}},
				    out);
}

// Returns 0 to go on, or the exit status (1 error, 0 --help).
int parse(int argc, char **argv, Options &o)
{
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		auto value = [&](const char **v) {
			if (i + 1 >= argc) {
				std::fprintf(stderr, "mlx5-emu: %s needs a value\n", a.c_str());
				return false;
			}
			*v = argv[++i];
			return true;
		};
		const char *v = nullptr;
		unsigned long n;
		if (a == "-h" || a == "--help") {
			usage(stdout);
			return -1;
		} else if (a == "--ctl-commands-markdown") {
			std::fputs(control_commands_markdown().c_str(), stdout);
			return std::fflush(stdout) == 0 && !std::ferror(stdout) ? -1 : 1;
		} else if (a == "-v" || a == "--verbose") {
			o.verbose = true;
		} else if (a == "--socket") {
			if (!value(&v))
				return 1;
			o.sockets.emplace_back(v);
		} else if (a == "--ctl") {
			if (!value(&v))
				return 1;
			o.ctl_path = v;
		} else if (a == "--pidfile") {
			if (!value(&v))
				return 1;
			o.pidfile = v;
		} else if (a == "--socket-dir") {
			if (!value(&v))
				return 1;
			o.socket_dir = v;
		} else if (a == "--hca") {
			if (!value(&v) || !parse_number(v, 64, &n) || n == 0) {
				std::fprintf(stderr, "mlx5-emu: --hca takes 1..64\n");
				return 1;
			}
			o.hca_count = unsigned(n);
		} else if (a == "--sm") {
			if (!value(&v))
				return 1;
			if (std::strcmp(v, "internal") == 0)
				o.sm = Fabric::Sm::Internal;
			else if (std::strcmp(v, "external") == 0)
				o.sm = Fabric::Sm::External;
			else {
				std::fprintf(stderr, "mlx5-emu: --sm takes internal or external\n");
				return 1;
			}
		} else if (a == "--doorbells") {
			if (!value(&v))
				return 1;
			if (std::strcmp(v, "trap") == 0)
				o.poll_doorbells = false;
			else if (std::strcmp(v, "poll") == 0)
				o.poll_doorbells = true;
			else {
				std::fprintf(stderr, "mlx5-emu: --doorbells takes trap or poll\n");
				return 1;
			}
		} else if (a == "--device-id") {
			if (!value(&v) || !parse_number(v, 0xffff, &n)) {
				std::fprintf(stderr, "mlx5-emu: --device-id takes a 16-bit number\n");
				return 1;
			}
			o.device_id = uint16_t(n);
		} else if (a == "--link") {
			if (!value(&v) || !parse_links(v, &o.links)) {
				std::fprintf(stderr, "mlx5-emu: --link takes ib or eth, or a comma list of them\n");
				return 1;
			}
		} else if (a == "--function") {
			if (!value(&v) || !parse_roles(v, &o.roles)) {
				std::fprintf(stderr, "mlx5-emu: --function takes pf or vf, or a comma list of them\n");
				return 1;
			}
		} else if (a == "--vfs") {
			if (!value(&v) || !parse_vfs(v, &o.vfs)) {
				std::fprintf(stderr, "mlx5-emu: --vfs takes 0..%u, or a comma list of them\n", pci::kMaxVfs);
				return 1;
			}
		} else if (a == "--msix") {
			if (!value(&v) || !parse_number(v, pci::kMaxMsixVectors, &n) || n == 0) {
				std::fprintf(stderr, "mlx5-emu: --msix takes 1..%u\n", pci::kMaxMsixVectors);
				return 1;
			}
			o.msix = uint32_t(n);
		} else {
			std::fprintf(stderr, "mlx5-emu: unknown argument '%s'\n", a.c_str());
			usage(stderr);
			return 1;
		}
	}
	if (o.hca_count || !o.socket_dir.empty()) {
		if (!o.hca_count || o.socket_dir.empty()) {
			std::fprintf(stderr, "mlx5-emu: --hca and --socket-dir go together\n");
			return 1;
		}
		for (unsigned i = 0; i < o.hca_count; i++)
			o.sockets.push_back(o.socket_dir + "/hca" + std::to_string(i) + ".sock");
	}
	if (o.sockets.empty()) {
		std::fprintf(stderr, "mlx5-emu: no --socket given\n");
		usage(stderr);
		return 1;
	}
	if (o.links.size() > 1 && o.links.size() != o.sockets.size()) {
		std::fprintf(stderr, "mlx5-emu: --link lists %zu link types for %zu HCAs\n", o.links.size(),
			     o.sockets.size());
		return 1;
	}
	if (o.roles.size() > 1 && o.roles.size() != o.sockets.size()) {
		std::fprintf(stderr, "mlx5-emu: --function lists %zu roles for %zu HCAs\n", o.roles.size(),
			     o.sockets.size());
		return 1;
	}
	if (o.vfs.size() > 1 && o.vfs.size() != o.sockets.size()) {
		std::fprintf(stderr, "mlx5-emu: --vfs lists %zu VF counts for %zu HCAs\n", o.vfs.size(), o.sockets.size());
		return 1;
	}
	return 0;
}

// The PCI device ID of a function of `role` on an adapter of --device-id
// `id`: a VF takes the VF ID of that generation (or `id` itself when it
// is a VF ID already); 0 when there is none.
uint16_t function_device_id(uint16_t id, pci::FunctionRole role)
{
	if (role == pci::FunctionRole::Pf || pci::is_vf_device_id(id))
		return id;
	return pci::vf_device_id(id);
}

// Deterministic per-index seed for node/port GUIDs (splitmix64).
uint64_t guid_seed_for(unsigned index)
{
	uint64_t z = 0x0002c90300000000ull + uint64_t(index + 1) * 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

// Everything behind one socket. Members are destroyed bottom-up: the
// server (and its threads) first, the memory table last.
struct EmulatedFunction {
	DmaMapTable dma;
	EventfdInterrupts irqs;
	Hca hca;
	pci::PciFunction pci;
	vfio_user::Server server;

	EmulatedFunction(const HcaConfig &cfg, const pci::FunctionConfig &pcfg, const std::string &path)
		: irqs(cfg.msix_vectors), hca(cfg, dma, irqs), pci(pcfg, hca),
		  server(path, vfio_user::FunctionContext{pci, dma, irqs}, "hca" + std::to_string(cfg.index))
	{
		pci.set_bus_master_listener([this](bool on) { dma.set_bus_master(on); });
		dma.set_bus_master(pci.bus_master_enabled());
		if (DoorbellPages *p = hca.impl().dbpages.get(); p && p->ok())
			pci.set_bar0_mmap(p->fd(), 0, {pci::MmapArea{uint64_t(p->first()) * 4096,
								  uint64_t(p->end() - p->first()) * 4096}});
	}
};

// ---------------------------------------------------------------------------
// SR-IOV (issue 32 part 2, step 8). A PF given VFs (--vfs) carries the
// SR-IOV capability, and its VFs are functions of their own, served from
// the start on sockets named after the PF's (hcaI-vfJ.sock), HCAs after
// the PFs on the control channel. The capability's control writes come to
// on_sriov_control(), which hands them to the PF's adapter (fw/adapter:
// which VFs live, their firmware reset when they stop) and resets the VF
// functions' config space when VF Enable clears, as a device does (a VF
// is gone then).

struct SriovGroup {
	EmulatedFunction *pf = nullptr;
	std::vector<EmulatedFunction *> vfs;
	pci::SriovState state; // the last one reported
};

// Called on the PF's connection thread (a config write, or its reset).
void on_sriov_control(SriovGroup &g, const pci::SriovState &now)
{
	log_info("hca%u: SR-IOV NumVFs %u, VF Enable %u, VF MSE %u", g.pf->hca.config().index, now.num_vfs,
		 now.vf_enable, now.vf_mse);
	bool cleared = g.state.vf_enable && !now.vf_enable;
	g.state = now;
	if (Adapter *a = g.pf->hca.config().adapter.get())
		a->sriov_control(now.num_vfs, now.vf_enable, now.vf_mse);
	if (!cleared)
		return;
	for (EmulatedFunction *vf : g.vfs) {
		log_info("hca%u: reset (VF %u of hca%u, VF Enable cleared)", vf->hca.config().index,
			 vf->hca.config().vf_index, g.pf->hca.config().index);
		vf->pci.reset();
	}
}

// The socket of VF `j` of the PF at `pf_path`: DIR/hca0.sock -> DIR/hca0-vf0.sock.
std::string vf_socket_path(const std::string &pf_path, unsigned j)
{
	const std::string ext = ".sock";
	std::string base = pf_path;
	if (base.size() > ext.size() && base.compare(base.size() - ext.size(), ext.size(), ext) == 0)
		base.resize(base.size() - ext.size());
	return base + "-vf" + std::to_string(j) + ext;
}

// Adds the VFs of every PF in `functions` that has some, each through
// add(cfg, pcfg, socket), and routes the PF's SR-IOV listener.
template <class Add>
bool add_sriov_vfs(const Options &o, std::vector<std::unique_ptr<EmulatedFunction>> &functions,
		   std::vector<std::unique_ptr<SriovGroup>> &groups, Add &&add)
{
	size_t npf = functions.size();
	for (size_t i = 0; i < npf; i++) {
		EmulatedFunction *pf = functions[i].get();
		uint16_t total = pf->pci.function_config().total_vfs;
		if (!total)
			continue;
		auto g = std::make_unique<SriovGroup>();
		g->pf = pf;
		for (uint16_t j = 0; j < total; j++) {
			HcaConfig cfg;
			cfg.link = pf->hca.config().link;
			cfg.role = pci::FunctionRole::Vf;
			cfg.vf_index = j;
			cfg.adapter = pf->hca.config().adapter;
			cfg.device_id = pci::vf_device_id(pf->hca.config().device_id);
			if (!add(cfg, pci::FunctionConfig{}, vf_socket_path(o.sockets[i], j)))
				return false;
			g->vfs.push_back(functions.back().get());
		}
		SriovGroup *gp = g.get();
		pf->pci.set_sriov_listener([gp](const pci::SriovState &s) { on_sriov_control(*gp, s); });
		groups.push_back(std::move(g));
	}
	return true;
}

// ---------------------------------------------------------------------------

int run(const Options &o)
{
	set_log_verbose(o.verbose);

	// Signals are taken by sigwait() in this thread only; every thread
	// created from here on inherits the mask.
	sigset_t stop_signals;
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
	signal(SIGPIPE, SIG_IGN);

	if (!o.socket_dir.empty() && ::mkdir(o.socket_dir.c_str(), 0755) < 0 && errno != EEXIST) {
		log_info("cannot create %s: %s", o.socket_dir.c_str(), std::strerror(errno));
		return 1;
	}

	// One fabric links the ports of every HCA of the process: back to
	// back, or through a switch from three HCAs on.
	auto fabric = std::make_shared<Fabric>(o.sm);
	std::vector<std::unique_ptr<SriovGroup>> sriov_groups; // outlives functions
	std::vector<std::unique_ptr<EmulatedFunction>> functions;
	// The PFs (or part-1 VFs) first, HCAs 0..: then every PF's VFs.
	auto add_function = [&](HcaConfig cfg, pci::FunctionConfig pcfg, const std::string &path) {
		unsigned i = unsigned(functions.size());
		cfg.fabric = fabric;
		cfg.index = i;
		cfg.guid_seed = guid_seed_for(i);
		cfg.msix_vectors = o.msix;
		cfg.poll_doorbells = o.poll_doorbells;
		pcfg.device_id = cfg.device_id;
		pcfg.msix_vectors = cfg.msix_vectors;
		pcfg.bar0_size = cfg.bar0_size;
		pcfg.role = cfg.role;
		// A VF is an Ethernet controller on an Ethernet port. The PF
		// keeps its InfiniBand class on both link types.
		if (cfg.is_vf() && cfg.link == LinkType::Eth)
			pcfg.class_code = pci::kClassEthernet;
		if (const char *bad = pci::check_function_config(pcfg); *bad) {
			log_info("hca%u: %s", i, bad);
			return false;
		}
		functions.push_back(std::make_unique<EmulatedFunction>(cfg, pcfg, path));
		if (DoorbellPages *p = functions.back()->hca.impl().dbpages.get(); p && !p->ok()) {
			log_info("hca%u: %s", i, p->error().c_str());
			return false;
		}
		return true;
	};
	for (unsigned i = 0; i < o.sockets.size(); i++) {
		HcaConfig cfg;
		if (!o.links.empty())
			cfg.link = o.links[o.links.size() == 1 ? 0 : i];
		if (!o.roles.empty())
			cfg.role = o.roles[o.roles.size() == 1 ? 0 : i];
		cfg.device_id = function_device_id(o.device_id, cfg.role);
		if (!cfg.device_id) {
			log_info("hca%u: no VF device ID is known for device 0x%04x", i, o.device_id);
			return 1;
		}
		pci::FunctionConfig pcfg;
		if (!o.vfs.empty())
			pcfg.total_vfs = uint16_t(o.vfs[o.vfs.size() == 1 ? 0 : i]);
		// A PF with VFs: their manager, on one adapter with them.
		if (pcfg.total_vfs)
			cfg.adapter = std::make_shared<Adapter>(pcfg.total_vfs, true);
		pcfg.vf_bar0_size = HcaConfig{}.bar0_size; // each VF's, below
		if (!add_function(cfg, pcfg, o.sockets[i]))
			return 1;
	}
	if (!add_sriov_vfs(o, functions, sriov_groups, add_function))
		return 1;

	// Polled doorbells: one thread for every HCA of the process.
	std::unique_ptr<DoorbellPoller> poller;
	if (o.poll_doorbells) {
		poller = std::make_unique<DoorbellPoller>();
		for (auto &f : functions)
			poller->add(&f->hca.impl());
		poller->start();
	}

	std::unique_ptr<ControlServer> ctl;
	if (!o.ctl_path.empty()) {
		std::vector<Hca *> hcas;
		for (auto &f : functions)
			hcas.push_back(&f->hca);
		ctl = std::make_unique<ControlServer>(o.ctl_path, hcas);
		std::string err;
		if (!ctl->start(&err)) {
			log_info("control channel %s: %s", o.ctl_path.c_str(), err.c_str());
			return 1;
		}
	}

	for (auto &f : functions) {
		std::string err;
		if (!f->server.start(&err)) {
			log_info("%s", err.c_str());
			poller.reset();
			functions.clear(); // stops and unlinks the ones already started
			if (ctl)
				ctl->stop();
			return 1;
		}
		log_info("listening on %s (hca%u, %04x:%04x%s, %u MSI-X vectors%s)", f->server.socket_path().c_str(),
			 f->hca.config().index, pci::kMellanoxVendorId, f->hca.config().device_id,
			 f->hca.config().is_vf() ? " VF" : "", o.msix,
			 f->pci.layout().sriov ? ", SR-IOV" : "");
	}

	if (!o.pidfile.empty()) {
		if (FILE *pf = std::fopen(o.pidfile.c_str(), "w")) {
			std::fprintf(pf, "%d\n", int(getpid()));
			std::fclose(pf);
		} else {
			log_info("cannot write pidfile %s: %s", o.pidfile.c_str(), std::strerror(errno));
		}
	}

	int sig = 0;
	while (sigwait(&stop_signals, &sig) != 0) {
	}
	log_info("%s: shutting down", strsignal(sig));

	if (ctl)
		ctl->stop();
	if (poller) {
		poller->stop();
		log_info("doorbell poller: %llu doorbells, %llu scans, %llu sleeps, %llu ms of CPU",
			 (unsigned long long)poller->counters().doorbells.load(),
			 (unsigned long long)poller->counters().scans.load(),
			 (unsigned long long)poller->counters().sleeps.load(),
			 (unsigned long long)(poller->cpu_us() / 1000));
	}
	for (auto &f : functions)
		f->server.stop(); // unlinks its socket
	functions.clear();
	if (!o.pidfile.empty())
		::unlink(o.pidfile.c_str());
	return 0;
}

} // namespace
} // namespace mlx5emu

int main(int argc, char **argv)
{
	if (argc >= 2 && std::strcmp(argv[1], "ctl") == 0)
		return mlx5emu::control_client_main(argc - 1, argv + 1);
	mlx5emu::Options o;
	int rc = mlx5emu::parse(argc, argv, o);
	if (rc)
		return rc < 0 ? 0 : rc;
	return mlx5emu::run(o);
}

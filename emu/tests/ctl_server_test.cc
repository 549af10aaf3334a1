// SPDX-License-Identifier: GPL-2.0
// The control channel, exercised through a real UNIX socket.
#include <csignal>
#include <cstdlib>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl/control_server.h"
#include "ctl/process_death.h"
#include "fw_harness.h"

namespace mlx5emu::test {
namespace {

namespace op = prm::op;

class CtlServer : public ::testing::Test {
protected:
	void SetUp() override
	{
		char tmpl[] = "/tmp/mlx5emu-ctl-XXXXXX";
		ASSERT_NE(::mkdtemp(tmpl), nullptr);
		dir = tmpl;
		path = dir + "/ctl.sock";
		server = std::make_unique<ControlServer>(path, std::vector<Hca *>{h.hca.get()});
		std::string err;
		ASSERT_TRUE(server->start(&err)) << err;
	}
	void TearDown() override
	{
		server.reset();
		::rmdir(dir.c_str());
	}

	std::string ask(const std::string &line)
	{
		std::string answer, err;
		EXPECT_TRUE(control_request(path, line, &answer, &err)) << err;
		return answer;
	}
	int client(std::vector<std::string> words)
	{
		std::vector<std::string> argv_s = {"mlx5-emu", "ctl", "--ctl", path};
		argv_s.insert(argv_s.end(), words.begin(), words.end());
		std::vector<char *> argv;
		for (std::string &s : argv_s)
			argv.push_back(s.data());
		return control_client_main(static_cast<int>(argv.size()), argv.data());
	}

	FwHarness h;
	std::string dir, path;
	std::unique_ptr<ControlServer> server;
};

bool contains(const std::string &s, const std::string &what) { return s.find(what) != std::string::npos; }

TEST_F(CtlServer, HelpAndList)
{
	std::string a = ask("help");
	EXPECT_TRUE(contains(a, "fail-cmd")) << a;
	EXPECT_FALSE(a.rfind("ok", 0) == 0 || a.rfind("error", 0) == 0) << "a block";
	a = ask("list");
	EXPECT_TRUE(contains(a, "hca 0 device 0x1017")) << a;
	EXPECT_TRUE(contains(a, "lid 1")) << a;
}

TEST_F(CtlServer, Errors)
{
	EXPECT_EQ(ask("frobnicate").rfind("error: ", 0), 0u);
	EXPECT_EQ(ask("hca 7 stats").rfind("error: no hca", 0), 0u);
	EXPECT_EQ(ask("hca 0 fail-cmd NOT_AN_OPCODE 3").rfind("error: ", 0), 0u);
	EXPECT_EQ(ask("hca 0 fail-cmd INIT_HCA 0").rfind("error: ", 0), 0u);
	EXPECT_EQ(ask("hca 0 page-request 0").rfind("error: ", 0), 0u);
	EXPECT_EQ(ask("hca 0").rfind("error: ", 0), 0u);
}

TEST_F(CtlServer, FailCmdMakesTheNextInitHcaFail)
{
	EXPECT_EQ(ask("hca 0 fail-cmd INIT_HCA 0x4 0x1234"), "ok\n");
	h.enable();
	h.give_pages(48);
	auto r = h.exec(Msg(op::INIT_HCA, 0, 32), 16);
	EXPECT_EQ(r.delivery, 0);
	EXPECT_EQ(r.status, 0x4);
	EXPECT_EQ(r.syndrome, 0x1234u);
	EXPECT_EQ(h.fw().function_state(), FnState::Enabled) << "not executed";
	h.ok(Msg(op::INIT_HCA, 0, 32), 16); // only once
	EXPECT_TRUE(contains(ask("hca 0 trace"), "INIT_HCA(0x102) op_mod=0x0 delivery=0x0 status=0x4 syndrome=0x1234"));
}

TEST_F(CtlServer, FailCmdByNumberWithCount)
{
	EXPECT_EQ(ask("hca 0 fail-cmd 0x80d 0x3 7 2"), "ok\n");
	EXPECT_EQ(h.exec(Msg(op::NOP, 0, 16), 16).status, 3);
	EXPECT_EQ(h.exec(Msg(op::NOP, 0, 16), 16).status, 3);
	EXPECT_EQ(h.exec(Msg(op::NOP, 0, 16), 16).status, 0);
	EXPECT_EQ(ask("hca 0 fail-cmd nop 0x3 7 forever"), "ok\n");
	EXPECT_TRUE(contains(ask("hca 0 faults"), "NOP(0x80d) status=0x3 syndrome=0x7 remaining=forever"));
	for (int i = 0; i < 3; ++i)
		EXPECT_EQ(h.exec(Msg(op::NOP, 0, 16), 16).status, 3);
	EXPECT_EQ(ask("hca 0 clear-faults"), "ok\n");
	EXPECT_EQ(h.exec(Msg(op::NOP, 0, 16), 16).status, 0);
}

TEST_F(CtlServer, HangStopsCompletionsAndHeartbeat)
{
	EXPECT_EQ(ask("hca 0 hang"), "ok\n");
	auto p = h.prepare(0, Msg(op::NOP, 0, 16).b, 16);
	h.ring(1);
	EXPECT_FALSE(h.wait(p, 200ms)) << "a hung firmware completes nothing";
	uint32_t hb = h.rd32(0x1010);
	EXPECT_TRUE(contains(ask("hca 0 stats"), "hung 1"));
	EXPECT_EQ(h.rd32(0x1010), hb);
	EXPECT_EQ(ask("hca 0 unhang"), "ok\n");
	EXPECT_TRUE(h.wait(p));
	EXPECT_EQ(h.collect(p).status, 0);
}

TEST_F(CtlServer, UnplugCutsTheHostLinkAndReplugResets)
{
	h.bring_up();
	auto eq = h.create_eq(7, 1ull << 0x0b, 0, h.alloc_uar());
	EXPECT_EQ(ask("hca 0 unplug"), "ok\n");
	EXPECT_EQ(h.rd32(0x1010), 0xffffffffu) << "health counter";
	EXPECT_EQ(h.rd32(0x0), 0xffffffffu) << "firmware version";
	EXPECT_EQ(h.hca->bar_read(0x23d, 1), 0xffu);
	// The EQ still exists in the firmware, but nothing reaches the host.
	EXPECT_EQ(ask("hca 0 page-request 2"), "ok\n");
	EXPECT_FALSE(h.wait_eqe(eq, 0, 200ms));
	// A command doorbell is lost.
	auto p = h.prepare(0, Msg(op::NOP, 0, 16).b, 16);
	h.ring(1);
	EXPECT_FALSE(h.wait(p, 200ms));
	// Whatever the data path or the EQs write to the host is lost.
	uint8_t word[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	EXPECT_FALSE(h.fw().mem.write(eq.buf, word, sizeof word));
	h.fw().irq.raise(0);
	std::string st = ask("hca 0 stats");
	EXPECT_TRUE(contains(st, "unplugged 1 bar_writes_lost 1 dma_irq_lost 2")) << st;
	EXPECT_EQ(ask("hca 0 replug"), "ok\n");
	EXPECT_NE(h.rd32(0x1010), 0xffffffffu);
	EXPECT_EQ(h.fw().function_state(), FnState::Disabled) << "back as after a reset";
	EXPECT_EQ(h.fw().pages_outstanding(), 0u);
	EXPECT_TRUE(contains(ask("hca 0 stats"), "unplugged 0"));
	// The command engine works again, from a new command queue.
	h.init_cmdq();
	h.bring_up();
	EXPECT_EQ(h.fw().function_state(), FnState::Initialized);
}

TEST_F(CtlServer, HealthSyndromeIsVisibleInTheHealthBuffer)
{
	EXPECT_EQ(ask("hca 0 health-syndrome 0x8 0x55"), "ok\n");
	EXPECT_EQ(h.hca->bar_read(0x23d, 1), 0x8u);
	EXPECT_EQ(h.rd32(0x23c) & 0xffff, 0x55u);
	EXPECT_EQ(h.rd32(0x238) >> 31, 0u);
	EXPECT_EQ(ask("hca 0 health-syndrome 1 fatal"), "ok\n");
	EXPECT_EQ(h.rd32(0x238) >> 31, 1u);
	EXPECT_EQ(ask("hca 0 health-syndrome 0"), "ok\n");
	EXPECT_EQ(h.rd32(0x23c), 0u);
	EXPECT_EQ(h.rd32(0x238), 0u);
}

TEST_F(CtlServer, StatsTraceAndPages)
{
	h.enable();
	h.give_pages(10);
	std::string s = ask("hca 0 stats");
	EXPECT_TRUE(contains(s, "op ENABLE_HCA 0x104 total=1 failed=0")) << s;
	EXPECT_TRUE(contains(s, "op MANAGE_PAGES 0x108 total=1")) << s;
	EXPECT_TRUE(contains(s, "pages_outstanding 10")) << s;
	EXPECT_TRUE(contains(s, "cmd_doorbells 2")) << s;
	EXPECT_TRUE(contains(ask("hca 0 pages"), "outstanding 10"));
	std::string t = ask("hca 0 trace");
	EXPECT_TRUE(contains(t, "ENABLE_HCA(0x104)")) << t;
	EXPECT_TRUE(contains(t, "MANAGE_PAGES(0x108) op_mod=0x1")) << t;
	EXPECT_TRUE(contains(ask("hca 0 trace 1"), "MANAGE_PAGES"));
	EXPECT_FALSE(contains(ask("hca 0 trace 1"), "ENABLE_HCA"));
	EXPECT_EQ(ask("hca 0 trace-clear"), "ok\n");
	EXPECT_EQ(ask("hca 0 trace"), "hca 0 trace\n");
}

TEST_F(CtlServer, PageRequestPostsAnEqe)
{
	h.bring_up();
	EXPECT_EQ(ask("hca 0 page-request 4").rfind("error: page-request: no EQ", 0), 0u);
	auto eq = h.create_eq(7, 1ull << 0x0b, 0, h.alloc_uar());
	EXPECT_EQ(ask("hca 0 page-request -3"), "ok\n");
	ASSERT_TRUE(h.wait_eqe(eq, 0));
	EXPECT_EQ(static_cast<int32_t>(bits::load_be32(h.eqe(eq, 0).data() + 0x24)), -3);
	EXPECT_TRUE(contains(ask("hca 0 eqs"), "mask0=0x800"));
}

TEST_F(CtlServer, DelayCmdHoldsTheCompletion)
{
	EXPECT_EQ(ask("hca 0 delay-cmd NOP 150"), "ok\n");
	auto t0 = std::chrono::steady_clock::now();
	auto p = h.prepare(0, Msg(op::NOP, 0, 16).b, 16);
	h.ring(1);
	// Meanwhile the worker keeps executing other commands.
	h.ok(Msg(op::ENABLE_HCA, 0, 16), 12, 1);
	ASSERT_TRUE(h.wait(p));
	EXPECT_GE(std::chrono::steady_clock::now() - t0, 140ms);
	EXPECT_EQ(ask("hca 0 delay-cmd NOP 0"), "ok\n");
	h.ok(Msg(op::NOP, 0, 16), 16);
	EXPECT_TRUE(contains(ask("hca 0 trace 3"), "ENABLE_HCA"));
}

TEST_F(CtlServer, DropEqeDropsTheCommandCompletionEvent)
{
	h.bring_up();
	auto cq = h.create_eq(5, 1ull << 0x0a, 0, h.alloc_uar());
	EXPECT_EQ(ask("hca 0 drop-eqe cmd 1"), "ok\n");
	h.ok(Msg(op::NOP, 0, 16), 16);
	ASSERT_TRUE(h.idle());
	EXPECT_FALSE(h.eqe_ready(cq, 0));
	h.ok(Msg(op::NOP, 0, 16), 16);
	EXPECT_TRUE(h.wait_eqe(cq, 0));
	EXPECT_EQ(ask("hca 0 delay-eqe 0x0a 20"), "ok\n");
	EXPECT_TRUE(contains(ask("hca 0 faults"), "delay-eqe type=0xa 20 ms"));
}

TEST_F(CtlServer, SeveralCommandsOnOneConnection)
{
	int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_GE(fd, 0);
	sockaddr_un a = {};
	a.sun_family = AF_UNIX;
	std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
	ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
	std::string req = "hca 0 hang\nhca 0 unhang\nhca 0 pages\n";
	ASSERT_EQ(::write(fd, req.data(), req.size()), static_cast<ssize_t>(req.size()));
	std::string got;
	char buf[512];
	while (got.find("\n.\n") == std::string::npos) {
		ssize_t n = ::read(fd, buf, sizeof buf);
		ASSERT_GT(n, 0);
		got.append(buf, static_cast<size_t>(n));
	}
	::close(fd);
	EXPECT_EQ(got.rfind("ok\nok\nhca 0 pages\noutstanding 0\n", 0), 0u) << got;
}

TEST_F(CtlServer, ClientExitStatus)
{
	EXPECT_EQ(client({"hca", "0", "hang"}), 0);
	EXPECT_EQ(client({"hca", "0", "unhang"}), 0);
	EXPECT_EQ(client({"hca", "0", "stats"}), 0);
	EXPECT_EQ(client({"hca", "9", "stats"}), 1);
	std::vector<std::string> bad = {"mlx5-emu", "ctl", "--ctl", dir + "/nope.sock", "help"};
	std::vector<char *> argv;
	for (std::string &s : bad)
		argv.push_back(s.data());
	EXPECT_EQ(control_client_main(static_cast<int>(argv.size()), argv.data()), 2);
	EXPECT_FALSE(h.fw().hung());
}

TEST_F(CtlServer, ExecuteWithoutSocket)
{
	EXPECT_EQ(server->execute("hca 0 hang"), "ok\n");
	EXPECT_TRUE(h.fw().hung());
	EXPECT_EQ(server->execute("hca 0 unhang"), "ok\n");
}

TEST(CtlDie, CommandWords)
{
	EXPECT_TRUE(is_die_command("die"));
	EXPECT_TRUE(is_die_command("  die\r"));
	EXPECT_FALSE(is_die_command("die now"));
	EXPECT_FALSE(is_die_command("hca 0 die"));
	EXPECT_FALSE(is_die_command(""));
}

// "die": the client gets its answer, then the serving process is killed by
// SIGKILL (a child process serves here).
TEST(CtlDie, AnswersThenTheProcessIsKilled)
{
	char tmpl[] = "/tmp/mlx5emu-die-XXXXXX";
	ASSERT_NE(::mkdtemp(tmpl), nullptr);
	std::string dir = tmpl, path = dir + "/ctl.sock";
	pid_t pid = ::fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		ControlServer server(path, {});
		std::string err;
		if (!server.start(&err))
			::_exit(3);
		for (;;)
			::pause();
	}
	struct stat st;
	for (int i = 0; i < 500 && ::stat(path.c_str(), &st) != 0; ++i)
		::usleep(10000); // polls for the child's socket
	std::string answer, err;
	bool asked = control_request(path, "die", &answer, &err);
	EXPECT_TRUE(asked) << err;
	EXPECT_EQ(answer, "ok dying\n");
	if (!asked)
		::kill(pid, SIGKILL); // not told to die: the wait below would never end
	int status = 0;
	ASSERT_EQ(::waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
	::unlink(path.c_str());
	::rmdir(dir.c_str());
}

} // namespace
} // namespace mlx5emu::test

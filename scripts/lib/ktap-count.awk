# SPDX-License-Identifier: GPL-2.0
#
# ktap-count.awk - judge a log of KTAP documents, one result per test case,
# for scripts/check. Usage:
#   awk -v name=NAME [-v progs="P1 P2 ..."] -f ktap-count.awk LOG
# A log holds one document (NAME names it) or, as run_tests.sh prints them,
# one per program, each after a "# selftests: drivers/mlx5: PROGRAM" line and
# followed by "# exit status: N". progs lists the programs that must appear.
#
# Prints one tab-separated line per result (COUNT results for the cases
# that never came); scripts/check adds them up and decides which skips are
# expected:
#   pass PROGRAM CASE - 1
#   fail PROGRAM CASE WHY COUNT
#   skip PROGRAM CASE REASON 1    (CASE "-": the whole program skipped)
# What fails besides "not ok": every case of the plan (1..N) that was not
# reported, a case numbered twice or beyond the plan, a document without a
# plan, one that reported nothing, a program that never ran, and a program
# that exited with a status other than 0 or 4 (skip) without a failed case.

function emit(kind, prog, tcase, why, count)
{
	# No empty field: read(1) with a tab IFS would merge two tabs.
	printf "%s\t%s\t%s\t%s\t%d\n", kind, prog, tcase == "" ? "-" : tcase,
	       why == "" ? "-" : why, count == "" ? 1 : count
}

function start(prog)
{
	finish()
	doc = prog; open = 1; plan = -1; nres = 0; nfail = 0; npass = 0
	status = ""; skip_reason = ""
	delete seen
	ran[prog] = 1
}

function finish(   i, missing, first)
{
	if (!open)
		return
	open = 0
	if (plan < 0 && nres == 0) {
		emit("fail", doc, "-", "reported no plan and no result")
		return
	}
	if (plan < 0) {
		emit("fail", doc, "-", "reported no plan (1..N)")
		nfail++
	}
	if (plan == 0 && nres == 0) {
		emit("skip", doc, "-", skip_reason == "" ? "planned no case" : skip_reason)
		return
	}
	missing = 0
	for (i = 1; i <= plan; i++)
		if (!(i in seen))
			missing++
	if (missing > 0) {
		first = 0
		for (i = 1; i <= plan; i++)
			if (!(i in seen)) {
				first = i
				break
			}
		emit("fail", doc, missing " case(s) from " first " on",
		     "planned (1.." plan ") but never reported", missing)
		nfail += missing
	}
	if (status != "" && status != 0 && status != 4 && nfail == 0)
		emit("fail", doc, "-", "exited with status " status " without a failed case")
}

function result(ok, line,   n, desc, reason)
{
	if (!open)
		start(name)
	n = line
	sub(/^(not )?ok /, "", n)
	desc = n
	sub(/ .*/, "", n)
	n = n + 0
	sub(/^[0-9]+ ?/, "", desc)
	nres++
	if (n in seen) {
		emit("fail", doc, desc, "case number " n " reported twice")
		nfail++
		return
	}
	seen[n] = 1
	if (plan >= 0 && n > plan) {
		emit("fail", doc, desc, "case number " n " beyond the plan 1.." plan)
		nfail++
		return
	}
	if (!ok) {
		emit("fail", doc, desc, "not ok")
		nfail++
	} else if (match(desc, / # [Ss][Kk][Ii][Pp]( |$)/)) {
		reason = substr(desc, RSTART + RLENGTH)
		desc = substr(desc, 1, RSTART - 1)
		emit("skip", doc, desc, reason == "" ? "no reason given" : reason)
	} else {
		emit("pass", doc, desc, "")
		npass++
	}
}

BEGIN { open = 0 }
/^# selftests: [^:]+: [^ ]+$/ {
	p = $0
	sub(/^# selftests: [^:]+: /, "", p)
	start(p)
	next
}
/^TAP version / {
	# A second document without a program header: judged on its own.
	if (open && plan >= 0)
		start(name)
	else if (!open)
		start(name)
	next
}
/^1\.\.[0-9]+/ {
	if (!open)
		start(name)
	if (plan < 0) {
		plan = $0
		sub(/^1\.\./, "", plan)
		sub(/[^0-9].*/, "", plan)
		plan = plan + 0
		if (match($0, /# [Ss][Kk][Ii][Pp]:? */))
			skip_reason = substr($0, RSTART + RLENGTH)
	}
	next
}
/^ok [0-9]+/ { result(1, $0); next }
/^not ok [0-9]+/ { result(0, $0); next }
/^# SKIP:? / {
	if (open && skip_reason == "") {
		skip_reason = $0
		sub(/^# SKIP:? */, "", skip_reason)
	}
	next
}
/^# exit status: [0-9]+$/ {
	if (open)
		status = $4 + 0
	next
}
END {
	finish()
	n = split(progs, want, " ")
	for (i = 1; i <= n; i++)
		if (!(want[i] in ran))
			emit("fail", want[i], "-", "never ran (no \"# selftests:\" header in the log)")
	if (n == 0 && !(name in ran))
		emit("fail", name, "-", "reported nothing")
}

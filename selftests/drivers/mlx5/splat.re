# Kernel log lines that fail a test: one extended regular expression per
# line; lines starting with # and empty lines are ignored. Read by ktap.sh in
# the guest (a case that adds such a line fails) and by scripts/vm on the host
# (a run whose kernel log has one fails). Keep it the only copy.
#
# WARN*(), BUG*(), oopses, "BUG: KFENCE: ...", "BUG: KASAN: ...", "BUG: Bad page state"
BUG:|WARNING:|Oops|kernel BUG at
Call Trace|general protection fault|Kernel panic
# SLUB debugging (slub_debug=FZPU): "BUG kmalloc-64 (Not tainted): Redzone overwritten"
BUG [^ ]+ \((Not tainted|Tainted)
Redzone overwritten|Poison overwritten|[Pp]adding overwritten|Object padding|Freepointer corrupt|Object already free
# page_poison=1: a poisoned free page was written to
pagealloc: memory corruption|pagealloc: single bit error
# lockdep's reports are WARNINGs; these say it turned itself off (after any
# taint) or met an inconsistency of its own ("RCU lockdep checking is
# enabled" at boot is not one)
lockdep is turned off|Disabling lock debugging|DEBUG_LOCKS_WARN_ON
possible circular locking|possible recursive locking|inconsistent lock state
UBSAN:|KASAN:|KFENCE:
list_add corruption|list_del corruption|refcount_t:
KVM internal error
# netdev_rx_csum_fault(): a driver's CHECKSUM_COMPLETE sum did not verify
hw csum failure

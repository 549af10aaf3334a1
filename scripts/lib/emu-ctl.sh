# SPDX-License-Identifier: GPL-2.0
# emu_ctl WORDS... - in the guest, send one command to the emulator's control
# channel through the virtio-serial port "mlx5emu.ctl" and print the answer
# (on the host: mlx5-emu ctl --ctl OUT/ctl.sock WORDS...). Status 0 on
# success, 1 when the answer is an error, 2 without a port or an answer.
#
# A shell function (sourced by scripts/lib/emu-ctl and the selftests'
# ktap.sh) that starts no program: under TCG a program started costs
# 0.1-0.6 s, the exchange itself about 10 ms. The port is looked up once
# per shell.
_emu_ctl_port=""
emu_ctl()
{
	if [ -z "$_emu_ctl_port" ] || [ ! -e "$_emu_ctl_port" ]; then
		_emu_ctl_port=""
		for _emu_ctl_n in /sys/class/virtio-ports/*/name; do
			[ -f "$_emu_ctl_n" ] && read -r _emu_ctl_name <"$_emu_ctl_n" &&
				[ "$_emu_ctl_name" = mlx5emu.ctl ] &&
				{ _emu_ctl_n=${_emu_ctl_n%/name}; _emu_ctl_port=/dev/${_emu_ctl_n##*/}; }
		done
		[ -n "$_emu_ctl_port" ] || { echo "emu-ctl: no mlx5emu.ctl port" >&2; return 2; }
	fi
	# The answer is one line starting with "ok" or "error:", or a block of
	# lines ended by a line ".".
	_emu_ctl_rc=2
	{
		echo "$*" >&9
		if IFS= read -r _emu_ctl_line <&9; then
			case "$_emu_ctl_line" in
			ok*) echo "$_emu_ctl_line"; _emu_ctl_rc=0 ;;
			error*) echo "$_emu_ctl_line"; _emu_ctl_rc=1 ;;
			*)
				_emu_ctl_rc=0
				while [ "$_emu_ctl_line" != "." ]; do
					echo "$_emu_ctl_line"
					IFS= read -r _emu_ctl_line <&9 || break
				done
				;;
			esac
		else
			echo "emu-ctl: no answer" >&2
		fi
	} 9<>"$_emu_ctl_port"
	return $_emu_ctl_rc
}

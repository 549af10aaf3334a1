# SPDX-License-Identifier: GPL-2.0
# Sourced by scripts/debug-kernel and scripts/checkpatch: Debian's
# linux-source-7.3 package, fetched with the toolbox's apt and unpacked once
# per package version, shared by both (the debug kernel builds it,
# checkpatch runs its scripts/checkpatch.pl):
#   $linux_source_cache/src/linux-source-7.3-<version>/  the source tree
#     .unpacked                                          written last
#   $linux_source_cache/src/linux-source-7.3.version     the version unpacked
# where linux_source_cache is MLX5_DEBUG_KERNEL_CACHE, by default
# ~/.cache/mlx5-clone/debug-kernel (the debug kernel's cache, whose key
# starts with the same package version).
#
# Callers set here (scripts/) and root (the toolbox tree), then:
#   linux_source_version  print the version apt in the toolbox offers, or
#                         the one unpacked when apt cannot say (its package
#                         lists read again once first); fails when neither
#   linux_source_tree VER print the tree of VER, fetching and unpacking it
#                         first when it is not there (about 170 MB); a lock
#                         keeps two callers from unpacking at once
linux_source_pkg=linux-source-7.3
linux_source_cache=${MLX5_DEBUG_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mlx5-clone/debug-kernel}

# _linux_source_candidate: the candidate version of apt-cache policy.
_linux_source_candidate() {
	chroot "$root" apt-cache policy "$linux_source_pkg" 2>/dev/null |
		awk '$1 == "Candidate:" { print $2 }'
}

linux_source_version() {
	local pkg=$linux_source_pkg src=$linux_source_cache/src v
	v=$(_linux_source_candidate)
	# A toolbox whose package lists are gone (apt-get clean keeps them; a
	# trimmed tree may not): read them again once.
	if { [ -z "$v" ] || [ "$v" = "(none)" ]; } && [ ! -f "$src/$pkg.version" ]; then
		chroot "$root" apt-get update -qq >/dev/null 2>&1
		v=$(_linux_source_candidate)
	fi
	if [ -z "$v" ] || [ "$v" = "(none)" ]; then
		v=$(cat "$src/$pkg.version" 2>/dev/null) ||
			{ echo "linux-source: apt in the toolbox offers no $pkg" >&2; return 1; }
	fi
	echo "$v"
}

linux_source_tree() {
	local pkg=$linux_source_pkg ver=$1 src=$linux_source_cache/src
	local dir=$src/$pkg-$1
	mkdir -p "$src"
	(
		flock 9
		[ ! -f "$dir/.unpacked" ] || exit 0
		echo "linux-source: fetching $pkg $ver" >&2
		rm -rf "$dir" "$src/tmp"
		mkdir -p "$src/tmp"
		(cd "$root/tmp" && rm -f "$pkg"_*.deb &&
			chroot "$root" sh -c "cd /tmp && apt-get download -q $pkg=$ver" >&2) ||
			{ echo "linux-source: apt-get download $pkg=$ver failed" >&2; exit 1; }
		dpkg-deb -x "$root"/tmp/"$pkg"_*.deb "$src/tmp" &&
			rm -f "$root"/tmp/"$pkg"_*.deb &&
			tar -C "$src/tmp" -xf "$src/tmp/usr/src/$pkg.tar.xz" &&
			mv "$src/tmp/$pkg" "$dir" &&
			rm -rf "$src/tmp" || { echo "linux-source: unpacking $pkg failed" >&2; exit 1; }
		echo "$ver" >"$src/$pkg.version"
		touch "$dir/.unpacked"
	) 9>"$src/.lock" || return 1
	echo "$dir"
}

# SPDX-License-Identifier: GPL-2.0
#
# A cluster inside one guest: a storage host (this, the root network
# namespace) exporting a fnblk device with Debian's nbd-server, and client
# hosts as network namespaces cl0, cl1, ... each on its own veth pair, with
# its own /dev/nbdI. Sourced by cluster_ns.sh and by scripts/guest/cluster.sh
# (scripts/cluster); Documentation/cluster.rst explains the choices.
#
# Client I is 10.77.I.2 in namespace clI, the storage host 10.77.I.1 on
# that link. nbd-client runs in its ioctl mode (-L): the nbd generic
# netlink family is not namespace-aware, so its netlink mode fails in a
# namespace.
#
# The export: nbd-server serves each connection from its own forked
# process, so with the device's key tgid each client host is one user.
# By default nbd-server writes into the storage host's page cache and the
# data reach fnblk later from the flusher, one kernel thread for every
# host. "sync = true" makes the serving process fsync(2) after every
# write, so the write reaches fnblk from that process while its client
# waits. CLUSTER_EXPORT=buffered keeps nbd-server's default, to show the
# difference.

# busybox's sh runs its own ip and tc applets before any program in PATH,
# and they have no netns or netem: iproute2's, which the test VM carries
# (scripts/mkinitramfs), are called through these functions.
cluster_iproute2() { # name: the first non-busybox one in the system dirs
	local d
	for d in /usr/sbin /usr/bin /sbin /bin; do
		[ -x "$d/$1" ] || continue
		case $(readlink -f "$d/$1") in
		*/busybox) ;;
		*) echo "$d/$1"; return 0 ;;
		esac
	done
	return 1
}
CLUSTER_IP=$(cluster_iproute2 ip) || CLUSTER_IP=ip
CLUSTER_TC=$(cluster_iproute2 tc) || CLUSTER_TC=tc
ip() { "$CLUSTER_IP" "$@"; }
tc() { "$CLUSTER_TC" "$@"; }

CLUSTER_PORT=10809
CLUSTER_EXPORT=${CLUSTER_EXPORT:-sync}
CLUSTER_DIR=${CLUSTER_DIR:-/tmp/cluster}
CLUSTER_PROC=${CLUSTER_PROC:-/proc}	# a host test's stand-in /proc
CLUSTER_NAME=fnblk

cluster_log() { echo "# cluster: $*" >&2; }

# Start nbd-server exporting DEV as export "fnblk". 0, or 1 after a message.
cluster_storage_start() { # dev
	local i
	mkdir -p "$CLUSTER_DIR"
	modprobe -q nbd nbds_max=64 || { cluster_log "cannot load nbd"; return 1; }
	{
		echo "[generic]"
		# The hosts reach it over IPv4 (10.77.I.1); its default, every
		# address of both families, fails on a kernel without IPv6.
		echo "listenaddr = 0.0.0.0"
		echo "port = $CLUSTER_PORT"
		echo "[$CLUSTER_NAME]"
		echo "exportname = $1"
		case $CLUSTER_EXPORT in
		sync)
			echo "sync = true"
			echo "flush = true"
			echo "fua = true" ;;
		buffered) ;;
		*) cluster_log "CLUSTER_EXPORT is sync or buffered, not $CLUSTER_EXPORT"; return 1 ;;
		esac
	} >"$CLUSTER_DIR/nbd-server.conf"
	# It daemonizes; the pid file names the listener, whose children
	# serve one connection each.
	nbd-server -C "$CLUSTER_DIR/nbd-server.conf" -p "$CLUSTER_DIR/nbd-server.pid" \
		>"$CLUSTER_DIR/nbd-server.log" 2>&1 ||
		{ cat "$CLUSTER_DIR/nbd-server.log" >&2; return 1; }
	i=0
	while [ ! -s "$CLUSTER_DIR/nbd-server.pid" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$CLUSTER_DIR/nbd-server.pid" ] || { cluster_log "nbd-server did not start"; return 1; }
	# The pid file comes before the socket: wait until it listens.
	i=0
	while ! cluster_port_listening && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	cluster_port_listening || {
		cluster_log "nbd-server does not listen on port $CLUSTER_PORT; its log:"
		sed 's/^/# cluster:   /' "$CLUSTER_DIR/nbd-server.log" >&2
		return 1
	}
}

# Is a TCP socket listening (state 0A) on CLUSTER_PORT, any IPv4 address?
cluster_port_listening() {
	awk -v port="$(printf '%04X' "$CLUSTER_PORT")" \
		'NR > 1 && $4 == "0A" && substr($2, index($2, ":") + 1) == port { found = 1 }
		 END { exit !found }' /proc/net/tcp
}

# The listener's pid, and the pids serving connections (one a line).
cluster_server_pid() { cat "$CLUSTER_DIR/nbd-server.pid" 2>/dev/null; }
cluster_server_children() {
	local p
	p=$(cluster_server_pid)
	[ -z "$p" ] && return 0
	# /proc/PID/stat: pid (comm) state ppid ... Read through cat, which
	# skips a process that ended between the glob and the read; awk (mawk,
	# busybox) given the files would stop there and miss the rest.
	cat "$CLUSTER_PROC"/[0-9]*/stat 2>/dev/null |
		awk -v p="$p" '$2 == "(nbd-server)" && $4 == p { print $1 }'
	return 0
}

# Client host I: namespace clI, veth pair (clIs here, eth0 there), and
# per-direction netem: DELAY and JITTER (tc time units, "" or 0 for none)
# and RATE (tc rate units, "" for none), the same both ways.
cluster_client_add() { # i [delay [jitter [rate]]]
	local ci=$1 delay=${2:-0} jitter=${3:-0} rate=${4:-} ns=cl$1 w=0
	# A link of an earlier host I whose namespace was deleted without
	# cluster_clients_remove goes when the kernel cleans that namespace
	# up: wait for it (5 s at most) rather than fail in "ip link add".
	while [ -e "/sys/class/net/${ns}s" ] && [ $w -lt 50 ]; do
		sleep 0.1
		w=$((w + 1))
	done
	[ ! -e "/sys/class/net/${ns}s" ] ||
		{ cluster_log "${ns}s, the link of an earlier host $ci, is still there"; return 1; }
	ip netns add "$ns" || return 1
	ip link add "${ns}s" type veth peer name "${ns}c" || return 1
	ip link set "${ns}c" netns "$ns" || return 1
	ip addr add "10.77.$ci.1/24" dev "${ns}s" || return 1
	ip link set "${ns}s" up || return 1
	ip -n "$ns" link set "${ns}c" name eth0 || return 1
	ip -n "$ns" addr add "10.77.$ci.2/24" dev eth0 || return 1
	ip -n "$ns" link set eth0 up || return 1
	ip -n "$ns" link set lo up || return 1
	cluster_netem "${ns}s" "$delay" "$jitter" "$rate" &&
		cluster_netem eth0 "$delay" "$jitter" "$rate" "$ns"
}

# netem on one link end (in namespace NS if given); nothing to do if
# there is neither delay nor rate.
cluster_netem() { # dev delay jitter rate [ns]
	local args
	case "$2$4" in
	'' | 0 | 00) return 0 ;;
	esac
	set -- "$1" "${2:-0}" "${3:-0}" "$4" "${5:-}"
	# tc does not load the qdisc's module (the guest has no modprobe
	# helper for it): "Specified qdisc kind is unknown" otherwise.
	modprobe -q sch_netem || { cluster_log "cannot load sch_netem"; return 1; }
	args="delay $2"
	[ "$3" != 0 ] && args="$args $3 distribution normal"
	[ -n "$4" ] && args="$args rate $4"
	# netem's default queue (1000 packets) would drop a burst of a large
	# write at a low rate.
	# shellcheck disable=SC2086 # args is a list of words
	if [ -n "$5" ]; then
		ip netns exec "$5" tc qdisc add dev "$1" root netem $args limit 100000
	else
		tc qdisc add dev "$1" root netem $args limit 100000
	fi || { cluster_log "tc netem on $1 ${5:+in $5 }failed: $args"; return 1; }
}

# Connect client I to the export as /dev/nbdI (ioctl mode, 4 KiB blocks).
cluster_client_connect() { # i
	local ns=cl$1 i
	ip netns exec "$ns" nbd-client -N "$CLUSTER_NAME" "10.77.$1.1" "$CLUSTER_PORT" \
		"/dev/nbd$1" -b 4096 -L >"$CLUSTER_DIR/nbd-client.$1.log" 2>&1 ||
		{ cat "$CLUSTER_DIR/nbd-client.$1.log" >&2; return 1; }
	i=0
	while [ "$(cat "/sys/block/nbd$1/size" 2>/dev/null || echo 0)" = 0 ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(cat "/sys/block/nbd$1/size" 2>/dev/null || echo 0)" != 0 ] ||
		{ cluster_log "/dev/nbd$1 did not come up"; return 1; }
}

# Run a command as client host I: in its namespace. The command's
# processes are the host's (cluster_client_kill ends them).
cluster_on() { # i command...
	local ns=cl$1
	shift
	ip netns exec "$ns" "$@"
}

# A client host dies: every process in its namespace (its jobs and its
# nbd-client) is killed at once.
cluster_client_kill() { # i
	local pids
	pids=$(ip netns pids "cl$1")
	# shellcheck disable=SC2086 # a list of pids
	[ -z "$pids" ] || kill -9 $pids
}

# The device's settings from "fnblkctl -j dev show" (a list of one
# device) as fnblk-fleet --param options (fnblk-fleet reads them only from
# a local /dev/fnblkN), so every host's events carry them for
# fnblk-analyze and fnblk-sim.
cluster_fleet_params() { # dev.json
	local kv name rest field unit v
	for kv in bw:bw fn:fn latency:latency_ns:ns overhead:overhead:B \
		grace:grace_ns:ns policy:policy users:users key:key; do
		name=${kv%%:*}
		rest=${kv#*:}
		field=${rest%%:*}
		unit=${rest#"$field"}
		unit=${unit#:}
		v=$(fnblkctl json "0.$field" <"$1") || return 1
		printf -- '--param %s=%s%s ' "$name" "$v" "$unit"
	done
}

# fnblk-fleet on every client host at once, against its /dev/nbdI, "%h"
# in an argument replaced by the host's number. Host I leaves
# OUT/hostI/events.csv, fleet.json (the summary), fleet.err and rc.
# Returns how many hosts' fleets failed.
cluster_run_fleets() { # hosts out fleet-args...
	local nh=$1 fo=$2 i bad
	shift 2
	i=0
	while [ $i -lt "$nh" ]; do
		mkdir -p "$fo/host$i"
		rm -f "$fo/host$i/rc"
		(
			for a in "$@"; do
				shift
				set -- "$@" "$(echo "$a" | sed "s/%h/$i/g")"
			done
			cluster_on $i fnblk-fleet -j --param host=$i --param hosts="$nh" "$@" \
				-o "$fo/host$i/events.csv" "/dev/nbd$i" >"$fo/host$i/fleet.json" \
				2>"$fo/host$i/fleet.err"
			echo $? >"$fo/host$i/rc"
		) &
		i=$((i + 1))
	done
	# Not "wait": the caller may have other children (a monitor).
	bad=0
	i=0
	while [ $i -lt "$nh" ]; do
		while [ ! -s "$fo/host$i/rc" ]; do sleep 0.2; done
		[ "$(cat "$fo/host$i/rc")" = 0 ] || bad=$((bad + 1))
		i=$((i + 1))
	done
	return $bad
}

# Client host I writes FILE to DEV (its /dev/nbdI by default) with O_DIRECT
# at SEEK MiB, timed: "rc seconds" into OUT, dd's messages into OUT.dd.
cluster_timed_write() { # i file seek_mib out [dev]
	local t0 rc
	t0=$(cut -d' ' -f1 /proc/uptime)
	cluster_on "$1" dd if="$2" of="${5:-/dev/nbd$1}" bs=1M seek="$3" \
		oflag=direct conv=fsync 2>"$4.dd"
	rc=$?
	echo "$rc $(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { print b - a }')" >"$4"
}

# The users of "fnblkctl -j users" that wrote: "key kthread bytes" a line.
cluster_writers() { # users.json
	local k nr w
	nr=$(fnblkctl json '#' <"$1") || return 1
	k=0
	while [ $k -lt "$nr" ]; do
		w=$(fnblkctl json $k.write_bytes <"$1")
		[ "${w:-0}" -gt 0 ] &&
			echo "$(fnblkctl json $k.key <"$1") $(fnblkctl json $k.kthread <"$1") $w"
		k=$((k + 1))
	done
	return 0
}

# The kernel's NVMe/TCP target instead of nbd-server: DEV exported on port
# 4420 by one subsystem per host (fnblk-hostI; one shared subsystem would
# be one multipath device), every one with the same fnblk device.
CLUSTER_NVMET=/sys/kernel/config/nvmet
cluster_nvmet_export() { # dev hosts
	local i s
	mkdir "$CLUSTER_NVMET/ports/1" &&
		echo tcp >"$CLUSTER_NVMET/ports/1/addr_trtype" &&
		echo ipv4 >"$CLUSTER_NVMET/ports/1/addr_adrfam" &&
		echo 0.0.0.0 >"$CLUSTER_NVMET/ports/1/addr_traddr" &&
		echo 4420 >"$CLUSTER_NVMET/ports/1/addr_trsvcid" || return 1
	i=0
	while [ $i -lt "$2" ]; do
		s=$CLUSTER_NVMET/subsystems/fnblk-host$i
		mkdir "$s" && echo 1 >"$s/attr_allow_any_host" &&
			mkdir "$s/namespaces/1" &&
			echo "$1" >"$s/namespaces/1/device_path" &&
			echo 1 >"$s/namespaces/1/enable" &&
			ln -s "$s" "$CLUSTER_NVMET/ports/1/subsystems/fnblk-host$i" || return 1
		i=$((i + 1))
	done
}

# Client host I connects to its subsystem from its namespace, with a host
# id of its own: the fabrics layer refuses a host NQN that comes with
# another host's id (EINVAL, "found same hostid").
cluster_nvmet_connect() { # i
	cluster_on "$1" sh -c "echo transport=tcp,traddr=10.77.$1.1,trsvcid=4420,nqn=fnblk-host$1,hostnqn=nqn.2026-12.fnblk:host$1,hostid=6e6f6e65-0000-4000-8000-$(printf %012d "$1") >/dev/nvme-fabrics"
}

# "I /dev/nvmeXnY" for each connected host whose disk is there.
cluster_nvmet_devs() {
	local c h n
	for c in /sys/class/nvme/nvme*; do
		h=$(cat "$c/subsysnqn" 2>/dev/null)
		case $h in
		fnblk-host*) ;;
		*) continue ;;
		esac
		n=$(ls -d "$c"/nvme*n1 2>/dev/null | head -1)
		n=${n##*/}
		# With native multipath the controller's path is nvmeScCnN,
		# hidden; its disk is the subsystem's nvmeSnN.
		case $n in
		nvme*c*n*) n=$(echo "$n" | sed 's/c[0-9]*n/n/') ;;
		esac
		[ -n "$n" ] && [ -b "/dev/$n" ] && echo "${h#fnblk-host} /dev/$n"
	done
	return 0
}

# Disconnect the hosts' controllers and remove the target's configuration.
cluster_nvmet_teardown() {
	local c s i
	for c in /sys/class/nvme/nvme*; do
		case $(cat "$c/subsysnqn" 2>/dev/null) in
		fnblk-host*) echo 1 >"$c/delete_controller" ;;
		esac
	done
	# Deleting a controller completes in the background: wait (5 s at
	# most) so that the target's side is gone before its subsystems are.
	i=0
	while grep -qs '^fnblk-host' /sys/class/nvme/nvme*/subsysnqn && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	rm -f "$CLUSTER_NVMET"/ports/1/subsystems/* 2>/dev/null
	rmdir "$CLUSTER_NVMET/ports/1" 2>/dev/null
	for s in "$CLUSTER_NVMET"/subsystems/fnblk-host*; do
		[ -d "$s" ] || continue
		echo 0 >"$s/namespaces/1/enable" 2>/dev/null
		rmdir "$s/namespaces/1" "$s" 2>/dev/null
	done
	return 0
}

# The selftests' frame (after lib_tap.sh): a scratch directory $TMP, a
# fnblk device $dev of BW MiB/s (f constant, key tgid, policy anon), and
# at exit every host and export torn down, the device deleted and, if a
# check failed, the scratch directory kept in /results/NAME.
cluster_test_begin() { # name bw_mib
	CLUSTER_TEST=$1
	TMP=$(mktemp -d "/tmp/$1.XXXXXX")
	CLUSTER_DIR=$TMP/cluster
	dev=
	trap cluster_test_end EXIT
	dev=$(fnblkctl dev add size 128MiB bw "$2MiB/s" fn constant key tgid policy anon) ||
		skip_all "cannot add a fnblk device"
}
cluster_test_end() {
	cluster_trace_stop ""
	cluster_nvmet_teardown
	cluster_teardown
	if [ "$failed" -ne 0 ] && [ -d /results ]; then
		mkdir -p "/results/$CLUSTER_TEST" && cp -r "$TMP"/* "/results/$CLUSTER_TEST/"
	fi
	[ -n "$dev" ] && fnblkctl dev del "$dev" 2>/dev/null
	rm -rf "$TMP"
}
jget() { fnblkctl json "$1" <"$2"; }

# After a run: the device's counters and users, and the serving
# processes, into DIR.
cluster_storage_collect() { # dev dir
	fnblkctl -j stats "$1" >"$2/stats.json"
	fnblkctl -j users "$1" >"$2/users.json"
	cluster_server_children >"$2/servers"
}

# The device's own record of its service: fnblk's depart tracepoint (each
# request's bytes, service time and n) and its n changes (user_active,
# user_idle), in a tracefs instance of ours so nobody else's tracing is
# touched. The instance is $CLUSTER_TRACE until cluster_trace_stop.
CLUSTER_TRACEFS=${CLUSTER_TRACEFS:-/sys/kernel/tracing}
CLUSTER_TRACE=
cluster_trace_start() { # name
	local e
	[ -d "$CLUSTER_TRACEFS/events/fnblk" ] || { cluster_log "no fnblk events in $CLUSTER_TRACEFS"; return 1; }
	CLUSTER_TRACE=$CLUSTER_TRACEFS/instances/$1
	mkdir "$CLUSTER_TRACE" || { CLUSTER_TRACE=; return 1; }
	# Room for every event of the run: ~10,000 of them, ~100 bytes each.
	echo 8192 >"$CLUSTER_TRACE/buffer_size_kb" || return 1
	# One clock for every CPU's buffer, so the trace is in event order.
	echo global >"$CLUSTER_TRACE/trace_clock" || return 1
	for e in fnblk_depart fnblk_user_active fnblk_user_idle; do
		echo 1 >"$CLUSTER_TRACE/events/fnblk/$e/enable" || return 1
	done
	echo 1 >"$CLUSTER_TRACE/tracing_on"
}
# Stop it, the trace text into OUT, the instance removed.
cluster_trace_stop() { # out
	local rc=0
	[ -n "$CLUSTER_TRACE" ] || return 0
	echo 0 >"$CLUSTER_TRACE/tracing_on"
	if [ -n "$1" ]; then
		cat "$CLUSTER_TRACE/trace" >"$1" || rc=1
		# Events dropped for want of room would make the record partial.
		cat "$CLUSTER_TRACE"/per_cpu/cpu*/stats 2>/dev/null |
			awk '$1 == "overrun:" && $2 > 0 { bad = 1 } END { exit bad }' ||
			{ cluster_log "the trace lost events (overrun)"; rc=1; }
	fi
	echo 0 >"$CLUSTER_TRACE/events/enable"
	rmdir "$CLUSTER_TRACE" || rc=1
	CLUSTER_TRACE=
	return $rc
}

# How the device served each user while exactly N users were active, from
# a trace of cluster_trace_start: "key requests bytes service_ns ideal_ns
# worst_ns" a line, where ideal = bytes / SHARE (SHARE = f(N)*B/N bytes/s)
# and worst is the largest |service - ideal| of one request. A request
# counts when n was N for all of its service (no n change from its start
# to its departure, both included) and it followed, at once, a request of
# its user that had waited for its turn (service > 0): its finish tag was
# then set one request's demand past the virtual time at its start, so
# its service is exactly demand / SHARE (the core rounds each step up to
# 1 ns; tests/sched/test_back_to_back.c checks this in the core). Requests
# that resume a user's service after a pause may start with credit (the
# share that accrued in the pause, Documentation/model.rst) and a change
# of n retroactively credits the users that stay: those are left out.
# Departures of device DEVNAME only; events of other devices are skipped.
cluster_served_at() { # trace devname n share
	local t
	t=$(mktemp "${TMPDIR:-/tmp}/served.XXXXXX") || return 1
	# The n changes' times, sorted; "key leave service bytes n" per
	# departure, by user and departure (stable: ties keep trace order).
	awk -v d="$2" -v ch="$t.ch" -v dp="$t.dp" '
	$0 ~ "fnblk_(depart|user_active|user_idle): " d " " {
		ev = ""
		split("", v)
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^fnblk_[a-z_]*:$/) ev = $i
			if (split($i, kv, "=") == 2) v[kv[1]] = kv[2]
		}
		if (ev == "fnblk_depart:")
			print v["key"], v["leave_ns"], v["service_ns"], v["bytes"], v["n"] >dp
		else
			print v["time_ns"] >ch
	}' "$1" || return 1
	touch "$t.ch" "$t.dp"
	# A first line before any time: the file is never empty (awk's
	# NR == FNR would take the departures for changes).
	{ echo -1; sort -n "$t.ch"; } >"$t.changes"
	sort -s -k1,1n -k2,2n "$t.dp" >"$t.departs"
	awk -v want="$3" -v share="$4" '
	NR == FNR { c[++nc] = $1; next }
	# Is there an n change at t with a <= t <= b? (c is sorted) One at b
	# may be what let the request go: a user leaving n releases the share
	# it held to the others at once (tests/sched/test_back_to_back.c).
	function changed(a, b,   lo, hi, mid) {
		lo = 1; hi = nc + 1
		while (lo < hi) {
			mid = int((lo + hi) / 2)
			if (c[mid] < a) lo = mid + 1; else hi = mid
		}
		return lo <= nc && c[lo] <= b
	}
	{
		key = $1; leave = $2; svc = $3; bytes = $4; n = $5
		start = leave - svc
		if (key == pkey && start == pleave && psvc > 0 && n == want &&
		    !changed(start, leave)) {
			ideal = bytes * 1e9 / share
			dev = svc - ideal
			if (dev < 0) dev = -dev
			if (!(key in cnt)) order[++nk] = key
			cnt[key]++; by[key] += bytes; sv[key] += svc; id[key] += ideal
			if (dev > worst[key]) worst[key] = dev
		}
		pkey = key; pleave = leave; psvc = svc
	}
	END {
		for (i = 1; i <= nk; i++) {
			k = order[i]
			printf "%s %d %.0f %.0f %.0f %.1f\n", k, cnt[k], by[k], sv[k], id[k], worst[k]
		}
	}' "$t.changes" "$t.departs"
	rm -f "$t" "$t.ch" "$t.dp" "$t.changes" "$t.departs"
}

# The link whose MAC address is MAC, or nothing.
cluster_link_by_mac() { # mac
	local l
	for l in /sys/class/net/*; do
		[ "$(cat "$l/address" 2>/dev/null)" = "$1" ] && { echo "${l##*/}"; return 0; }
	done
	return 1
}

# Hosts 0..N-1, each added (one-way DELAY on its link, none by default)
# and connected as /dev/nbdI.
cluster_clients_up() { # n [delay]
	local ci=0
	while [ $ci -lt "$1" ]; do
		cluster_client_add $ci "${2:-0}" && cluster_client_connect $ci || return 1
		ci=$((ci + 1))
	done
}

# Disconnect every client and remove the namespaces (nbd-server stays:
# the next hosts connect to it again).
cluster_clients_remove() {
	local d ns w
	for d in /sys/block/nbd*; do
		[ -e "$d/pid" ] || continue
		nbd-client -L -d "/dev/${d##*/}" >/dev/null 2>&1
	done
	for ns in $(ip netns list | awk '/^cl[0-9]/ { print $1 }'); do
		cluster_client_kill "${ns#cl}"
		# Until its nbd-client has exited, /dev/nbdI is still set up
		# by it and connecting the device again fails (EBUSY): wait
		# for the host's processes to go, 5 s at most.
		w=0
		while [ -n "$(ip netns pids "$ns")" ] && [ $w -lt 50 ]; do
			sleep 0.1
			w=$((w + 1))
		done
		[ $w -lt 50 ] || cluster_log "host ${ns#cl}'s processes outlived 5 s: $(ip netns pids "$ns" | tr '\n' ' ')"
		# The host's link first: deleting it removes both ends before
		# "ip link del" returns, while a deleted namespace takes its
		# veth with it only later, in the kernel's netns cleanup, and
		# adding the same host again at once would find clIs there.
		ip link del "${ns}s" 2>/dev/null
		ip netns del "$ns"
	done
}

# Disconnect every client, remove the namespaces, stop nbd-server.
cluster_teardown() {
	local p
	cluster_clients_remove
	p=$(cluster_server_pid)
	[ -z "$p" ] || kill "$p" 2>/dev/null
	rm -f "$CLUSTER_DIR/nbd-server.pid"
	return 0
}

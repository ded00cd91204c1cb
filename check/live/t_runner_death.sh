#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A test binary dies with its runner, whatever kills the runner: SIGKILL
# of the runner's process group (a CI cancel), SIGKILL of the runner
# alone, SIGHUP (an ssh session that drops). The binary runs in a session
# of its own (setsid), so none of these reaches it by itself. Within 15 s
# nothing of the run may be left: no test, no tee, no runner subshell,
# and nothing the test had set up. About 40 s.

. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || { skip "runner_death" "needs root"; t_done; }
[ -x "$BUILD_DIR/sockmap_splice" ] || { skip "runner_death" "sockmap_splice not built"; t_done; }

tmp=$(mktemp -d /tmp/zc-check-death.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
set -m

# the pid of the test binary the runner RPID started, once it runs
test_pid()
{
	local i p

	for i in $(seq 1 100); do
		p=$(pgrep -P "$1" -x sockmap_splice | head -n 1)
		[ -n "$p" ] && { echo "$p"; return 0; }
		sleep 0.1
	done
	return 1
}

# trial LABEL HOW: start a run, kill it HOW once its test runs
trial()
{
	local label=$1 how=$2 before rpid tpid group i left rc

	before=$(state)
	exec 3>&2 2>/dev/null
	ZC_DURATION=4 ZC_REPEAT=3 "$TOP/run_tests.sh" -b "$BUILD_DIR" -t sockmap_splice \
		--out "$tmp/$label" >/dev/null 2>&1 </dev/null &
	rpid=$!
	if ! tpid=$(test_pid "$rpid"); then
		kill -KILL -- -"$rpid"
		wait "$rpid"
		exec 2>&3 3>&-
		not_ok "runner_death.$label.test_started"
		return
	fi
	sleep 2
	group=$(pgrep -g "$rpid" | tr '\n' ' ')
	case $how in
	group_kill) kill -KILL -- -"$rpid" ;;
	runner_kill) kill -KILL "$rpid" ;;
	hup) kill -HUP "$rpid" ;;
	esac
	for i in $(seq 1 75); do
		[ -z "$(alive_pids "$tpid" $group)" ] && break
		sleep 0.2
	done
	left=$(alive_pids "$tpid" $group)
	wait "$rpid"
	rc=$?
	exec 2>&3 3>&-
	if [ -z "$left" ]; then
		ok "runner_death.$label.nothing_runs_on # test $tpid, runner group: $group"
	else
		# alive_pids prints one a line: ps wants them comma-separated
		not_ok "runner_death.$label.nothing_runs_on" \
			"still running 15 s after $how:" \
			"$(ps -o pid,pgid,stat,wchan:20,args -p "$(paste -sd, <<<"$left")" 2>&1)" \
			"the run's TAP ends:" "$(tail -n 5 "$tmp/$label/run.tap" 2>&1)"
		kill -KILL $left 2>/dev/null
	fi
	left=$(leaks "$before")
	if [ -z "$left" ]; then
		ok "runner_death.$label.cleaned_up"
	else
		not_ok "runner_death.$label.cleaned_up" "$left"
	fi
	if [ "$how" = hup ]; then
		expect "runner_death.hup.recorded_interrupted" \
			grep -q "^Bail out! interrupted by SIGHUP" "$tmp/$label/run.tap"
		expect "runner_death.hup.exit_129" [ "$rc" -eq 129 ]
	fi
}

trial group_kill group_kill
trial runner_kill runner_kill
# Under nohup (or any parent that ignores SIGHUP) the runner inherits
# the ignored signal and bash cannot trap it: the run is meant to
# outlive a hangup there, so there is nothing to test.
sigign=$(awk '/^SigIgn:/ { print $2 }' /proc/$$/status)
if (( 16#${sigign:-0} & 1 )); then
	skip "runner_death.hup" "SIGHUP is ignored in this environment (nohup?): the runner inherits that and cannot trap it"
else
	trial hup hup
fi
t_done

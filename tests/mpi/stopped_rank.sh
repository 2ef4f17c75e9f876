#!/bin/sh
# A rank stopped inside a collective (tests/mpi/collective_bound_test.cc, issue 44), run by ctest:
#   stopped_rank.sh MPIRUN TEST_BINARY TEST_NAME MAX_SECONDS PATTERN
# runs the DISABLED_ test TEST_NAME of suite MpiCollectiveBound under `mpirun -np 2`; the rank that
# stops itself writes its process id to a file first. Passes when the job ends with a status other
# than 0 and 124 (timeout's) within MAX_SECONDS of that, its output matches PATTERN (grep -E), and
# the stopped process is not left running (it is continued and killed here if it is).
mpirun=$1 binary=$2 name=$3 max=$4 pattern=$5
pidfile=$(mktemp) outfile=$(mktemp)
timeout 60 "$mpirun" -np 2 --oversubscribe -x HHLO_TEST_STOPPED_PID_FILE="$pidfile" "$binary" \
  --gtest_also_run_disabled_tests --gtest_filter="MpiCollectiveBound.DISABLED_$name" \
  >"$outfile" 2>&1 &
job=$!
# The moment the rank is about to stop: its process id is in the file.
while [ ! -s "$pidfile" ] && kill -0 "$job" 2>/dev/null; do sleep 0.05; done
start=$(date +%s.%N)
wait "$job"
rc=$?
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
cat "$outfile"
pid=$(cat "$pidfile")
# Alive: its /proc entry exists and it is no zombie. mpirun may return while the kill it sent is
# still being delivered: give it 3 s, then say in which state it was left.
alive() { [ -r "/proc/$1/stat" ] && ! sed 's/.*) //' "/proc/$1/stat" | grep -q '^Z'; }
left=no
i=0
while [ -n "$pid" ] && alive "$pid" && [ $i -lt 60 ]; do sleep 0.05; i=$((i + 1)); done
if [ -n "$pid" ] && alive "$pid"; then
  left="yes (state $(sed 's/.*) //' "/proc/$pid/stat" | cut -c1))"
  kill -CONT "$pid" 2>/dev/null
  kill -KILL "$pid" 2>/dev/null
fi
echo "exit status $rc, ${took} s after the rank stopped (bound ${max} s), stopped process left running: $left (waited $((i * 50)) ms for it to go)"
ok=0
[ -n "$pid" ] || { echo "FAIL: the rank never wrote its process id"; ok=1; }
{ [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; } || { echo "FAIL: exit status $rc"; ok=1; }
awk -v t="$took" -v m="$max" 'BEGIN { exit !(t <= m) }' || { echo "FAIL: took ${took} s"; ok=1; }
[ "$left" = no ] || { echo "FAIL: the stopped process was left running"; ok=1; }
grep -Eq "$pattern" "$outfile" || { echo "FAIL: no line matches: $pattern"; ok=1; }
rm -f "$pidfile" "$outfile"
exit $ok

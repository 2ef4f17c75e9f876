#!/bin/sh
# The issue-44 report as a user met it, run by ctest:
#   demo_stopped_rank.sh MPIRUN HHLO
# starts `mpirun -np 2 hhlo demo --mpi --mpi-timeout 3` for many epochs, and once rank 0 printed
# its first epoch (training runs: one allreduce per step), stops rank 1 from outside (SIGSTOP,
# as a debugger or a swapped-out node would). Passes when the job then ends within 3 s + 1 s (rank
# 0's wait for reports) + 3 s of margin with a status other than 0 and 124, one line names the
# 3 s timeout and rank 1 (whether rank 1 stopped inside the collective's MPI call or before it
# reached the collective), and rank 1 is not left running (continued and killed here if it is).
mpirun=$1 hhlo=$2 max=7
outfile=$(mktemp)
timeout 120 "$mpirun" -np 2 --oversubscribe stdbuf -oL "$hhlo" demo --mpi --mpi-timeout 3 --epochs 100000 \
  --no-progress >"$outfile" 2>&1 &
job=$!
# mpirun's child: `timeout` runs mpirun as its child; the ranks are mpirun's children.
ranks=""
i=0
while [ $i -lt 1200 ] && kill -0 "$job" 2>/dev/null; do
  grep -q '^epoch' "$outfile" && break
  sleep 0.05
  i=$((i + 1))
done
for p in $(pgrep -P "$(pgrep -P "$job")"); do
  tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1' && ranks="$p"
done
[ -n "$ranks" ] && kill -STOP "$ranks"
start=$(date +%s.%N)
wait "$job"
rc=$?
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
grep -v '^epoch' "$outfile"
# Alive: its /proc entry exists and it is no zombie. mpirun may return while the kill it sent is
# still being delivered: give it 3 s, then say in which state it was left.
alive() { [ -r "/proc/$1/stat" ] && ! sed 's/.*) //' "/proc/$1/stat" | grep -q '^Z'; }
left=no
i=0
while [ -n "$ranks" ] && alive "$ranks" && [ $i -lt 60 ]; do sleep 0.05; i=$((i + 1)); done
if [ -n "$ranks" ] && alive "$ranks"; then
  left="yes (state $(sed 's/.*) //' "/proc/$ranks/stat" | cut -c1))"
  kill -CONT "$ranks" 2>/dev/null
  kill -KILL "$ranks" 2>/dev/null
fi
echo "exit status $rc, ${took} s after rank 1 (pid $ranks) was stopped (bound ${max} s), left running: $left (waited $((i * 50)) ms for it to go)"
ok=0
[ -n "$ranks" ] || { echo "FAIL: rank 1 not found (did training start?)"; ok=1; }
{ [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; } || { echo "FAIL: exit status $rc"; ok=1; }
awk -v t="$took" -v m="$max" 'BEGIN { exit !(t <= m) }' || { echo "FAIL: took ${took} s"; ok=1; }
[ "$left" = no ] || { echo "FAIL: the stopped rank was left running"; ok=1; }
grep -Eq 'rank 1 did not reach this collective within 3 s|within 3 s .*rank 1 did not answer' \
  "$outfile" || { echo "FAIL: no line names rank 1 and the 3 s timeout"; ok=1; }
rm -f "$outfile"
exit $ok

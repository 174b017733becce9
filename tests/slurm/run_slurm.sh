#!/usr/bin/env bash
# Run the default workflow on a real single-node SLURM cluster set up on this machine, and check
# that every table, figure and page is byte-identical to a local run.
#
#   PYTHON=.venv/bin/python tests/slurm/run_slurm.sh   (as root, or with sudo in front; Debian or Ubuntu;
#                                                      from the repository root)
#
# It installs Debian's SLURM and munge packages when they are missing, starts munged (unless one
# is running), slurmctld and slurmd (state and logs under a temporary directory), runs
# `snakemake --workflow-profile profiles/slurm` on a fresh copy of the repository, and stops only
# the daemons it started. munge's key is created only if /etc/munge/munge.key is absent;
# /etc/slurm/slurm.conf is replaced for the run and whatever was there is put back after.
#
# Without an accounting database (slurmdbd) `sacct` answers nothing, so the SLURM executor is told
# to ask `squeue` for job states; squeue remembers a finished job for MinJobAge seconds, which the
# configuration raises to 600 (the plugin uses squeue only when MinJobAge is long enough).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PYTHON=${PYTHON:-$(command -v python3)}
# an absolute path now: the script later works in a fresh copy, where a relative .venv/bin/python is not
case "$PYTHON" in
    */*) PYTHON="$(cd "$(dirname "$PYTHON")" && pwd)/$(basename "$PYTHON")" ;;
    *) PYTHON=$(command -v "$PYTHON") ;;
esac
[ "$(id -u)" = 0 ] || { echo "run as root: slurmd and munged need it" >&2; exit 2; }
"$PYTHON" -c "import snakemake_executor_plugin_slurm" 2>/dev/null || {
    echo "$PYTHON has no snakemake-executor-plugin-slurm: install simgold first (pip install -e .)" >&2
    exit 2
}

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
    echo "== installing slurmctld slurmd slurm-client munge (Debian packages)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurmctld slurmd slurm-client munge >/dev/null
fi

STATE=$(mktemp -d /tmp/simgold-slurm.XXXXXX)
STARTED_MUNGE=""
PLACED_CONF=""
cleanup() {
    status=$?
    for daemon in slurmd slurmctld; do
        if [ -f "$STATE/$daemon.pid" ]; then kill "$(cat "$STATE/$daemon.pid")" 2>/dev/null || true; fi
    done
    if [ -n "$PLACED_CONF" ]; then
        rm -f /etc/slurm/slurm.conf
        if [ -e "$STATE/slurm.conf.before" ]; then mv "$STATE/slurm.conf.before" /etc/slurm/slurm.conf; fi
    fi
    if [ -n "$STARTED_MUNGE" ] && [ -f /run/munge/munged.pid ]; then kill "$(cat /run/munge/munged.pid)" 2>/dev/null || true; fi
    if [ "$status" != 0 ]; then
        echo "== failed; daemon logs and the runs are kept in $STATE" >&2
        tail -n 20 "$STATE"/*.log >&2 || true
    else
        rm -rf "$STATE"
    fi
}
trap cleanup EXIT

echo "== munge"
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
    if [ ! -f /etc/munge/munge.key ]; then
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    fi
    chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
    chmod 400 /etc/munge/munge.key
    runuser -u munge -- munged --force
    STARTED_MUNGE=1
    munge -n | unmunge >/dev/null
fi

echo "== slurm ($STATE)"
HOST=$(hostname)
CPUS=$(nproc)
MEM_MB=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 8 / 10 ))
mkdir -p "$STATE/ctld" "$STATE/d"
cat > "$STATE/slurm.conf" <<CONF
ClusterName=simgold-test
SlurmctldHost=$HOST
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/slurmctld.log
SlurmdLogFile=$STATE/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=600
NodeName=$HOST CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=debug Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
CONF
# the job steps (srun inside each batch job) read the default path, whatever SLURM_CONF said at
# submission: put the configuration there for the run, and put back whatever was there before
mkdir -p /etc/slurm
if [ -e /etc/slurm/slurm.conf ]; then mv /etc/slurm/slurm.conf "$STATE/slurm.conf.before"; fi
cp "$STATE/slurm.conf" /etc/slurm/slurm.conf
PLACED_CONF=1
slurmctld -i
slurmd
for _ in $(seq 60); do
    sinfo -h -o %t 2>/dev/null | grep -qx idle && break
    sleep 1
done
sinfo
srun -N1 -n1 true   # a first job through the whole path

copy() {  # a fresh copy of the repository: tracked files and new ones that are not ignored
    mkdir -p "$1"
    (cd "$ROOT" && git ls-files --cached --others --exclude-standard -z | tar --null -T - -cf -) | tar -xf - -C "$1"
}
copy "$STATE/on-slurm"
copy "$STATE/local"

echo "== the workflow on SLURM"
start=$(date +%s)
(cd "$STATE/on-slurm" && "$PYTHON" -m snakemake --workflow-profile profiles/slurm \
    --slurm-status-command squeue --slurm-init-seconds-before-status-checks 5 --slurm-no-account \
    --jobs 4 --latency-wait 10) 2>&1 | tee "$STATE/slurm-run.out"
echo "== SLURM run: $(( $(date +%s) - start )) s"
start=$(date +%s)
(cd "$STATE/local" && "$PYTHON" -m snakemake --cores 2 --quiet)
echo "== local run: $(( $(date +%s) - start )) s"

echo "== comparing"
(cd "$STATE/local" && find results -type f \( -name '*.parquet' -o -name '*.png' -o -name '*.html' -o -name '*.tsv' \) | sort) > "$STATE/files"
[ -s "$STATE/files" ]
differ=0
while read -r f; do
    cmp -s "$STATE/local/$f" "$STATE/on-slurm/$f" || { echo "differs: $f"; differ=1; }
done < "$STATE/files"
jobs=$(grep -c "has been submitted with SLURM jobid" "$STATE/slurm-run.out" || true)
echo "== what the jobs asked SLURM for (count, memory, time limit, CPUs):"
squeue --states=all -h -o '%m %l %C' | sort | uniq -c
[ "$differ" = 0 ] || exit 1
echo "OK: $(wc -l < "$STATE/files") files byte-identical between SLURM ($jobs jobs submitted) and local"

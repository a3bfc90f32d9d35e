// Memory of the app under test: its processes (the app and its WebKit processes, children of
// tauri-driver) and their resident and proportional set sizes, from /proc.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

function descendants(pid) {
  let out = [];
  try {
    const kids = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
    for (const k of kids) out = out.concat([k], descendants(k));
  } catch { /* no children */ }
  return out;
}

/** A file of /proc/PID, or null when the process is gone. */
export function proc(pid, file) {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null;
  }
}

/** The sum over `pids` of the kB figure `pattern` finds in each one's /proc `file`, in MB. */
function sumMb(pids, file, pattern) {
  let kb = 0;
  for (const p of pids) {
    const m = proc(p, file)?.match(pattern);
    if (m) kb += Number(m[1]);
  }
  return kb / 1024;
}

export const rssMb = (pids) => sumMb(pids, 'status', /VmRSS:\s+(\d+) kB/);
/** Proportional set size: shared pages (WebKit's and Mesa's libraries, mapped by the app and its
 *  WebKit processes alike) counted once over the processes, not once per process as RSS does. */
export const pssMb = (pids) => sumMb(pids, 'smaps_rollup', /^Pss:\s+(\d+) kB/m);

/** The largest shares of a process's PSS: anonymous memory, and each file mapped, in MB. */
export function pssParts(pid) {
  const parts = new Map();
  let name = 'anonymous';
  for (const line of (proc(pid, 'smaps') ?? '').split('\n')) {
    const head = line.match(/^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/);
    if (head) {
      name = head[1].startsWith('/') ? path.basename(head[1]) : 'anonymous';
      continue;
    }
    const pss = line.match(/^Pss:\s+(\d+) kB/);
    if (pss) parts.set(name, (parts.get(name) ?? 0) + Number(pss[1]) / 1024);
  }
  return [...parts].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([n, mb]) => `${n} ${mb.toFixed(1)}`).join(', ');
}

/** The app's processes: every descendant of tauri-driver (`driverPid`) but WebKit's WebDriver. */
export function appProcesses(driverPid) {
  return descendants(driverPid).filter((p) => {
    const comm = proc(p, 'comm');
    return comm !== null && !comm.startsWith('WebKitWebDriver');
  });
}

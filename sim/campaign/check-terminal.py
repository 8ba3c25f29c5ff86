#!/usr/bin/env python3
"""A campaign's terminal habits: on a terminal (a pty) its progress is one
line redrawn in place and every failure starts on a clean line; elsewhere a
2000-seed campaign prints a handful of plain lines; neither changes the
digest. Ctrl-C sent to qdt alone (not its workers) stops every worker,
exits 130 and prints the resume command last, which passes `bash -n` and,
run as printed, ends at the uninterrupted campaign's digest.
Usage: check-terminal.py QDT"""
import glob, json, os, pty, re, select, shutil, signal, subprocess, sys, tempfile, time

qdt = os.path.realpath(sys.argv[1])
tmp = tempfile.mkdtemp()
os.environ["PATH"] = os.path.dirname(qdt) + os.pathsep + os.environ["PATH"]


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1)


def digest(text):
    found = re.search(r"digest ([0-9a-f]{32})", text)
    if not found:
        fail("no digest in: " + text[:400])
    return found.group(1)


def on_pty(args, stdout_too):
    """Runs qdt with stderr (and stdout when asked) on a pty; returns (code, pty bytes, stdout bytes)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([qdt] + args, stdin=subprocess.DEVNULL, stderr=follower,
                            stdout=follower if stdout_too else subprocess.PIPE, cwd=tmp)
    os.close(follower)
    seen = b""
    out = b""
    streams = [leader] + ([] if stdout_too else [proc.stdout.fileno()])
    deadline = time.time() + 300
    while streams and time.time() < deadline:
        ready, _, _ = select.select(streams, [], [], 1)
        for fd in ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the pty's other end closed
                chunk = b""
            if not chunk:
                streams.remove(fd)
            elif fd == leader:
                seen += chunk
            else:
                out += chunk
    os.close(leader)
    # A sanitizer's own lines (==PID==WARNING: ... swapcontext) are not qdt's output.
    seen = re.sub(rb"(==[0-9]+==[^\n]*|False positive error reports may follow|For details see [^\n]*)\r?\n", b"", seen)
    return proc.wait(timeout=60), seen, out


reference = subprocess.run([qdt, "check", "--seeds", "300", "--quiet"], capture_output=True, text=True, cwd=tmp)
if reference.returncode != 0:
    fail("the reference campaign: exit %d" % reference.returncode)

# On a terminal: redrawn in place, never a new line; the digest is the quiet run's.
code, seen, out = on_pty(["check", "--seeds", "300", "--out", os.path.join(tmp, "tty")], stdout_too=False)
if code != 0:
    fail("the campaign on a terminal: exit %d" % code)
draws = seen.count(b"\r\x1b[K[")
if draws < 2 or b"[300/300] failures 0" not in seen:
    fail("not redrawn in place (%d draws): %r" % (draws, seen[-300:]))
if b"\n" in seen:
    fail("the progress on a terminal broke a line: %r" % seen[:300])
if not seen.endswith(b"\r\x1b[K"):
    fail("the progress line was not cleared before the summary: %r" % seen[-100:])
if digest(out.decode()) != digest(reference.stdout):
    fail("the digest on a terminal differs from the quiet run's")

# Failures and progress on one terminal: each FAIL starts at the left margin.
code, seen, _ = on_pty(["check", "--seeds", "40", "--variant", "skip-probe", "--max-shrinks", "3",
                        "--out", os.path.join(tmp, "tty fail")], stdout_too=True)
if code != 1:
    fail("the failing campaign on a terminal: exit %d" % code)
fails = [m.start() for m in re.finditer(rb"FAIL default seed", seen)]
if len(fails) != 3:
    fail("not three FAIL lines: %r" % seen[:600])
for at in fails:
    if not (seen[:at].endswith(b"\r\x1b[K") or seen[:at].endswith(b"\n")):
        fail("a FAIL line starts inside the progress line: %r" % seen[max(0, at - 80):at + 20])

# Not on a terminal: a handful of plain lines for 2000 seeds, the same digest.
started = time.monotonic()
plain = subprocess.run([qdt, "check", "--seeds", "2000"], capture_output=True, text=True, cwd=tmp)
# A line a tenth, and one more after each quiet half minute on a slow build.
most = 11 + int((time.monotonic() - started) / 30)
quiet = subprocess.run([qdt, "check", "--seeds", "2000", "--quiet"], capture_output=True, text=True, cwd=tmp)
lines = [l for l in plain.stderr.splitlines() if not re.match(r"==[0-9]+==|False positive error reports|For details see", l)]
if plain.returncode != 0 or not 1 <= len(lines) <= most:
    fail("%d progress lines for 2000 seeds (exit %d): %s" % (len(lines), plain.returncode, plain.stderr[:600]))
for line in lines:
    if not re.fullmatch(r"\[\d+/2000\] failures \d+, [0-9.]+ seeds/s(, (~|under ).* left)?", line):
        fail("not a progress line: " + line)
if not lines[-1].startswith("[2000/2000]"):
    fail("the last progress line is not the end: " + lines[-1])
if "\r" in plain.stderr or "\x1b" in plain.stderr:
    fail("terminal control characters where no terminal is")
if digest(plain.stdout) != digest(quiet.stdout):
    fail("progress lines changed the digest")

# Ctrl-C sent to qdt alone: every worker stops, exit 130, the resume line last.
campaign = ["--profile", "all", "--seeds", "200", "--jobs", "2"]
full = subprocess.run([qdt, "check"] + campaign + ["--quiet"], capture_output=True, text=True, cwd=tmp)
folder = os.path.join(tmp, "it's stopped")
err_path = os.path.join(tmp, "int.err")
with open(err_path, "wb") as err:
    # As a terminal's foreground job: SIGINT handled by default, a group of its own.
    proc = subprocess.Popen([qdt, "check"] + campaign + ["--out", folder], stdout=subprocess.DEVNULL, stderr=err,
                            cwd=tmp, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def journaled():
    total = 0
    for part in glob.glob(os.path.join(folder, "journal", "part-*.json")):
        try:
            total += len(json.load(open(part))["seeds_done"])
        except (OSError, ValueError, KeyError):
            pass
    return total


for _ in range(2400):
    if proc.poll() is not None or journaled() >= 20:
        break
    time.sleep(0.05)
if proc.poll() is not None:
    fail("the campaign ended before Ctrl-C: make it longer")
proc.send_signal(signal.SIGINT)
code = proc.wait(timeout=120)
if code != 130:
    fail("Ctrl-C: exit %d, expected 130" % code)
try:
    os.killpg(proc.pid, 0)
    time.sleep(1)
    os.killpg(proc.pid, 0)
    fail("a worker outlived the Ctrl-C")
except ProcessLookupError:
    pass
err_text = open(err_path).read()
resume = err_text.rstrip("\n").split("\n")[-1].strip()
if resume != "qdt check --resume '%s'" % folder.replace("'", "'\\''"):
    fail("Ctrl-C: the last line is not the resume command: " + err_text[-300:])
if subprocess.run(["bash", "-n", "-c", resume]).returncode != 0:
    fail("the resume line is not valid shell: " + resume)
if not glob.glob(os.path.join(folder, "journal", "part-*.json")) or glob.glob(os.path.join(folder, "journal", "*.tmp-*")):
    fail("the journal after Ctrl-C: " + str(os.listdir(os.path.join(folder, "journal"))))
resumed = subprocess.run(["bash", "-c", resume], capture_output=True, text=True, cwd=tmp)
if resumed.returncode != 0 or digest(resumed.stdout) != digest(full.stdout):
    fail("the resume command as printed (exit %d) did not end at the uninterrupted digest" % resumed.returncode)

shutil.rmtree(tmp, ignore_errors=True)
print("ok: redrawn %d times on a terminal; %d plain lines for 2000 seeds; Ctrl-C exit 130 resumed to %s"
      % (draws, len(lines), digest(full.stdout)))

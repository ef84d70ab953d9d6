#!/usr/bin/python3
"""Runs a command with its standard error on a pseudo-terminal and its standard output on a pipe,
and prints one JSON object: {"status": exit code, "stdout": text, "terminal": base64 of every byte
written to the terminal}. Standard input is /dev/null. Used by the spinner tests
(Tests/clawpairTests/DiscoverSpinnerTests.swift), which need a real terminal on stderr only.

Usage: pty_run.py [--send TEXT KEYS | --signal TEXT SIGNAL | --stop TEXT -]... COMMAND [ARG...]

With --send, --signal or --stop steps, standard input is the terminal too: once TEXT has appeared on
the terminal (after the previous step's text), KEYS are typed or SIGNAL (e.g. TERM) is sent; after
the command exits the result adds "restored": whether the terminal is back in canonical mode
with echo. --stop is job control: SIGTSTP (what Ctrl-Z sends), then, once the command has stopped,
the terminal's mode is noted and SIGCONT sent (what fg sends); "stops" lists, per --stop, whether
the terminal was in canonical mode with echo while stopped ("restoredWhileStopped") and whether it
left canonical mode again within 5 s of SIGCONT ("keysAfterContinue"). The command is killed after
30 s.
"""
import base64
import json
import os
import pty
import select
import signal
import subprocess
import sys
import termios
import threading
import time


def canonical_with_echo(fd) -> bool:
    mode = termios.tcgetattr(fd)
    return bool(mode[3] & termios.ICANON) and bool(mode[3] & termios.ECHO)


def stop_and_continue(child, slave) -> dict:
    child.send_signal(signal.SIGTSTP)
    stopped = False
    deadline = time.monotonic() + 10
    while not stopped and time.monotonic() < deadline:
        pid, status = os.waitpid(child.pid, os.WUNTRACED | os.WNOHANG)
        stopped = pid == child.pid and os.WIFSTOPPED(status)
        if not stopped:
            time.sleep(0.01)
    restored = stopped and canonical_with_echo(slave)
    child.send_signal(signal.SIGCONT)
    keys = False
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if not canonical_with_echo(slave):
            keys = True
            break
        time.sleep(0.01)
    return {"stopped": stopped, "restoredWhileStopped": restored, "keysAfterContinue": keys}


def scripted(steps, command) -> int:
    signal.signal(signal.SIGTSTP, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    master, slave = pty.openpty()
    # Job control as a shell gives its jobs: no signal blocked and SIGTSTP in its default disposition
    # (a test runner's thread may hand this script a blocked mask, which exec keeps), and its own process group, whose parent (this script) is in another group of the same session, as
    # a shell's job is: a group without one is orphaned, and the kernel does not stop those on SIGTSTP.
    child = subprocess.Popen(command, stdin=slave, stdout=subprocess.PIPE, stderr=slave, close_fds=True,
                             process_group=0)
    stdout = []
    reader = threading.Thread(target=lambda: stdout.append(child.stdout.read()))
    reader.start()
    terminal = bytearray()
    searched = 0
    stops = []
    deadline = time.monotonic() + 30
    while True:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            terminal += os.read(master, 65536)
        if steps:
            kind, text, what = steps[0]
            found = terminal.find(text.encode(), searched)
            if found >= 0:
                searched = found + len(text.encode())
                steps.pop(0)
                if kind == "send":
                    os.write(master, what.encode())
                elif kind == "stop":
                    stops.append(stop_and_continue(child, slave))
                else:
                    child.send_signal(getattr(signal, "SIG" + what))
        if child.poll() is not None and not ready:
            break
        if time.monotonic() > deadline:
            child.kill()
    restored = canonical_with_echo(slave)
    os.close(slave)
    reader.join()
    os.close(master)
    print(json.dumps({"status": child.returncode, "stdout": stdout[0].decode("utf-8", "replace"),
                      "terminal": base64.b64encode(bytes(terminal)).decode("ascii"), "restored": restored,
                      "unsent": len(steps), "stops": stops}))
    return 0


def main() -> int:
    steps = []
    args = sys.argv[1:]
    while args and args[0] in ("--send", "--signal", "--stop"):
        steps.append((args[0][2:], args[1], args[2]))
        args = args[3:]
    if steps:
        return scripted(steps, args)
    master, slave = pty.openpty()
    child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave,
                             close_fds=True)
    os.close(slave)
    stdout = []
    reader = threading.Thread(target=lambda: stdout.append(child.stdout.read()))
    reader.start()
    terminal = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every slave descriptor is closed
            break
        if not chunk:
            break
        terminal += chunk
    status = child.wait()
    reader.join()
    os.close(master)
    print(json.dumps({"status": status, "stdout": stdout[0].decode("utf-8", "replace"),
                      "terminal": base64.b64encode(bytes(terminal)).decode("ascii")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Runs a command with its standard output on a pseudo-terminal of a chosen window size, as a
user's terminal window would be, and reports what it wrote. (pty_run.py, for the spinner tests,
puts standard error on the terminal instead and sets no size.)

    pty_window.py --columns 40 [--rows 24] [--stderr-tty] [--timeout S] -- COMMAND [ARG...]

Standard input and the environment pass to COMMAND unchanged. Standard output is a new pty whose
window size (TIOCSWINSZ) is --columns by --rows; standard error is a pipe, or with --stderr-tty a
second pty of the same size, so the two streams stay apart. Both ptys are in raw mode: bytes
arrive as written (no newline translation, no echo).

Prints one JSON object: {"status": exit status (negative: killed by that signal; "timeout" when
COMMAND was killed after --timeout seconds), "stdout": text, "stderr": text}, decoded as UTF-8
with U+FFFD for invalid bytes.
"""

import argparse
import errno
import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
import tty


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--columns", type=int, required=True, help="terminal width in character cells")
    parser.add_argument("--rows", type=int, default=24, help="terminal height in lines (default 24)")
    parser.add_argument("--stderr-tty", action="store_true", help="put standard error on a pty too")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds before COMMAND is killed")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARG...]")
    args = parser.parse_args(argv)
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if not args.command:
        parser.error("no COMMAND given")
    return args


def open_pty(columns, rows):
    """A (master, slave) pty pair with the given window size, in raw mode."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    tty.setraw(slave)
    return master, slave


def read_all(fds, child, deadline):
    """Every byte from each fd until its EOF (EIO on a pty master once no slave fd is open)."""
    chunks = {fd: bytearray() for fd in fds}
    pending = set(fds)
    while pending:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            child.kill()
            return chunks, True
        readable, _, _ = select.select(list(pending), [], [], min(remaining, 0.5))
        for fd in readable:
            try:
                data = os.read(fd, 65536)
            except OSError as error:
                if error.errno != errno.EIO:
                    raise
                data = b""
            if data:
                chunks[fd] += data
            else:
                pending.discard(fd)
    return chunks, False


def main(argv):
    args = parse_args(argv)
    out_master, out_slave = open_pty(args.columns, args.rows)
    err_master, err_slave = open_pty(args.columns, args.rows) if args.stderr_tty else os.pipe()
    child = subprocess.Popen(args.command, stdout=out_slave, stderr=err_slave, close_fds=True)
    os.close(out_slave)
    os.close(err_slave)
    chunks, timed_out = read_all([out_master, err_master], child, time.monotonic() + args.timeout)
    status = child.wait()
    os.close(out_master)
    os.close(err_master)
    print(json.dumps({"status": "timeout" if timed_out else status,
                      "stdout": chunks[out_master].decode("utf-8", errors="replace"),
                      "stderr": chunks[err_master].decode("utf-8", errors="replace")}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

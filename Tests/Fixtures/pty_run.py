#!/usr/bin/python3
"""Runs a command with its standard error on a pseudo-terminal and its standard output on a pipe,
and prints one JSON object: {"status": exit code, "stdout": text, "terminal": base64 of every byte
written to the terminal}. Standard input is /dev/null. Used by the spinner tests
(Tests/clawpairTests/DiscoverSpinnerTests.swift), which need a real terminal on stderr only.

Usage: pty_run.py COMMAND [ARG...]
"""
import base64
import json
import os
import pty
import subprocess
import sys
import threading


def main() -> int:
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

#!/usr/bin/env python3
"""A local SMTP sink for the e-mail receipt test: accepts every message on a loopback port and
writes each one, exactly as received (after the SMTP envelope), to DIRECTORY/message-N.eml, with
its envelope sender and recipients in DIRECTORY/envelope-N.txt.

Listens on 127.0.0.1 at a free port and prints `port N` on one line once it accepts connections;
runs until its standard input closes (the test's end, however it ends).

    python3 scripts/smtp_sink.py DIRECTORY

Needs aiosmtpd (PyPI; installed by scripts/test.sh).
"""

import os
import socket
import sys

from aiosmtpd.controller import Controller


class Sink:
    def __init__(self, directory):
        self.directory = directory
        self.count = 0

    async def handle_DATA(self, server, session, envelope):
        number = self.count
        self.count += 1
        with open(os.path.join(self.directory, f"envelope-{number}.txt"), "w") as handle:
            handle.write("\n".join([envelope.mail_from] + list(envelope.rcpt_tos)) + "\n")
        # Written whole, then renamed: the test never reads half a message.
        path = os.path.join(self.directory, f"message-{number}.eml")
        with open(path + ".part", "wb") as handle:
            handle.write(envelope.original_content)
        os.rename(path + ".part", path)
        return "250 OK"


def main():
    directory = sys.argv[1]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(Sink(directory), hostname="127.0.0.1", port=port)
    controller.start()
    print(f"port {port}", flush=True)
    sys.stdin.read()
    controller.stop()


if __name__ == "__main__":
    main()

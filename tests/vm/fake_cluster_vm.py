#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A fake qemu for tests/vm/test_cluster_vm.sh: one VM of scripts/cluster -M vm.

From qemu's arguments, as scripts/cluster gives them: a storage VM (it has
the control port, a server chardev) listens on every client link and on
its control port, notes each link a client connects to, and waits for
the host's word on the control port; a client VM (MAC 52:54:00:77:01:II)
connects to its link. Each leaves its files in /results (a tar archive on
the scratch disk, as scripts/guest/init writes it) and prints the guest's
status line; any other VM (-M ns) leaves only its command. FAKE_FAIL_HOST=I makes client I's command fail (status 1);
FAKE_FAIL_HOST=storage makes the storage VM die without a status.
"""
import io
import os
import re
import socket
import sys
import tarfile
import threading
import time

ARGS = ' '.join(sys.argv[1:])
# "fnblkctl -j dev show" of the storage VM's device: a list of one (the
# fields read).
DEV_JSON = ('[{"id": 0, "name": "fnblk0", "bw": 16777216, "fn": "constant", '
            '"latency_ns": 200000, "overhead": 0, "grace_ns": 2000000, '
            '"key": "tgid", "policy": "anon", "users": "all"}]\n')
FAIL = os.environ.get('FAKE_FAIL_HOST', '')


def results(files):
    """Write files {name: text} as the guest's /results archive."""
    img = re.search(r'file=([^,]*results\.img)', ARGS).group(1)
    with tarfile.open(img, 'w') as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo('./' + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def run_command():
    """The guest's command line, from the run piece of the initramfs."""
    initrd = re.search(r'-initrd (\S+)', ARGS).group(1)
    with open(initrd, 'rb') as f:
        blob = f.read()
    name = b'fnblk-run/cmd\0'
    at = blob.rfind(name)
    head = at - 110                     # newc header, then the name
    size = int(blob[head + 54:head + 62], 16)
    data = (at + len(name) + 3) & ~3    # the name padded to 4 bytes
    return blob[data:data + size].decode()


def status(rc):
    print('FNBLK-VM: kernel fake, up 1.0 s, running: fake', flush=True)
    print('FNBLK-VM-EXIT: %d' % rc, flush=True)


def listener(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(('127.0.0.1', port))
    s.listen(1)
    return s


def storage(ctl_port):
    links = re.findall(r'-netdev socket,id=c(\d+),listen=127\.0\.0\.1:(\d+)', ARGS)
    socks = [(int(i), listener(int(p))) for i, p in links]
    ctl = listener(ctl_port)
    if FAIL == 'storage':
        time.sleep(1)
        sys.exit(1)
    connected = []

    def accept(i, s):
        s.accept()
        connected.append('link %d connected\n' % i)

    for i, s in socks:
        threading.Thread(target=accept, args=(i, s), daemon=True).start()
    ctl.settimeout(100)
    conn, _ = ctl.accept()
    word = conn.makefile().readline()
    time.sleep(0.2)
    results({'word': word, 'links': ''.join(sorted(connected)),
             'stats.json': '{"write_bytes": 0}\n',
             'dev.json': DEV_JSON})
    status(0)


def client():
    me = int(re.search(r'mac=52:54:00:77:01:([0-9a-f]{2})', ARGS).group(1), 16)
    port = int(re.search(r'connect=127\.0\.0\.1:(\d+)', ARGS).group(1))
    for _ in range(100):
        try:
            socket.create_connection(('127.0.0.1', port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    else:
        status(1)
        return
    events = '# fnblk-events v1\n# param bw=16MiB/s\njob,cycle,start_ns,end_ns,bytes\n'
    results({'cmd': run_command() + '\n', 'events.csv': events, 'rc': '0\n'})
    status(1 if FAIL == str(me) else 0)


def one_vm():
    """-M ns: one VM with every host; its command is all there is to see."""
    results({'cmd': run_command() + '\n'})
    status(0)


ctl = re.search(r'port=(\d+),server=on', ARGS)
if ctl:
    storage(int(ctl.group(1)))
elif 'mac=52:54:00:77:01:' in ARGS:
    client()
else:
    one_vm()

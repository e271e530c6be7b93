#!/usr/bin/env python3
# Test equipment: the system calls a project's Python code (a Python model, a plugin, a package it
# imports) could make to reach the kernel's larger surfaces from inside a run, each tried once and
# reported on one line, in the format of tests/support/fake-dbt/attacker.mjs:
#
#   attack <what>: denied <ERRNO>[ (detail)]     the call failed with that errno
#   attack <what>: ALLOWED <what it got>         the call worked
#   control <what>: ok | FAILED <why>            an ordinary call a dbt run needs
#
# Standard library only (ctypes, no compiler), so it runs under any interpreter: the stand-in dbt
# runs it with python3, and a real dbt-core project can run it from a Python model or a macro
# (`python3 sandbox-syscalls.py`, or import it and call main()). Each attempt that would change
# this process (a namespace, a personality, a tracer) is made in a forked child. Without the
# sandbox's filter, on a stock kernel, most of these are ALLOWED; the comment on each says what a
# kernel answers alone where that is a refusal too.
import ctypes
import ctypes.util
import errno
import mmap
import os
import platform
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

MACHINE = platform.machine()
# The kernel's tables: arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/unistd.h (aarch64).
NR = {
    'x86_64': {'clone': 56, 'ptrace': 101, 'syslog': 103, 'personality': 135, 'mount': 165, 'unshare': 272, 'setns': 308,
               'add_key': 248, 'request_key': 249, 'keyctl': 250, 'perf_event_open': 298, 'process_vm_readv': 310,
               'bpf': 321, 'userfaultfd': 323},
    'aarch64': {'clone': 220, 'ptrace': 117, 'syslog': 116, 'personality': 92, 'mount': 40, 'unshare': 97, 'setns': 268,
                'add_key': 217, 'request_key': 218, 'keyctl': 219, 'perf_event_open': 241, 'process_vm_readv': 270,
                'bpf': 280, 'userfaultfd': 282},
}
for _nr in NR.values():
    _nr.update({'io_uring_setup': 425, 'fsopen': 430, 'clone3': 435})

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
SIGCHLD = 17

libc = ctypes.CDLL(ctypes.util.find_library('c') or 'libc.so.6', use_errno=True)
libc.syscall.restype = ctypes.c_long


def say(line):
    sys.stdout.write(line + '\n')
    sys.stdout.flush()


def refused(e):
    return 'denied %s' % (errno.errorcode.get(e, str(e)))


def sys_call(name, *args):
    """A raw system call: (result, errno). The numbers are this machine's."""
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(NR[MACHINE][name]), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return r, (ctypes.get_errno() if r == -1 else 0)


def in_child(fn):
    """Runs fn() in a forked child and answers the line it returned (a crash is reported as such)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            out = fn()
        except BaseException as e:  # noqa: BLE001 - the child must always exit
            out = 'error %r' % (e,)
        os.write(w, out.encode())
        os._exit(0)
    os.close(w)
    data = b''
    while True:
        chunk = os.read(r, 4096)
        if not chunk:
            break
        data += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return 'denied (killed by %s)' % signal.Signals(os.WTERMSIG(status)).name
    return data.decode() or 'error (no answer)'


def outcome(name, *args, ok='ALLOWED'):
    r, e = sys_call(name, *args)
    return refused(e) if r == -1 else '%s %d' % (ok, r)


# ─── New namespaces ──────────────────────────────────────────────────────────────────────────

def try_unshare_user():
    return outcome('unshare', CLONE_NEWUSER)


def try_unshare_command():
    try:
        p = subprocess.run(['unshare', '-Ur', 'id'], capture_output=True, text=True, timeout=30)
    except FileNotFoundError:
        return 'skipped (no unshare program)'
    if p.returncode == 0:
        return 'ALLOWED %s' % p.stdout.strip().split(' ')[0]
    last = (p.stderr.strip().splitlines() or ['exit %d' % p.returncode])[-1]
    code = 'EPERM' if 'not permitted' in last else 'ENOSPC' if 'No space left' in last else 'EXIT%d' % p.returncode
    return 'denied %s (%s)' % (code, last)


def try_clone_newuser():
    r, e = sys_call('clone', CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)
    if r == 0:
        os._exit(0)
    if r == -1:
        return refused(e)
    os.waitpid(r, 0)
    return 'ALLOWED child %d' % r


def try_clone3_newuser():
    # struct clone_args (CLONE_ARGS_SIZE_VER0): flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls.
    args = ctypes.create_string_buffer(struct.pack('8Q', CLONE_NEWUSER, 0, 0, 0, SIGCHLD, 0, 0, 0), 64)
    r, e = sys_call('clone3', args, 64)
    if r == 0:
        os._exit(0)
    if r == -1:
        return refused(e)
    os.waitpid(r, 0)
    return 'ALLOWED child %d' % r


def try_setns():
    # Alone, the kernel answers EINVAL: a process may not re-enter its own user namespace.
    fd = os.open('/proc/self/ns/user', os.O_RDONLY)
    try:
        return outcome('setns', fd, CLONE_NEWUSER)
    finally:
        os.close(fd)


def try_mount_in_new_namespace():
    r, e = sys_call('unshare', CLONE_NEWUSER | CLONE_NEWNS)
    if r == -1:
        return '%s (unshare)' % refused(e)
    r, e = sys_call('mount', ctypes.c_char_p(b'none'), ctypes.c_char_p(b'/tmp'), ctypes.c_char_p(b'tmpfs'), 0, 0)
    return '%s (mount)' % refused(e) if r == -1 else 'ALLOWED tmpfs mounted on /tmp'


def try_mount():
    # Alone, the kernel answers EPERM too here (no capability in the sandbox's namespace).
    return outcome('mount', ctypes.c_char_p(b'none'), ctypes.c_char_p(b'/tmp'), ctypes.c_char_p(b'tmpfs'), 0, 0)


def try_fsopen():
    # Alone, the kernel answers EPERM too here (no capability in the sandbox's namespace).
    return outcome('fsopen', ctypes.c_char_p(b'tmpfs'), 0)


# ─── Other processes ─────────────────────────────────────────────────────────────────────────

def with_sleeping_child(fn):
    secret = ctypes.create_string_buffer(b'the memory of another process', 64)
    pid = os.fork()
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    try:
        return fn(pid, secret)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def try_ptrace_attach():
    PTRACE_ATTACH = 16
    return with_sleeping_child(lambda pid, _: outcome('ptrace', PTRACE_ATTACH, pid, 0, 0, ok='ALLOWED attached, result'))


def try_process_vm_readv():
    def read(pid, secret):
        buf = ctypes.create_string_buffer(64)
        local = struct.pack('QQ', ctypes.addressof(buf), 64)
        remote = struct.pack('QQ', ctypes.addressof(secret), 64)
        r, e = sys_call('process_vm_readv', pid, ctypes.create_string_buffer(local, 16), 1, ctypes.create_string_buffer(remote, 16), 1, 0)
        return refused(e) if r == -1 else 'ALLOWED read %r' % buf.value[:16]
    return with_sleeping_child(read)


# ─── The kernel's own facilities ─────────────────────────────────────────────────────────────

KEY_SPEC_PROCESS_KEYRING = -2


def try_add_key():
    return outcome('add_key', ctypes.c_char_p(b'user'), ctypes.c_char_p(b'tributary-probe'), ctypes.c_char_p(b'x'), 1, KEY_SPEC_PROCESS_KEYRING, ok='ALLOWED key')


def try_keyctl():
    KEYCTL_JOIN_SESSION_KEYRING = 1
    return outcome('keyctl', KEYCTL_JOIN_SESSION_KEYRING, 0, ok='ALLOWED keyring')


def try_request_key():
    # Alone, the kernel answers ENOKEY.
    return outcome('request_key', ctypes.c_char_p(b'user'), ctypes.c_char_p(b'tributary-probe'), 0, 0)


def try_bpf():
    # Alone, a kernel with kernel.unprivileged_bpf_disabled set (most distributions) answers EPERM too.
    insns = ctypes.create_string_buffer(struct.pack('<BBhiBBhi', 0xb7, 0, 0, 0, 0x95, 0, 0, 0), 16)  # r0 = 0; exit
    license_ = ctypes.create_string_buffer(b'GPL')
    attr = ctypes.create_string_buffer(struct.pack('<IIQQIIQI', 1, 2, ctypes.addressof(insns), ctypes.addressof(license_), 0, 0, 0, 0), 128)
    BPF_PROG_LOAD = 5
    return outcome('bpf', BPF_PROG_LOAD, attr, 128, ok='ALLOWED program')


def try_perf_event_open():
    # struct perf_event_attr: type, size, config, ..., flags (disabled, exclude_kernel, exclude_hv) at 40.
    attr = bytearray(128)
    struct.pack_into('<IIQ', attr, 0, 1, 128, 1)  # PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK
    struct.pack_into('<Q', attr, 40, 1 | (1 << 5) | (1 << 6))
    buf = ctypes.create_string_buffer(bytes(attr), 128)
    return outcome('perf_event_open', buf, 0, -1, -1, 8, ok='ALLOWED counter')


def try_userfaultfd():
    UFFD_USER_MODE_ONLY = 1
    return outcome('userfaultfd', os.O_CLOEXEC | UFFD_USER_MODE_ONLY, ok='ALLOWED fd')


def try_io_uring():
    params = ctypes.create_string_buffer(120)
    return outcome('io_uring_setup', 1, params, ok='ALLOWED ring')


def try_personality():
    ADDR_NO_RANDOMIZE = 0x0040000
    return outcome('personality', ADDR_NO_RANDOMIZE, ok='ALLOWED (was)')


def try_syslog():
    # Alone, a kernel with kernel.dmesg_restrict set answers EPERM too.
    SYSLOG_ACTION_SIZE_BUFFER = 10
    return outcome('syslog', SYSLOG_ACTION_SIZE_BUFFER, 0, 0, ok='ALLOWED log size')


def try_socket(family, kind):
    try:
        s = socket.socket(family, kind)
    except OSError as e:
        return refused(e.errno)
    s.close()
    return 'ALLOWED socket'


def try_i386_unshare():
    # `int 0x80` from a 64-bit process enters the kernel's i386 table: unshare is 310 there.
    # push rbx; mov eax, 310; mov ebx, CLONE_NEWUSER; int 0x80; pop rbx; ret
    code = bytes([0x53, 0xb8, 0x36, 0x01, 0, 0, 0xbb, 0, 0, 0, 0x10, 0xcd, 0x80, 0x5b, 0xc3])
    page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    fn = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
    r = fn()
    return 'ALLOWED' if r == 0 else refused(-r)


ATTACKS = [
    ('unshare(CLONE_NEWUSER)', lambda: in_child(try_unshare_user)),
    ('unshare -Ur id', try_unshare_command),
    ('clone(CLONE_NEWUSER)', lambda: in_child(try_clone_newuser)),
    ('clone3(CLONE_NEWUSER)', lambda: in_child(try_clone3_newuser)),
    ('setns(own user namespace)', try_setns),
    ('mount tmpfs in a new user namespace', lambda: in_child(try_mount_in_new_namespace)),
    ('mount tmpfs', try_mount),
    ('fsopen(tmpfs)', try_fsopen),
    ('ptrace(PTRACE_ATTACH) a child', try_ptrace_attach),
    ("process_vm_readv a child's memory", try_process_vm_readv),
    ('add_key(user key)', lambda: in_child(try_add_key)),
    ('keyctl(join a new session keyring)', lambda: in_child(try_keyctl)),
    ('request_key', try_request_key),
    ('bpf(BPF_PROG_LOAD)', try_bpf),
    ('perf_event_open(task clock)', try_perf_event_open),
    ('userfaultfd(user mode only)', try_userfaultfd),
    ('io_uring_setup', try_io_uring),
    ('personality(ADDR_NO_RANDOMIZE)', lambda: in_child(try_personality)),
    ('syslog(kernel log size)', try_syslog),
    ('socket(AF_VSOCK)', lambda: try_socket(40, socket.SOCK_STREAM)),
    ('socket(AF_PACKET)', lambda: try_socket(17, socket.SOCK_RAW)),
    ('socket(AF_ALG)', lambda: try_socket(38, socket.SOCK_SEQPACKET)),
]
if MACHINE == 'x86_64':
    ATTACKS.append(('i386 unshare(CLONE_NEWUSER) through int 0x80', lambda: in_child(try_i386_unshare)))


# ─── What a run still needs ──────────────────────────────────────────────────────────────────

def control_fork():
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    _, status = os.waitpid(pid, 0)
    return 'ok' if os.WEXITSTATUS(status) == 7 else 'FAILED exit %d' % os.WEXITSTATUS(status)


def control_thread():
    seen = []
    t = threading.Thread(target=lambda: seen.append(threading.get_ident()))
    t.start()
    t.join()
    return 'ok' if seen else 'FAILED the thread did not run'


def control_subprocess():
    p = subprocess.run([sys.executable, '-c', 'print(6 * 7)'], capture_output=True, text=True, timeout=60)
    return 'ok' if p.stdout.strip() == '42' else 'FAILED %r' % (p.stderr.strip(),)


def control_sockets():
    for family in (socket.AF_UNIX, socket.AF_INET, socket.AF_INET6):
        try:
            socket.socket(family, socket.SOCK_STREAM).close()
        except OSError as e:
            if not (family == socket.AF_INET6 and e.errno == errno.EAFNOSUPPORT):
                return 'FAILED family %d: %s' % (family, errno.errorcode.get(e.errno))
    a, b = socket.socketpair()
    a.sendall(b'x')
    got = b.recv(1)
    a.close()
    b.close()
    return 'ok' if got == b'x' else 'FAILED socketpair'


def control_personality_query():
    r, e = sys_call('personality', 0xffffffff)
    return 'ok' if r != -1 else 'FAILED %s' % errno.errorcode.get(e)


CONTROLS = [
    ('fork', control_fork),
    ('thread', control_thread),
    ('subprocess', control_subprocess),
    ('unix and ip sockets', control_sockets),
    ('personality query', control_personality_query),
]


def main():
    if MACHINE not in NR:
        say('attack machine %s: skipped (this script knows x86_64 and aarch64)' % MACHINE)
        return
    for what, fn in ATTACKS:
        try:
            say('attack %s: %s' % (what, fn()))
        except Exception as e:  # noqa: BLE001 - one line per attempt, whatever happens
            say('attack %s: error %r' % (what, e))
    for what, fn in CONTROLS:
        try:
            say('control %s: %s' % (what, fn()))
        except Exception as e:  # noqa: BLE001
            say('control %s: FAILED %r' % (what, e))
    say('syscall attacks done')


if __name__ == '__main__':
    main()

"""Which names the playground answers requests addressed to: the Host check that keeps a site whose name is
made to point at this machine (DNS rebinding) from reaching it, on any address it listens on."""

from __future__ import annotations

import ipaddress
import socket

LOCAL_NAMES = ("127.0.0.1", "localhost", "::1")
ANY = ("0.0.0.0", "::", "")  # addresses that mean every address of the machine: they name no host


def allowed_hosts(host: str, extra: list[str]) -> list[str]:
    """The names requests may be addressed to: this machine's loopback names, the address listened on (not a
    wildcard, which names no host), this machine's names and addresses when it listens beyond loopback, and
    the names given (--allow-host)."""
    names = list(LOCAL_NAMES)
    if host not in ANY:
        names.append(host)
    if not is_loopback(host):
        names += machine_names()
    return list(dict.fromkeys(n.lower() for n in names + list(extra) if n))


def machine_names() -> list[str]:
    """This machine's host names and the addresses they resolve to (as a browser on the network names it)."""
    names = [socket.gethostname(), socket.getfqdn()]
    for name in list(names):
        try:
            canonical, aliases, addresses = socket.gethostbyname_ex(name)
        except OSError:
            continue
        names += [canonical, *aliases, *addresses]
    return names


def is_loopback(host: str) -> bool:
    """Whether an address to listen on is this machine's only (127.x.x.x, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False

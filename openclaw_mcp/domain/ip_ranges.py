"""Which IP literals and hosts the reference counts as loopback or private (its ``ip.ts`` and ``gateway/net.ts``
over the special ranges of the ipaddr.js it bundles), defined once for every caller.

An address's *range* is the first special range, in ipaddr.js's order, that holds it (``unicast`` when none
does). Only canonical literals count: four-part dotted-decimal IPv4 or IPv6 without a zone; a URL's hostname is
already canonical (the WHATWG parser rewrites ``127.1``, ``0x7f.1`` and ``[::127.0.0.1]``).
"""

from __future__ import annotations

import ipaddress
import re
from typing import Final

__all__ = [
    "ip_range",
    "is_loopback_host",
    "is_loopback_ip",
    "is_private_or_loopback_host",
    "is_private_or_loopback_ip",
    "normalize_ip",
    "parse_canonical_ip",
]

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _nets(*cidrs: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(cidr) for cidr in cidrs)


# ipaddr.js SpecialRanges, in its order (the first match names the range)
_V4_RANGES: Final = (
    ("unspecified", _nets("0.0.0.0/8")),
    ("broadcast", _nets("255.255.255.255/32")),
    ("multicast", _nets("224.0.0.0/4")),
    ("linkLocal", _nets("169.254.0.0/16")),
    ("loopback", _nets("127.0.0.0/8")),
    ("carrierGradeNat", _nets("100.64.0.0/10")),
    ("private", _nets("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")),
    (
        "reserved",
        _nets(
            "192.0.0.0/24",
            "192.0.2.0/24",
            "192.88.99.0/24",
            "198.18.0.0/15",
            "198.51.100.0/24",
            "203.0.113.0/24",
            "240.0.0.0/4",
        ),
    ),
    ("as112", _nets("192.175.48.0/24", "192.31.196.0/24")),
    ("amt", _nets("192.52.193.0/24")),
)
_V6_RANGES: Final = (
    ("unspecified", _nets("::/128")),
    ("linkLocal", _nets("fe80::/10")),
    ("multicast", _nets("ff00::/8")),
    ("loopback", _nets("::1/128")),
    ("uniqueLocal", _nets("fc00::/7")),
    ("ipv4Mapped", _nets("::ffff:0:0/96")),
    ("deprecatedSiteLocal", _nets("fec0::/10")),
    ("discard", _nets("100::/64")),
    ("rfc6145", _nets("::ffff:0:0:0/96")),
    ("rfc6052", _nets("64:ff9b::/96", "64:ff9b:1::/48")),
    ("6to4", _nets("2002::/16")),
    ("teredo", _nets("2001::/32")),
    ("benchmarking", _nets("2001:2::/48")),
    ("amt", _nets("2001:3::/32")),
    ("as112v6", _nets("2001:4:112::/48", "2620:4f:8000::/48")),
    ("deprecatedOrchid", _nets("2001:10::/28")),
    ("orchid2", _nets("2001:20::/28")),
    ("droneRemoteIdProtocolEntityTags", _nets("2001:30::/28")),
    ("segmentRouting", _nets("5f00::/16")),
    ("reserved", _nets("2001::/23", "2001:db8::/32", "3fff::/20")),
)
_PRIVATE_OR_LOOPBACK_V4: Final = frozenset({"loopback", "private", "linkLocal", "carrierGradeNat"})
_BLOCKED_V6: Final = frozenset(
    {
        "unspecified",
        "loopback",
        "linkLocal",
        "uniqueLocal",
        "multicast",
        "reserved",
        "benchmarking",
        "discard",
        "orchid2",
    }
)
_CLOUD_METADATA: Final = frozenset({"100.100.100.200", "fd00:ec2::254"})
_FOUR_PART_DECIMAL: Final = re.compile(r"(?:0|[1-9][0-9]{0,2})(?:\.(?:0|[1-9][0-9]{0,2})){3}")


def parse_canonical_ip(text: str) -> Address | None:
    """A four-part dotted-decimal IPv4 or an IPv6 literal (brackets allowed, no zone); ``None`` otherwise."""
    raw = text.strip()
    if raw.startswith("[") and raw.endswith("]"):
        raw = raw[1:-1]
    try:
        if _FOUR_PART_DECIMAL.fullmatch(raw):
            return ipaddress.IPv4Address(raw)
        if ":" in raw and "%" not in raw:
            return ipaddress.IPv6Address(raw)
    except ValueError:
        return None
    return None


def ip_range(address: Address) -> str:
    """ipaddr.js ``range()``: the name of the first special range holding ``address``, else ``unicast``."""
    table = _V4_RANGES if isinstance(address, ipaddress.IPv4Address) else _V6_RANGES
    for name, networks in table:
        if any(address in network for network in networks):
            return name
    return "unicast"


def _unmapped(address: Address) -> Address:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _hextets(address: ipaddress.IPv6Address) -> list[int]:
    value = int(address)
    return [(value >> (112 - 16 * i)) & 0xFFFF for i in range(8)]


def _v4(high: int, low: int) -> ipaddress.IPv4Address:
    return ipaddress.IPv4Address((high << 16) | low)


def _is_local_use_nat64(address: ipaddress.IPv6Address) -> bool:
    """RFC 8215 local-use NAT64, ``64:ff9b:1::/48``."""
    parts = _hextets(address)
    return parts[0] == 0x64 and parts[1] == 0xFF9B and parts[2] == 1


def _embedded_v4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address inside a mapped, translated, NAT64, 6to4, Teredo, IPv4-compatible or ISATAP address."""
    parts = _hextets(address)
    kind = ip_range(address)
    if kind in ("ipv4Mapped", "rfc6145"):
        return _v4(parts[6], parts[7])
    if kind == "rfc6052":
        return None if _is_local_use_nat64(address) else _v4(parts[6], parts[7])
    if kind == "6to4":
        return _v4(parts[1], parts[2])
    if kind == "teredo":
        return _v4(parts[6] ^ 0xFFFF, parts[7] ^ 0xFFFF)
    ipv4_compatible = not any(parts[:6])
    isatap = (parts[4] & 0xFCFF) == 0 and parts[5] == 0x5EFE
    return _v4(parts[6], parts[7]) if ipv4_compatible or isatap else None


def _is_cloud_metadata(address: Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_v4(address)
        if embedded is not None and str(embedded) in _CLOUD_METADATA:
            return True
    return str(address) in _CLOUD_METADATA


def _is_blocked_special_v6(address: ipaddress.IPv6Address) -> bool:
    if _is_local_use_nat64(address) or _is_cloud_metadata(address) or ip_range(address) in _BLOCKED_V6:
        return True
    return (_hextets(address)[0] & 0xFFC0) == 0xFEC0


def normalize_ip(text: str) -> str | None:
    """The canonical text of an IP literal, an IPv4-mapped IPv6 address as its IPv4; ``None`` for a non-literal."""
    address = parse_canonical_ip(text)
    return None if address is None else str(_unmapped(address)).lower()


def is_loopback_ip(text: str) -> bool:
    """A canonical literal in a loopback range (IPv4-mapped included)."""
    address = parse_canonical_ip(text)
    return address is not None and ip_range(_unmapped(address)) == "loopback"


def is_private_or_loopback_ip(text: str) -> bool:
    """Loopback, RFC 1918, link-local or CGNAT IPv4 (also embedded in IPv6), or a blocked special-use IPv6 —
    except RFC 8215 local-use NAT64, from which no private destination can be inferred."""
    parsed = parse_canonical_ip(text)
    if parsed is None:
        return False
    address = _unmapped(parsed)
    if isinstance(address, ipaddress.IPv4Address):
        return ip_range(address) in _PRIVATE_OR_LOOPBACK_V4
    if _is_local_use_nat64(address):
        return False
    if _is_blocked_special_v6(address):
        return True
    embedded = _embedded_v4(address)
    return embedded is not None and ip_range(embedded) in _PRIVATE_OR_LOOPBACK_V4


def _host_for_checks(host: str) -> tuple[bool, str]:
    """(is ``localhost``, the host without brackets), lower-cased."""
    lowered = host.strip().lower()
    if lowered.rstrip(".") == "localhost":
        return True, "localhost"
    if lowered.startswith("[") and lowered.endswith("]"):
        return False, lowered[1:-1]
    return False, lowered


def is_loopback_host(host: str) -> bool:
    """``localhost`` (trailing dots allowed) or a loopback literal."""
    localhost, bare = _host_for_checks(host)
    return localhost or is_loopback_ip(bare)


def is_private_or_loopback_host(host: str) -> bool:
    """``localhost`` or a private/loopback literal; never the IPv6 unspecified or a multicast address."""
    localhost, bare = _host_for_checks(host)
    if localhost:
        return True
    normalized = normalize_ip(bare)
    if normalized is None or not is_private_or_loopback_ip(normalized):
        return False
    return not (":" in normalized and (normalized.startswith("ff") or normalized == "::"))

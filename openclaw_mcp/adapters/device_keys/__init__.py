"""Ed25519 device keys for the Gateway client, shared by every device identity store adapter and the client.

The keys are PEM-encoded as Node exports them (and ``cryptography`` writes them): PKCS#8 ``PRIVATE KEY`` and
SPKI ``PUBLIC KEY``, each one base64 line. Keys in exactly that canonical form are handled through the
interpreter's own ``libcrypto`` (:mod:`._libcrypto`), so ``openclaw mcp serve`` does not import
``cryptography`` (~8 MiB resident); any other encoding, and an OpenSSL that cannot do it, goes through
``cryptography`` (imported then), with its results and errors.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from typing import TYPE_CHECKING

from openclaw_mcp.adapters.device_keys import _libcrypto
from openclaw_mcp.application.ports.gateway import DeviceIdentity

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

__all__ = ["generate_device_identity", "key_pair_public_bytes", "public_key_raw", "sign"]

_PRIVATE_LABEL = "PRIVATE KEY"
_PUBLIC_LABEL = "PUBLIC KEY"
_PKCS8_PREFIX = bytes.fromhex("302e020100300506032b657004220420")
"""PKCS#8 v1 ``PrivateKeyInfo`` of an Ed25519 key (OID 1.3.101.112) up to the 32-byte seed."""
_SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")
"""``SubjectPublicKeyInfo`` of an Ed25519 key up to the 32-byte public key."""


def _pem(label: str, der: bytes) -> str:
    # one line: the DER forms here are 44 and 48 bytes (60 and 64 base64 characters)
    return f"-----BEGIN {label}-----\n{base64.b64encode(der).decode('ascii')}\n-----END {label}-----\n"


def _canonical_key(pem: str, label: str, prefix: bytes) -> bytes | None:
    """The raw 32-byte key of a canonical one-line PEM of ``label`` whose DER is ``prefix`` + key; ``None``
    for anything else (left to ``cryptography``)."""
    head, tail = f"-----BEGIN {label}-----\n", f"\n-----END {label}-----"
    if not pem.startswith(head):
        return None
    body = pem[len(head) :].removesuffix("\n")
    if not body.endswith(tail):
        return None
    encoded = body[: -len(tail)]
    try:
        der = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(der) != len(prefix) + _libcrypto.ED25519_KEY_BYTES or not der.startswith(prefix):
        return None
    if base64.b64encode(der).decode("ascii") != encoded:
        return None  # non-canonical base64 (padding bits): left to cryptography's parser
    return der[len(prefix) :]


def _canonical_private(pem: str) -> bytes | None:
    return _canonical_key(pem, _PRIVATE_LABEL, _PKCS8_PREFIX)


def _canonical_public(pem: str) -> bytes | None:
    return _canonical_key(pem, _PUBLIC_LABEL, _SPKI_PREFIX)


def _libcrypto_public_key(seed: bytes) -> bytes | None:
    lib = _libcrypto.libcrypto_handle()
    if lib is None:
        return None
    try:
        return lib.public_key(seed)
    except _libcrypto.LibcryptoUnavailable:
        return None


# --- the cryptography fallback -----------------------------------------------------------------------------


def _load_private_key(private_key_pem: str) -> Ed25519PrivateKey | None:
    """``cryptography``'s reading of a private key PEM (its errors propagate); ``None``: not Ed25519."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = serialization.load_pem_private_key(private_key_pem.encode("utf-8"), password=None)
    return key if isinstance(key, Ed25519PrivateKey) else None


def _public_raw_by_cryptography(public_key_pem: str) -> bytes | None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    key = serialization.load_pem_public_key(public_key_pem.encode("utf-8"))
    if not isinstance(key, Ed25519PublicKey):
        return None
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def _generate_by_cryptography() -> DeviceIdentity:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    private_key = Ed25519PrivateKey.generate()
    public_key = private_key.public_key()
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return DeviceIdentity(
        device_id=hashlib.sha256(raw).hexdigest(),
        public_key_pem=public_key.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ).decode("ascii"),
        private_key_pem=private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode("ascii"),
    )


# --- the operations ------------------------------------------------------------------------------------------


def generate_device_identity() -> DeviceIdentity:
    """A fresh Ed25519 identity: SPKI / PKCS#8 PEM (as Node exports them) and the SHA-256 device id."""
    seed = os.urandom(_libcrypto.ED25519_KEY_BYTES)  # an Ed25519 private key is 32 random bytes
    raw = _libcrypto_public_key(seed)
    if raw is None:
        return _generate_by_cryptography()
    return DeviceIdentity(
        device_id=hashlib.sha256(raw).hexdigest(),
        public_key_pem=_pem(_PUBLIC_LABEL, _SPKI_PREFIX + raw),
        private_key_pem=_pem(_PRIVATE_LABEL, _PKCS8_PREFIX + seed),
    )


def public_key_raw(public_key_pem: str) -> bytes:
    """The raw 32 bytes of an Ed25519 public key PEM; ``ValueError`` when it is another kind of key
    (``cryptography``'s errors for an unreadable PEM)."""
    raw = _canonical_public(public_key_pem)
    if raw is not None:
        return raw
    raw = _public_raw_by_cryptography(public_key_pem)
    if raw is None:
        raise ValueError("device public key is not an Ed25519 key")
    return raw


def sign(private_key_pem: str, data: bytes) -> bytes:
    """The Ed25519 signature of ``data``; ``ValueError`` when the PEM holds another kind of key
    (``cryptography``'s errors for an unreadable PEM)."""
    seed = _canonical_private(private_key_pem)
    if seed is not None:
        lib = _libcrypto.libcrypto_handle()
        if lib is not None:
            try:
                return lib.sign(seed, data)
            except _libcrypto.LibcryptoUnavailable:
                pass
    key = _load_private_key(private_key_pem)
    if key is None:
        raise ValueError("device private key is not an Ed25519 key")
    return key.sign(data)


def key_pair_public_bytes(public_key_pem: str, private_key_pem: str) -> tuple[bytes, bytes] | None:
    """``(stored, derived)``: the raw public key of ``public_key_pem`` and the one derived from
    ``private_key_pem``; ``None`` when either is not an Ed25519 key. Both PEMs are read (``cryptography``'s
    errors propagate, the public key's first) before the kinds are checked."""
    stored, seed = _canonical_public(public_key_pem), _canonical_private(private_key_pem)
    if stored is not None and seed is not None:
        derived = _libcrypto_public_key(seed)
        if derived is not None:
            return stored, derived
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

    public_key = serialization.load_pem_public_key(public_key_pem.encode("utf-8"))
    private_key = serialization.load_pem_private_key(private_key_pem.encode("utf-8"), password=None)
    if not isinstance(public_key, Ed25519PublicKey) or not isinstance(private_key, Ed25519PrivateKey):
        return None
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return raw, private_key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)

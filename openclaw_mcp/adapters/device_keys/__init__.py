"""Ed25519 device keys for the Gateway client, shared by every device identity store adapter."""

from __future__ import annotations

import hashlib

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from openclaw_mcp.application.ports.gateway import DeviceIdentity

__all__ = ["generate_device_identity"]


def generate_device_identity() -> DeviceIdentity:
    """A fresh Ed25519 identity: SPKI / PKCS#8 PEM (as Node exports them) and the SHA-256 device id."""
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

"""Ed25519 device keys (adapters.device_keys): the interpreter's libcrypto path gives ``cryptography``'s
results byte for byte (Ed25519 signatures are deterministic), and everything else falls back to
``cryptography`` with its results and errors."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ec import SECP256R1, generate_private_key
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from openclaw_mcp.adapters import device_keys
from openclaw_mcp.adapters.device_keys import _libcrypto

# The reference's identity (see test_device_identity): Node's PEM forms.
REFERENCE_DEVICE_ID = "b2e925467928f2a67f8f53120762852f32a4836dc8f59c81b8bb111a0fab5291"
REFERENCE_PUBLIC_PEM = (
    "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAQwlW9vbVp/9EKXUCkul7KGHQ+ZtOl3eOwM1w2ozT/0g=\n"
    "-----END PUBLIC KEY-----\n"
)
REFERENCE_PRIVATE_PEM = (
    "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIF7KoA4urcbVM7zlOXl4rlJOOx+m84oedHcQsDiyNjry\n"
    "-----END PRIVATE KEY-----\n"
)

SEEDS = [bytes(32), bytes(range(32)), b"\xff" * 32, *(hashlib.sha256(str(i).encode()).digest() for i in range(20))]
MESSAGES = [
    b"",
    b"x",
    b"\x00\x00nul bytes\x00",
    b"v3|dev|cli|ui|operator|operator.read,operator.write|1767225600000|tok|nonce|linux|linux",
    os.urandom(4096),
    bytes(range(256)) * 40,
]


def private_pem(key: Ed25519PrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def public_pem(key: Ed25519PublicKey) -> str:
    return key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


@pytest.fixture
def libcrypto() -> _libcrypto.Libcrypto:
    lib = _libcrypto.libcrypto_handle()
    if lib is None:  # pragma: no cover - every supported build has OpenSSL >= 1.1.1 behind _hashlib
        pytest.skip("no usable libcrypto behind _hashlib")
    return lib


@pytest.fixture
def no_libcrypto(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_libcrypto, "libcrypto_handle", lambda: None)


# --- the libcrypto primitives against cryptography ----------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_libcrypto_public_key_and_signatures_equal_cryptography(libcrypto: _libcrypto.Libcrypto, seed: bytes) -> None:
    key = Ed25519PrivateKey.from_private_bytes(seed)
    assert libcrypto.public_key(seed) == raw_public(key.public_key())
    for message in MESSAGES:
        assert libcrypto.sign(seed, message) == key.sign(message)


def test_libcrypto_rejects_a_wrong_seed_length(libcrypto: _libcrypto.Libcrypto) -> None:
    with pytest.raises(ValueError):
        libcrypto.sign(bytes(31), b"x")


def test_libcrypto_is_loaded_once() -> None:
    assert _libcrypto.libcrypto_handle() is _libcrypto.libcrypto_handle()


def test_a_refused_operation_raises_unavailable_and_clears_the_error_queue(libcrypto: _libcrypto.Libcrypto) -> None:
    lib = _libcrypto.Libcrypto.__new__(_libcrypto.Libcrypto)
    lib.__dict__.update(libcrypto.__dict__)
    cleared: list[bool] = []
    lib._new_raw_private_key = lambda *args: None
    lib._clear_errors = lambda: cleared.append(True)
    with pytest.raises(_libcrypto.LibcryptoUnavailable):
        lib.sign(bytes(32), b"x")
    assert cleared == [True]


def test_no_hashlib_extension_means_no_libcrypto(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "_hashlib", None)  # import _hashlib -> ImportError
    assert _libcrypto._open() is None


def test_missing_symbols_mean_no_libcrypto() -> None:
    class NoSymbols:
        def __getattr__(self, name: str) -> object:
            raise AttributeError(name)

    with pytest.raises(AttributeError):
        _libcrypto.Libcrypto(NoSymbols())


# --- the module's operations, both paths -------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS[:6])
@pytest.mark.parametrize("path", ["libcrypto", "cryptography"])
def test_sign_and_public_key_equal_cryptography(
    seed: bytes, path: str, monkeypatch: pytest.MonkeyPatch, libcrypto: _libcrypto.Libcrypto
) -> None:
    if path == "cryptography":
        monkeypatch.setattr(_libcrypto, "libcrypto_handle", lambda: None)
    key = Ed25519PrivateKey.from_private_bytes(seed)
    private, public = private_pem(key), public_pem(key.public_key())
    assert device_keys._canonical_private(private) == seed
    for message in MESSAGES:
        assert device_keys.sign(private, message) == key.sign(message)
    assert device_keys.public_key_raw(public) == raw_public(key.public_key())
    assert device_keys.key_pair_public_bytes(public, private) == (raw_public(key.public_key()),) * 2


def test_sign_falls_back_when_libcrypto_refuses(
    monkeypatch: pytest.MonkeyPatch, libcrypto: _libcrypto.Libcrypto
) -> None:
    def refuse(seed: bytes, data: bytes) -> bytes:
        raise _libcrypto.LibcryptoUnavailable("refused")

    monkeypatch.setattr(libcrypto, "sign", refuse)
    key = Ed25519PrivateKey.from_private_bytes(SEEDS[3])
    assert device_keys.sign(private_pem(key), b"payload") == key.sign(b"payload")


def test_the_reference_identity(libcrypto: _libcrypto.Libcrypto) -> None:
    stored, derived = device_keys.key_pair_public_bytes(REFERENCE_PUBLIC_PEM, REFERENCE_PRIVATE_PEM) or (b"", b"")
    assert stored == derived
    assert hashlib.sha256(stored).hexdigest() == REFERENCE_DEVICE_ID
    key = serialization.load_pem_private_key(REFERENCE_PRIVATE_PEM.encode(), password=None)
    assert isinstance(key, Ed25519PrivateKey)
    assert device_keys.sign(REFERENCE_PRIVATE_PEM, b"hello") == key.sign(b"hello")


@pytest.mark.parametrize("path", ["libcrypto", "cryptography"])
def test_generated_identities_are_what_cryptography_writes(
    path: str, monkeypatch: pytest.MonkeyPatch, libcrypto: _libcrypto.Libcrypto
) -> None:
    if path == "cryptography":
        monkeypatch.setattr(_libcrypto, "libcrypto_handle", lambda: None)
    identities = [device_keys.generate_device_identity() for _ in range(5)]
    assert len({identity.device_id for identity in identities}) == 5
    for identity in identities:
        key = serialization.load_pem_private_key(identity.private_key_pem.encode(), password=None)
        assert isinstance(key, Ed25519PrivateKey)
        assert private_pem(key) == identity.private_key_pem
        assert public_pem(key.public_key()) == identity.public_key_pem
        assert hashlib.sha256(raw_public(key.public_key())).hexdigest() == identity.device_id


def test_non_canonical_pems_go_to_cryptography(libcrypto: _libcrypto.Libcrypto) -> None:
    key = Ed25519PrivateKey.from_private_bytes(SEEDS[5])
    private, public = private_pem(key), public_pem(key.public_key())
    variants = [
        (private.replace("\n", "\r\n"), public.replace("\n", "\r\n")),
        (private.rstrip("\n"), public.rstrip("\n")),
        ("\n" + private, "\n" + public),
    ]
    for private_variant, public_variant in variants:
        assert device_keys.sign(private_variant, b"m") == key.sign(b"m")
        assert device_keys.public_key_raw(public_variant) == raw_public(key.public_key())
        assert device_keys.key_pair_public_bytes(public_variant, private_variant) == (raw_public(key.public_key()),) * 2
    # CRLF and a leading newline are not the canonical form
    assert device_keys._canonical_private(variants[0][0]) is None
    assert device_keys._canonical_public(variants[2][1]) is None


def test_other_key_kinds_and_garbage_raise_as_cryptography_does(libcrypto: _libcrypto.Libcrypto) -> None:
    ec_key = generate_private_key(SECP256R1())
    ec_private = ec_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    ec_public = (
        ec_key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    with pytest.raises(ValueError, match="not an Ed25519 key"):
        device_keys.sign(ec_private, b"m")
    with pytest.raises(ValueError, match="not an Ed25519 key"):
        device_keys.public_key_raw(ec_public)
    ed = Ed25519PrivateKey.from_private_bytes(SEEDS[0])
    assert device_keys.key_pair_public_bytes(ec_public, private_pem(ed)) is None
    assert device_keys.key_pair_public_bytes(public_pem(ed.public_key()), ec_private) is None
    broken = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEI!!!\n-----END PRIVATE KEY-----\n"
    assert device_keys._canonical_private(broken) is None
    with pytest.raises(ValueError):
        device_keys.sign(broken, b"m")
    with pytest.raises(ValueError):
        device_keys.key_pair_public_bytes(public_pem(ed.public_key()), broken)
    # a canonical-looking PEM with a non-canonical last base64 character: cryptography decides
    public = public_pem(ed.public_key())
    last = public.index("=") - 1
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    tweaked = public[:last] + alphabet[alphabet.index(public[last]) | 1] + public[last + 1 :]
    assert tweaked != public
    assert device_keys._canonical_public(tweaked) is None
    try:
        expected: object = raw_public(serialization.load_pem_public_key(tweaked.encode()))  # type: ignore[arg-type]
    except ValueError as exc:
        expected = type(exc)
    try:
        got: object = device_keys.public_key_raw(tweaked)
    except ValueError as exc:
        got = type(exc)
    assert got == expected


def test_serve_modules_do_not_import_cryptography() -> None:
    code = (
        "import sys\n"
        "import openclaw_mcp.adapters.ws, openclaw_mcp.adapters.sqlite.device_identity\n"
        "from openclaw_mcp.adapters import device_keys\n"
        "identity = device_keys.generate_device_identity()\n"
        "device_keys.key_pair_public_bytes(identity.public_key_pem, identity.private_key_pem)\n"
        "device_keys.sign(identity.private_key_pem, b'x')\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] in ('cryptography', '_cffi_backend')))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"

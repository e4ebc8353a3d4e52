"""Ed25519 through the OpenSSL ``libcrypto`` the interpreter has already loaded for ``hashlib`` (``_hashlib``).

``cryptography`` ships its own OpenSSL: importing it costs ~8 MiB of resident memory, a fifth of what
``openclaw mcp serve`` needs in all, for two operations on 32-byte keys. OpenSSL ≥ 1.1.1 offers both through
``EVP_PKEY_new_raw_private_key`` / ``EVP_PKEY_get_raw_public_key`` / ``EVP_DigestSign`` (Ed25519 is
deterministic: the signatures are those ``cryptography`` makes, byte for byte); ``ctypes`` reaches them through
the ``_hashlib`` extension's handle (``dlsym`` searches a library's dependencies), ~0.5 MiB in all.

:func:`libcrypto_handle` returns ``None`` when that is not possible (no ``_hashlib``/``ctypes``, an OpenSSL without the
symbols); a call that OpenSSL refuses (e.g. no Ed25519 in a FIPS-only provider set) raises
:class:`LibcryptoUnavailable`. Either way the caller falls back to ``cryptography``.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["ED25519_KEY_BYTES", "ED25519_SIGNATURE_BYTES", "Libcrypto", "LibcryptoUnavailable", "libcrypto_handle"]

ED25519_KEY_BYTES = 32
ED25519_SIGNATURE_BYTES = 64
_EVP_PKEY_ED25519 = 1087
"""``NID_ED25519`` (OpenSSL's ``obj_mac.h``; the same in every version that has it)."""


class LibcryptoUnavailable(Exception):
    """OpenSSL refused an operation (its error queue is cleared)."""


class Libcrypto:
    """The few ``libcrypto`` functions used, with their C signatures declared."""

    def __init__(self, lib: Any) -> None:
        import ctypes

        self._ctypes = ctypes
        void_p, size_t = ctypes.c_void_p, ctypes.c_size_t
        size_p = ctypes.POINTER(size_t)
        self._new_raw_private_key = self._function(
            lib, "EVP_PKEY_new_raw_private_key", void_p, [ctypes.c_int, void_p, ctypes.c_char_p, size_t]
        )
        self._get_raw_public_key = self._function(
            lib, "EVP_PKEY_get_raw_public_key", ctypes.c_int, [void_p, ctypes.c_char_p, size_p]
        )
        self._pkey_free = self._function(lib, "EVP_PKEY_free", None, [void_p])
        self._md_ctx_new = self._function(lib, "EVP_MD_CTX_new", void_p, [])
        self._md_ctx_free = self._function(lib, "EVP_MD_CTX_free", None, [void_p])
        self._digest_sign_init = self._function(
            lib, "EVP_DigestSignInit", ctypes.c_int, [void_p, void_p, void_p, void_p, void_p]
        )
        self._digest_sign = self._function(
            lib, "EVP_DigestSign", ctypes.c_int, [void_p, ctypes.c_char_p, size_p, ctypes.c_char_p, size_t]
        )
        self._clear_errors = self._function(lib, "ERR_clear_error", None, [])

    @staticmethod
    def _function(lib: Any, name: str, restype: Any, argtypes: list[Any]) -> Any:
        function = getattr(lib, name)  # AttributeError: an OpenSSL without it
        function.restype = restype
        function.argtypes = argtypes
        return function

    def _fail(self, what: str) -> LibcryptoUnavailable:
        self._clear_errors()  # leave no error for _hashlib / _ssl to report later on this thread
        return LibcryptoUnavailable(what)

    def _private_key(self, seed: bytes) -> int:
        if len(seed) != ED25519_KEY_BYTES:
            raise ValueError("an Ed25519 private key is 32 bytes")
        pkey: int | None = self._new_raw_private_key(_EVP_PKEY_ED25519, None, seed, len(seed))
        if not pkey:
            raise self._fail("EVP_PKEY_new_raw_private_key failed")
        return pkey

    def public_key(self, seed: bytes) -> bytes:
        """The raw public key of the raw private key ``seed``."""
        ctypes = self._ctypes
        pkey = self._private_key(seed)
        try:
            out = ctypes.create_string_buffer(ED25519_KEY_BYTES)
            length = ctypes.c_size_t(ED25519_KEY_BYTES)
            if self._get_raw_public_key(pkey, out, ctypes.byref(length)) != 1 or length.value != ED25519_KEY_BYTES:
                raise self._fail("EVP_PKEY_get_raw_public_key failed")
            return bytes(out.raw)
        finally:
            self._pkey_free(pkey)

    def sign(self, seed: bytes, data: bytes) -> bytes:
        """The Ed25519 signature of ``data`` with the raw private key ``seed``."""
        ctypes = self._ctypes
        pkey = self._private_key(seed)
        try:
            ctx: int | None = self._md_ctx_new()
            if not ctx:
                raise self._fail("EVP_MD_CTX_new failed")
            try:
                if self._digest_sign_init(ctx, None, None, None, pkey) != 1:
                    raise self._fail("EVP_DigestSignInit failed")
                out = ctypes.create_string_buffer(ED25519_SIGNATURE_BYTES)
                length = ctypes.c_size_t(ED25519_SIGNATURE_BYTES)
                if (
                    self._digest_sign(ctx, out, ctypes.byref(length), data, len(data)) != 1
                    or length.value != ED25519_SIGNATURE_BYTES
                ):
                    raise self._fail("EVP_DigestSign failed")
                return bytes(out.raw)
            finally:
                self._md_ctx_free(ctx)
        finally:
            self._pkey_free(pkey)


_lock = threading.Lock()
_loaded: list[Libcrypto | None] = []


def _open() -> Libcrypto | None:
    try:
        import _hashlib
        import ctypes

        path = getattr(_hashlib, "__file__", None)
        if not path:
            return None  # built into the interpreter: no handle to search
        return Libcrypto(ctypes.CDLL(path))
    except (ImportError, OSError, AttributeError):
        return None


def libcrypto_handle() -> Libcrypto | None:
    """The interpreter's ``libcrypto`` (looked up once), or ``None`` when it cannot do Ed25519 this way."""
    with _lock:
        if not _loaded:
            _loaded.append(_open())
        return _loaded[0]

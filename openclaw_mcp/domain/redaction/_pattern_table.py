"""The reference's built-in secret patterns as JavaScript regex sources: ``NAME=value`` assignments,
JSON and config keys, CLI flags, ``Authorization`` and API-key headers, ``Bearer`` tokens, URL
passwords, PEM private keys, and vendor token prefixes. Imported on first redaction only."""

from __future__ import annotations

__all__ = ["B64", "BASE64_GUARD", "FIELD_SOURCES", "IDENT", "VENDOR_SOURCES"]

_PAY_ENV = (
    "CARD[_-]?NUMBER|CARD[_-]?CVC|CARD[_-]?CVV|CVC|CVV|SECURITY[_-]?CODE|PAYMENT[_-]?CREDENTIAL"
    "|SHARED[_-]?PAYMENT[_-]?TOKEN"
)
_PAY_QUERY = (
    "card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential"
    "|shared[-_]?payment[-_]?token"
)
_PAY_JSON = (
    "cardNumber|card_number|cardCvc|card_cvc|cardCvv|card_cvv|cvc|cvv|securityCode|security_code"
    "|paymentCredential|payment_credential|sharedPaymentToken|shared_payment_token"
)
_AWS_FIELD = "aws[-_]?secret[-_]?access[-_]?key|awsSecretAccessKey|SecretAccessKey"
_AUTH_QUERY_KEYS = (
    "access[-_]?token|auth[-_]?token|hook[-_]?token|refresh[-_]?token|id[-_]?token|api[-_]?key|apikey"
    f"|client[-_]?secret|app[-_]?secret|private[-_]?key|{_AWS_FIELD}|credential|authorization|token|key"
    "|secret|password|pass|passwd|auth|jwt|session|code|signature"
    "|x[-_]?amz[-_]?(?:signature|security[-_]?token)"
)
_STANDALONE_KEYS = (
    "access_token|refresh_token|id_token|auth[-_]?token|hook[-_]?token|api[-_]?key|client[-_]?secret"
    "|app[-_]?secret|private[-_]?key|authorization|jwt|token|secret|password|pass|passwd|credential"
    f"|{_PAY_QUERY}"
)
_CONFIG_KEYS = (
    "access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)"
    "|client[-_]?secret|app[-_]?secret|private[-_]?key|secret[-_]?key|key[-_]?material|authorization"
    f"|jwt|token|secret|password|passphrase|pass|passwd|credential|{_PAY_QUERY}"
)
_CONFIG_QUOTED_KEYS = (
    "access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)"
    "|secret[-_]?key|key[-_]?material|authorization|jwt|token|secret|password|passphrase|pass|passwd"
    f"|{_PAY_QUERY}"
)
_CONFIG_DIRECT_KEYS = (
    "access-token|refresh-token|id-token|auth-token|hook-token|api[-_]?(?:key|secret)|secret[-_]?key"
    "|key[-_]?material|passphrase"
)
_PREFIXED_PASSWORD_KEYS = "password|passphrase|pass|passwd"
_CLI_FLAG_KEYS = (
    f"{_AWS_FIELD}|api[-_]?key|hook[-_]?token|access[-_]?token|refresh[-_]?token|id[-_]?token|token"
    f"|secret|password|passwd|credential|private[-_]?key|client[-_]?secret|{_PAY_QUERY}"
)
_JSON_SECRET_KEYS = (
    "apiKey|api_key|apiToken|api_token|bearerToken|bearer_token|token|secret|password|passwd"
    f"|{_AWS_FIELD}|credential|authorization|proxy-authorization|cookie|set-cookie|x-api-key"
    "|x-auth-token|accessToken|access_token|refreshToken|refresh_token|idToken|id_token|authToken"
    "|auth_token|clientSecret|client_secret|privateKey|private_key|secret_value|raw_secret"
    "|secret_input|key_material"
)
_JS_SER_QUOTE = "(?:\\\\{1,64}[\"']|[\"']|)"
_JS_SER_TAB = "\\\\{1,64}t"
_JS_SER_INDENT = f"(?:[ \\t]+|{_JS_SER_TAB})"
_JS_WS_TAIL = (
    f"[ \\t]*\\r?\\n{_JS_SER_INDENT}|[ \\t]*\\\\{{1,64}}r\\\\{{1,64}}n{_JS_SER_INDENT}"
    f"|[ \\t]*\\\\{{1,64}}n{_JS_SER_INDENT}|[ \\t]*{_JS_SER_TAB}[ \\t]*"
)
_JS_OPT_WS = f"(?:{_JS_WS_TAIL}|[ \\t]*)"
_JS_REQ_WS = f"(?:{_JS_WS_TAIL}|[ \\t]+)"
_JS_LEGACY_WS = (
    f"(?:[ \\t\\r\\n]*|[ \\t]*\\\\{{1,64}}r\\\\{{1,64}}n(?:[ \\t]*|{_JS_SER_TAB})"
    f"|[ \\t]*\\\\{{1,64}}n(?:[ \\t]*|{_JS_SER_TAB})|[ \\t]*{_JS_SER_TAB}[ \\t]*)"
)
_JS_HEADER_BOUNDARY = "(^|[^A-Za-z0-9_-]|\\\\{1,64}[rn])"
_JS_LOG_BOUNDARY = "(^|[^A-Za-z0-9_?&-]|\\\\{1,64}[rn])"
_JS_CREDENTIAL = "((?:\\[REDACTED\\]|[^\\s\\\\\"',;&#?<>)}\\]]+))"
_JS_SCHEME = "[A-Za-z0-9!#$%&'*+.^_`|~-]+"
_JS_HEADER_END = f"[ \\t]*(?={_JS_SER_QUOTE}(?:$|[,;)}}\\]]|\\r?\\n(?![ \\t])))"
_JS_NOT_SPECIAL_SCHEME = f"(?!(?:Bearer|Basic|Bot)(?={_JS_REQ_WS}))"
_CREDENTIAL_HEADER_KEYS = "x-goog-api-key|api-key|apikey|x-api-token|x-access-token"
_GATEWAY_HEADER_KEYS = "X-OpenClaw-Token|x-pomerium-jwt-assertion|X-Api-Key|X-Auth-Token"
BASE64_GUARD = "(?<!;base64,[A-Za-z0-9+/=]*)"
B64 = "(^|[^A-Za-z0-9])" + BASE64_GUARD
IDENT = "(^|[^A-Za-z0-9_])"


def _authorization(scheme: str) -> str:
    return f"Authorization{_JS_SER_QUOTE}[ \\t]*[:=]{_JS_LEGACY_WS}{_JS_SER_QUOTE}{scheme}{_JS_REQ_WS}{_JS_CREDENTIAL}"


def _header(name: str, *, scheme: bool, until_end: bool) -> str:
    head = f"{_JS_HEADER_BOUNDARY}{name}{_JS_SER_QUOTE}[ \\t]*[:=]{_JS_OPT_WS}{_JS_SER_QUOTE}"
    if name == "Authorization":
        head += _JS_NOT_SPECIAL_SCHEME
    if scheme:
        return f"{head}{_JS_SCHEME}{_JS_REQ_WS}{_JS_CREDENTIAL}"
    return f"{head}{_JS_CREDENTIAL}{_JS_HEADER_END}" if until_end else head


def _credential_style(separator: str) -> str:
    return (
        f"{_JS_LOG_BOUNDARY}(?:{_CREDENTIAL_HEADER_KEYS}){_JS_SER_QUOTE}[ \\t]*{separator}{_JS_OPT_WS}"
        f"{_JS_SER_QUOTE}([^\\s\\\\\"',;]+)"
    )


# (source, case-sensitive?, flags): flags in {"shell", "form", "chunk-unsafe"}
FIELD_SOURCES: list[tuple[str, bool, frozenset[str]]] = [
    (
        f"\\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|{_PAY_ENV})\\b\\s*[=:]\\s*([\"']?)([^\\s\"'\\\\]+)\\1",
        True,
        frozenset({"shell"}),
    ),
    (
        f"\\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|{_PAY_ENV})\\b\\s*[=:]\\s*\\\\+([\"'])"
        "([^\\s\"'\\\\]+)\\\\+\\1",
        True,
        frozenset({"shell"}),
    ),
    (f'"(?:{_JSON_SECRET_KEYS})"\\s*:\\s*"([^"]+)"', False, frozenset()),
    (f'"(?:{_PAY_JSON})"\\s*:\\s*"([^"]+)"', False, frozenset()),
    (
        "(^|[\\s,{])[\"']?(?:api[-_]key|access[-_]token|refresh[-_]token|id[-_]token|authToken"
        "|auth[-_]token|clientSecret|client[-_]secret|appSecret|app[-_]secret|private[-_]key|credential"
        "|authorization|secret[-_]value|raw[-_]secret|secret[-_]input|key[-_]material)[\"']?\\s*[:=]\\s*"
        "([\"'])([^\"'\\r\\n]+)\\2",
        False,
        frozenset(),
    ),
    (
        "(^|[\\s,{])[\"']?(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token)"
        "[\"']?\\s*[:=]\\s*([\"'])([^\"'\\r\\n]+)\\2",
        False,
        frozenset(),
    ),
    (f"--(?:{_CLI_FLAG_KEYS})=([^\\s\"']+)", False, frozenset()),
    (f"--(?:{_CLI_FLAG_KEYS})\\s+(?!(?:or|and)\\b(?=\\s+--))([\"']?)([^\\s\"']+)\\1", False, frozenset()),
    (_authorization("Bearer"), False, frozenset({"chunk-unsafe"})),
    (_authorization("Basic"), False, frozenset({"chunk-unsafe"})),
    (_authorization("Bot"), False, frozenset({"chunk-unsafe"})),
    (_header("Proxy-Authorization", scheme=True, until_end=False), False, frozenset({"chunk-unsafe"})),
    (_header("Proxy-Authorization", scheme=False, until_end=True), False, frozenset({"chunk-unsafe"})),
    (_header("Authorization", scheme=True, until_end=False), False, frozenset({"chunk-unsafe"})),
    (_header("Authorization", scheme=False, until_end=True), False, frozenset({"chunk-unsafe"})),
    (_credential_style(":"), False, frozenset({"chunk-unsafe"})),
    (_credential_style("="), False, frozenset({"chunk-unsafe", "form"})),
    (f"{_JS_LOG_BOUNDARY}(?:{_GATEWAY_HEADER_KEYS})\\s*:\\s*([^\\s\"',;]+)", False, frozenset()),
    (f"{_JS_LOG_BOUNDARY}(?:{_GATEWAY_HEADER_KEYS})\\s*=\\s*([^\\s\"',;]+)", False, frozenset({"form"})),
    ("\\bBearer\\s+([-A-Za-z0-9._~+/=]{18,})(?![-A-Za-z0-9._~+/=])", False, frozenset({"chunk-unsafe"})),
    ("\\b(?:https?|wss?|ftp):\\/\\/[^\\/\\s:@]*:([^\\/\\s@]+)@", False, frozenset()),
    (
        "\\b(?:postgres(?:ql)?|mysql|mongodb(?:\\+srv)?|rediss?|amqps?):\\/\\/[^:\\s/@]*:([^@\\s]+)@",
        False,
        frozenset(),
    ),
    (
        f"(^|[\\s,;])(?:{_AUTH_QUERY_KEYS}|app[-_]?secret|credential|{_PAY_QUERY})=([^&\\s]+)"
        "(?=&[A-Za-z_][A-Za-z0-9_.-]*=)",
        False,
        frozenset(),
    ),
    (
        f'(^|[\\s,;({{\\["])(?:{_STANDALONE_KEYS})=(["\'\\x60])((?:(?!\\2)[^\\r\\n])+)\\2',
        False,
        frozenset({"shell"}),
    ),
    (
        f'(^|[\\s,;({{\\["])(?:{_STANDALONE_KEYS})=(["\'\\x60]?[^\\s&#"\'\\x60<>]+)',
        False,
        frozenset({"shell"}),
    ),
    (
        f"(^|[\\s,{{])(?:(?:{_CONFIG_QUOTED_KEYS})(?:\\s*:\\s*|\\s+=\\s*|=\\s*)"
        f"|[a-z0-9][a-z0-9._-]{{0,79}}[-_](?:{_PREFIXED_PASSWORD_KEYS})\\s*[:=]\\s*"
        f"|[a-z0-9_.-]{{1,80}}\\.(?:{_CONFIG_KEYS})\\s*[:=]\\s*)([\"'\\x60])((?:(?!\\2)[^\\r\\n])+)\\2",
        True,
        frozenset(),
    ),
    (f"(^|[\\s,{{])(?:{_CONFIG_KEYS})(?:\\s*:\\s*|\\s+=\\s*|=\\s+)([^\\s#\"'\\x60<>]+)", True, frozenset()),
    (f"(^|[\\s,{{])(?:{_CONFIG_DIRECT_KEYS})=([^\\s#\"'\\x60<>]+)", True, frozenset()),
    (
        f"(^|[\\s,{{])[a-z0-9][a-z0-9._-]{{0,79}}[-_](?:{_PREFIXED_PASSWORD_KEYS})\\s*[:=]\\s*([^\\s#\"'\\x60<>]+)",
        True,
        frozenset(),
    ),
    (
        f"(^|[\\s,{{])[a-z0-9_.-]{{1,80}}\\.(?:{_CONFIG_KEYS})\\s*[:=]\\s*([^\\s#\"'\\x60<>]+)",
        True,
        frozenset(),
    ),
    ("-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]+?-----END [A-Z ]*PRIVATE KEY-----", False, frozenset()),
    (
        f"(^|[\\s,{{])[\"']?(?:{_AWS_FIELD})[\"']?\\s*[:=]\\s*([\"']?)([A-Za-z0-9/+=]{{40}})(?![A-Za-z0-9/+=])\\2",
        False,
        frozenset(),
    ),
]

VENDOR_SOURCES: list[str] = [
    "\\b(sk-[A-Za-z0-9_-]{8,})\\b",
    "(ghp_[A-Za-z0-9]{10,})",
    "(github_pat_[A-Za-z0-9_]{10,})",
    "(gho_[A-Za-z0-9]{10,})",
    "(ghu_[A-Za-z0-9]{10,})",
    "(ghs_[A-Za-z0-9]{10,})",
    "(ghr_[A-Za-z0-9]{10,})",
    "(glpat-[A-Za-z0-9._=\\-]{20,})",
    "(gloas-(?:[A-Fa-f0-9]{65,}|[A-Za-z0-9_-]{64}|[A-Fa-f0-9]{32,}))",
    "(gldt-[A-Za-z0-9_-]{20,})",
    "(glcbt-[A-Za-z0-9]{1,5}_[A-Za-z0-9_-]{20,})",
    "(glptt-[A-Za-z0-9_-]{40,})",
    "(glft-(?:[A-Za-z0-9_-]{20,}|[a-h0-9]+-[0-9]+_))",
    "(glimt-[A-Za-z0-9_-]{25,})",
    "(glagent-[A-Za-z0-9_-]{50,})",
    "(glwt-[A-Za-z0-9_-]{20,})",
    "(glsoat-[A-Za-z0-9_-]{20,})",
    "(glffct-[A-Za-z0-9_-]{20,})",
    "(glrt-[A-Za-z0-9._-]{20,})",
    "(glrtr?-[A-Za-z0-9_-]{27,300}\\.[0-9a-z]{2}\\.[0-9a-z]{9})",
    "(GR1348941[A-Za-z0-9_-]{20,})",
    "(_gitlab_session=[A-Za-z0-9%._-]{20,})",
    "(xox[baprs]-[A-Za-z0-9-]{10,})",
    "(xapp-[A-Za-z0-9-]{10,})",
    "(https:\\/\\/hooks\\.slack\\.com\\/(?:services\\/T[A-Z0-9]+\\/B[A-Z0-9]+"
    "|workflows\\/T[A-Z0-9]+\\/A[A-Z0-9]+\\/[0-9]{17,19})\\/[A-Za-z0-9]{20,})",
    "(https:\\/\\/discord(?:app)?\\.com\\/api\\/webhooks\\/[0-9]{17,20}\\/[A-Za-z0-9_-]{60,})",
    "discord(?:.|\\n|\\r){0,40}?\\b([A-Za-z0-9_-]{24}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27})\\b",
    "(gsk_[A-Za-z0-9_-]{10,})",
    "(AIza[0-9A-Za-z\\-_]{20,})",
    "(ya29\\.[0-9A-Za-z_\\-./+=]{10,})",
    "(1//0[0-9A-Za-z_\\-./+=]{10,})",
    "(eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,})",
    "(pplx-[A-Za-z0-9_-]{10,})",
    "(fal_[A-Za-z0-9_-]{10,})",
    f"{IDENT}(fc-[A-Za-z0-9]{{10,}})",
    "(bb_live_[A-Za-z0-9_-]{10,})",
    f"{B64}(gAAAA[A-Za-z0-9_=-]{{20,}})",
    "(sk_live_[A-Za-z0-9]{10,})",
    "(sk_test_[A-Za-z0-9]{10,})",
    "(rk_live_[A-Za-z0-9]{10,})",
    "(SG\\.[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,})",
    "(npm_[A-Za-z0-9]{10,})",
    "(pypi-[A-Za-z0-9_-]{10,})",
    "(dop_v1_[A-Za-z0-9]{10,})",
    "(doo_v1_[A-Za-z0-9]{10,})",
    "(dor_v1_[A-Za-z0-9]{10,})",
    "(dp\\.(?:ct|pt|sa|scim|audit)\\.[A-Za-z0-9]{40,44})",
    "(dp\\.st\\.[A-Za-z0-9]{40,44})",
    "(dp\\.st\\.[a-z0-9_-]{2,35}\\.[A-Za-z0-9]{40,44})",
    "(dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,32})",
    "(bkua_[a-z0-9]{40})",
    "(CCIPAT_[A-Za-z0-9]{22}_[A-Fa-f0-9]{40})",
    "(sbp_[a-z0-9]{40})",
    f"{B64}(dapi[0-9a-f]{{32}}(?:-\\d)?)",
    "(dd[pw]_[A-Za-z0-9]{36})",
    "(glsa_[A-Za-z0-9_]{41})",
    "(glc_eyJ[A-Za-z0-9+/=]{60,160})",
    "(nfp_[A-Za-z0-9_]{36})",
    "(CFPAT-[A-Za-z0-9_\\-]{40,})",
    f"{B64}(ATCTT3xFfG[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{{8}})",
    f"{B64}(ATATT[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{{8}})",
    f"{B64}(ATBB[A-Za-z0-9_=.-]{{16,}})",
    "(BBDC-[A-Za-z0-9+/@_-]{40,50})",
    "(HRKU-AA[A-Za-z0-9_-]{20,})",
    "(pat-(?:eu|na)1-[A-Za-z0-9]{8}\\-[A-Za-z0-9]{4}\\-[A-Za-z0-9]{4}\\-[A-Za-z0-9]{4}\\-[A-Za-z0-9]{12})",
    "(apify_api_[A-Za-z0-9\\-]{20,})",
    "(FlyV1 fm\\d+_[A-Za-z0-9+/=,_-]{100,})",
    "(fio-u-[A-Za-z0-9_-]{40,})",
    "(^|[^A-Za-z0-9_])(am_[A-Za-z0-9_-]{10,})",
    "(^|[^A-Za-z0-9_])(sk_[A-Za-z0-9_]{10,})",
    "(tvly-[A-Za-z0-9]{10,})",
    "(exa_[A-Za-z0-9]{10,})",
    "(syt_[A-Za-z0-9]{10,})",
    "(retaindb_[A-Za-z0-9]{10,})",
    "(hsk-[A-Za-z0-9]{10,})",
    "(mem0_[A-Za-z0-9]{10,})",
    "(brv_[A-Za-z0-9]{10,})",
    "(xai-[A-Za-z0-9]{30,})",
    f"{IDENT}(fw-[A-Za-z0-9]{{30,}})",
    f"{IDENT}(fw_[A-Za-z0-9]{{30,}})",
    f"{IDENT}(fpk_[A-Za-z0-9]{{30,}})",
    f"{B64}(AKIA[A-Z0-9]{{16}})",
    f"{B64}(ASIA[A-Z0-9]{{16}})",
    "(AKID[A-Za-z0-9]{10,})",
    "(LTAI[A-Za-z0-9]{10,})",
    "(hf_[A-Za-z0-9]{10,})",
    "(api_org_[A-Za-z0-9]{20,})",
    "(r8_[A-Za-z0-9]{10,})",
    "\\bbot(\\d{6,}:[A-Za-z0-9_-]{20,})\\b",
    "\\b(\\d{6,}:[A-Za-z0-9_-]{20,})\\b",
]

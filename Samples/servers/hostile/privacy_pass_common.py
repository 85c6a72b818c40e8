"""Privacy Pass pieces the loopback issuer and relay front share (RFC 9577, RFC 9578 type 0x0002),
written from the RFCs independently of the Swift module they test."""
import base64
import hashlib
import struct

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.serialization import load_der_public_key

TOKEN_TYPE = 2
NK = 256

# AlgorithmIdentifier id-RSASSA-PSS { sha384, mgf1(sha384), saltLength 48 } (RFC 9578 6.5).
PSS_ALGORITHM = bytes.fromhex(
    "303d06092a864886f70d01010a3030a00d300b0609608648016503040202"
    "a11a301806092a864886f70d010108300b0609608648016503040202a203020130")


def b64url(data):
    return base64.urlsafe_b64encode(data).decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def der(tag, content):
    n = len(content)
    if n < 0x80:
        return bytes([tag, n]) + content
    size = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(size)]) + size + content


def der_int(value):
    raw = value.to_bytes((value.bit_length() + 8) // 8, "big")
    return der(0x02, raw)


def token_key(public_key):
    numbers = public_key.public_numbers()
    rsa_key = der(0x30, der_int(numbers.n) + der_int(numbers.e))
    return der(0x30, PSS_ALGORITHM + der(0x03, b"\x00" + rsa_key))


def load_token_key(spki):
    key = load_der_public_key(spki)
    assert isinstance(key, rsa.RSAPublicKey) and key.key_size == 2048
    return key


def challenge_bytes(issuer_name, context, origin_info):
    return (struct.pack(">HH", TOKEN_TYPE, len(issuer_name)) + issuer_name + bytes([len(context)]) + context
            + struct.pack(">H", len(origin_info)) + origin_info)


def parse_token(data):
    """(token_type, nonce, challenge_digest, token_key_id, authenticator) or None."""
    if len(data) != 2 + 32 + 32 + 32 + NK or struct.unpack(">H", data[:2])[0] != TOKEN_TYPE:
        return None
    return TOKEN_TYPE, data[2:34], data[34:66], data[66:98], data[98:]


def verify(public_key, token):
    try:
        public_key.verify(token[98:], token[:98], padding.PSS(mgf=padding.MGF1(hashes.SHA384()), salt_length=48), hashes.SHA384())
        return True
    except Exception:
        return False


def sha256(data):
    return hashlib.sha256(data).digest()


def auth_param(value, name):
    """The value of `name` in a credentials value such as 'PrivateToken token="..."'."""
    for part in value.split(" ", 1)[-1].split(","):
        key, _, raw = part.strip().partition("=")
        if key.strip().lower() == name:
            return raw.strip().strip('"')
    return None

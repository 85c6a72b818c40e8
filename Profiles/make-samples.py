#!/usr/bin/env python3
"""Regenerates the sample profiles in this folder (run from anywhere; needs python3 and openssl).

The keys under certs/ exist for these samples and the tests only: a sample CA that signs the
profile signer and the client identity, and a sample relay key to pin. Never use them elsewhere.
"""
import os, plistlib, subprocess, uuid

HERE = os.path.dirname(os.path.abspath(__file__))
CERTS = os.path.join(HERE, "certs")
PASSWORD = "sample-p12-password"


def sh(*args):
    subprocess.run(args, check=True, capture_output=True)


def make_certs():
    os.makedirs(CERTS, exist_ok=True)
    ca, ca_key = f"{CERTS}/sample-ca.pem", f"{CERTS}/sample-ca.key"
    if os.path.exists(ca):
        return
    sh("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", ca_key,
       "-out", ca, "-days", "3650", "-subj", "/CN=relayfetch sample profile CA",
       "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    for name, cn, usage in [("signer", "Example Corp Profile Signing", "emailProtection,codeSigning"),
                            ("client", "relay client alice", "clientAuth")]:
        sh("openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
           "-keyout", f"{CERTS}/{name}.key", "-out", f"{CERTS}/{name}.csr", "-subj", f"/CN={cn}/O=Example Corp")
        ext = f"{CERTS}/{name}.ext"
        with open(ext, "w") as f:
            f.write(f"basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage={usage}\n")
        sh("openssl", "x509", "-req", "-in", f"{CERTS}/{name}.csr", "-CA", ca, "-CAkey", ca_key, "-set_serial",
           str(uuid.uuid4().int >> 64), "-days", "3650", "-out", f"{CERTS}/{name}.pem", "-extfile", ext)
        os.remove(f"{CERTS}/{name}.csr")
        os.remove(ext)
    sh("openssl", "pkcs12", "-export", "-in", f"{CERTS}/client.pem", "-inkey", f"{CERTS}/client.key",
       "-out", f"{CERTS}/client.p12", "-passout", f"pass:{PASSWORD}", "-name", "relay client alice")
    sh("openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", f"{CERTS}/sample-relay.key")


def spki_der(key):
    return subprocess.run(["openssl", "pkey", "-in", key, "-pubout", "-outform", "DER"], check=True, capture_output=True).stdout


def profile(identifier, name, payloads):
    return {"PayloadType": "Configuration", "PayloadVersion": 1, "PayloadIdentifier": identifier,
            "PayloadUUID": str(uuid.uuid5(uuid.NAMESPACE_DNS, identifier)).upper(), "PayloadDisplayName": name,
            "PayloadOrganization": "Example Corp", "PayloadContent": payloads}


def relay_payload(identifier, relays, **domains):
    payload = {"PayloadType": "com.apple.relay.managed", "PayloadVersion": 1, "PayloadIdentifier": identifier,
               "PayloadUUID": str(uuid.uuid5(uuid.NAMESPACE_DNS, identifier)).upper(),
               "PayloadDisplayName": identifier.split(".")[-1], "RelayUUID": str(uuid.uuid5(uuid.NAMESPACE_URL, identifier)).upper(),
               "Relays": relays}
    payload.update(domains)
    return payload


def write(path, obj, fmt=plistlib.FMT_XML):
    with open(os.path.join(HERE, path), "wb") as f:
        plistlib.dump(obj, f, fmt=fmt, sort_keys=True)


def main():
    make_certs()
    egress = {"HTTP3RelayURL": "https://egress.relay.example.net:443",
              "HTTP2RelayURL": "https://egress.relay.example.net:443",
              "AdditionalHTTPHeaderFields": {"Proxy-Authorization": "PrivateToken token=egress-sample"}}
    ingress = {"HTTP3RelayURL": "https://ingress.corp.example.com:443",
               "HTTP2RelayURL": "https://ingress.corp.example.com:443",
               "AdditionalHTTPHeaderFields": {"Proxy-Authorization": "PrivateToken token=ingress-sample"}}
    two_hop = profile("com.example.relay.two-hop", "Example Corp two-hop relay",
                      [relay_payload("com.example.relay.two-hop.corp", [ingress, egress],
                                     MatchDomains=["corp.example.com", "internal.example.com"],
                                     ExcludedDomains=["www.corp.example.com"])])
    write("two-hop-corporate.mobileconfig", two_hop)

    split = profile("com.example.relay.split", "Example Corp split domains", [
        relay_payload("com.example.relay.split.internal",
                      [{"HTTP2RelayURL": "https://relay.corp.example.com:8443/.well-known/masque/udp/{target_host}/{target_port}/",
                        "AdditionalHTTPHeaderFields": {"Proxy-Authorization": "Bearer split-sample"}}],
                      MatchDomains=["internal.example.com"], MatchFQDNs=["wiki.example.com"],
                      ExcludedDomains=["public.internal.example.com"], **{"Excluded FQDNs": ["status.internal.example.com"]}),
        relay_payload("com.example.relay.split.partner", [{"HTTP2RelayURL": "https://partner-relay.example.net"}],
                      MatchDomains=["partner.example.net"]),
    ])
    write("split-domains.mobileconfig", split, plistlib.FMT_BINARY)

    with open(f"{CERTS}/client.p12", "rb") as f:
        p12 = f.read()
    cert_uuid = "9A3B5C1D-0000-4000-8000-00000000C11E"
    client = profile("com.example.relay.client-cert", "Example Corp relay with client certificate", [
        {"PayloadType": "com.apple.security.pkcs12", "PayloadVersion": 1, "PayloadUUID": cert_uuid,
         "PayloadIdentifier": "com.example.relay.client-cert.identity", "PayloadDisplayName": "relay client alice",
         "PayloadCertificateFileName": "client.p12", "Password": PASSWORD, "PayloadContent": p12},
        relay_payload("com.example.relay.client-cert.relay",
                      [{"HTTP2RelayURL": "https://relay.corp.example.com:443", "PayloadCertificateUUID": cert_uuid,
                        "RawPublicKeys": [spki_der(f"{CERTS}/sample-relay.key")]}],
                      MatchDomains=["internal.example.com"]),
    ])
    write("client-certificate.mobileconfig", client)
    sh("openssl", "cms", "-sign", "-binary", "-nodetach", "-outform", "DER", "-in", os.path.join(HERE, "two-hop-corporate.mobileconfig"),
       "-signer", f"{CERTS}/signer.pem", "-inkey", f"{CERTS}/signer.key", "-certfile", f"{CERTS}/sample-ca.pem",
       "-out", os.path.join(HERE, "two-hop-corporate.signed.mobileconfig"))

    # Invalid samples: each must be refused with the key path its test expects.
    bad = lambda relays, **d: profile("com.example.bad", "bad", [relay_payload("com.example.bad.relay", relays, **d)])
    write("invalid/plain-http-relay.mobileconfig", bad([{"HTTP2RelayURL": "http://relay.example.com:8080"}]))
    write("invalid/no-relays.mobileconfig", bad([]))
    write("invalid/bad-domain.mobileconfig", bad([egress], MatchDomains=["corp.example.com", "https://intranet"]))
    write("invalid/unknown-certificate.mobileconfig",
          bad([{"HTTP2RelayURL": "https://relay.example.com", "PayloadCertificateUUID": "00000000-0000-0000-0000-000000000000"}]))
    write("invalid/bad-template.mobileconfig", bad([{"HTTP2RelayURL": "https://relay.example.com/masque/{target_host}/{port}/"}]))
    write("invalid/headers-not-strings.mobileconfig", bad([{"HTTP2RelayURL": "https://relay.example.com",
                                                             "AdditionalHTTPHeaderFields": {"Proxy-Authorization": 42}}]))
    string_version = bad([egress])
    string_version["PayloadContent"][0]["PayloadVersion"] = "1"  # MDM validators want an integer
    write("invalid/string-payload-version.mobileconfig", string_version)
    with open(os.path.join(HERE, "two-hop-corporate.signed.mobileconfig"), "rb") as f:
        signed = bytearray(f.read())
    at = signed.find(b"corp.example.com")
    signed[at] ^= 0x01  # one flipped bit inside the signed content
    with open(os.path.join(HERE, "invalid/tampered.signed.mobileconfig"), "wb") as f:
        f.write(signed)


if __name__ == "__main__":
    main()

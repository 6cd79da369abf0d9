#!/usr/bin/env python3
"""Device certificates made and read by PyPI cryptography, nothing of Hallmark's (DESIGN BM-CERT).

usage: certificates_check.py make
       certificates_check.py inspect --ca CA.pem --device DEVICE.pem --handle HEX --serial SERIAL

make      A manufacturer CA and device certificates signed with cryptography, and bundle
          signatures, as JSON on standard output: what Hallmark must accept (`good`, in both
          transports, both signed forms, DER and raw signatures) and what it must refuse, each with
          the reason it must give (`refused`: expired, not yet valid, another CA, self-signed, a
          P-384 key, a CA's own certificate, a broken certificate signature, a truncated DER, a PEM
          with junk around it, not base64; `bad_signatures`: another hash, another key, garbage).
inspect   Reads a CA and a device certificate Hallmark issued: the device certificate's signature
          verifies with the CA's key, it is valid now, not a CA, for digital signatures only, its
          subject CN is SERIAL, and extension 1.3.6.1.4.1.99999.1 holds exactly HEX. Prints JSON.
Exit 0 on success, 1 with a reason otherwise.
"""
import argparse
import base64
import datetime
import json
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils
from cryptography.x509.oid import NameOID

HANDLE_OID = x509.ObjectIdentifier("1.3.6.1.4.1.99999.1")
NOW = datetime.datetime.now(datetime.timezone.utc)
DAY = datetime.timedelta(days=1)


def name(common):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Independent Manufacturer")])


def make_ca(common):
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder().subject_name(name(common)).issuer_name(name(common))
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(NOW - DAY).not_valid_after(NOW + 3650 * DAY)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    return key, cert


def make_device(ca_key, ca_cert, device_key, serial, before, after, handle=b"\x01\x02sealed"):
    return (x509.CertificateBuilder().subject_name(name(serial)).issuer_name(ca_cert.subject)
            .public_key(device_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(before).not_valid_after(after)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), critical=True)
            .add_extension(x509.UnrecognizedExtension(HANDLE_OID, handle), critical=False)
            .sign(ca_key, hashes.SHA256()))


def der_b64(cert):
    return base64.b64encode(cert.public_bytes(serialization.Encoding.DER)).decode()


def pem_b64(cert):
    return base64.b64encode(cert.public_bytes(serialization.Encoding.PEM)).decode()


def make():
    ca_key, ca = make_ca("Independent Manufacturer CA")
    other_key, other_ca = make_ca("Another Manufacturer CA")
    device_key = ec.generate_private_key(ec.SECP256R1())
    device = make_device(ca_key, ca, device_key, "CAM-PY-1", NOW - DAY, NOW + 365 * DAY)
    image_hash, timestamp = "ab" * 32, int(NOW.timestamp())
    cert_der, cert_pem = der_b64(device), pem_b64(device)

    def sign(message, raw=False, key=device_key):
        der = key.sign(message.encode(), ec.ECDSA(hashes.SHA256()))
        if not raw:
            return base64.b64encode(der).decode()
        r, s = utils.decode_dss_signature(der)
        return base64.b64encode(r.to_bytes(32, "big") + s.to_bytes(32, "big")).decode()

    def canonical(cert_as_sent, gps=None):
        return f"{image_hash}\n{cert_as_sent}\n{timestamp}\n{gps or ''}\n"

    pi = f"{image_hash}{timestamp}"
    good = [
        {"what": "DER, Pi form, DER signature", "cert": cert_der, "signature": sign(pi), "form": "image_hash_timestamp"},
        {"what": "PEM, canonical form, DER signature", "cert": cert_pem, "signature": sign(canonical(cert_pem)),
         "form": "canonical"},
        {"what": "PEM, canonical form, raw r||s (the iOS app's)", "cert": cert_pem,
         "signature": sign(canonical(cert_pem), raw=True), "form": "canonical"},
        {"what": "DER, canonical form with a GPS hash", "cert": cert_der, "gps_hash": "cd" * 32,
         "signature": sign(canonical(cert_der, "cd" * 32)), "form": "canonical"},
    ]
    p384 = ec.generate_private_key(ec.SECP384R1())
    tampered = bytearray(device.public_bytes(serialization.Encoding.DER))
    tampered[-3] ^= 0x01
    pem_text = device.public_bytes(serialization.Encoding.PEM).decode()
    refused = [
        ("expired", der_b64(make_device(ca_key, ca, device_key, "CAM-OLD", NOW - 30 * DAY, NOW - DAY)),
         "certificate_expired"),
        ("not yet valid", der_b64(make_device(ca_key, ca, device_key, "CAM-NEW", NOW + DAY, NOW + 30 * DAY)),
         "certificate_expired"),
        ("another CA", der_b64(make_device(other_key, other_ca, device_key, "CAM-OTHER", NOW - DAY, NOW + DAY)),
         "untrusted_certificate"),
        ("self-signed", der_b64(make_device(device_key, device, device_key, "CAM-SELF", NOW - DAY, NOW + DAY)),
         "untrusted_certificate"),
        ("the CA's own certificate", der_b64(ca), "untrusted_certificate"),
        ("a P-384 key", der_b64(make_device(ca_key, ca, p384, "CAM-384", NOW - DAY, NOW + DAY)), "invalid_certificate"),
        ("a broken certificate signature", base64.b64encode(bytes(tampered)).decode(), "untrusted_certificate"),
        ("a truncated DER", base64.b64encode(device.public_bytes(serialization.Encoding.DER)[:-20]).decode(),
         "invalid_certificate"),
        ("a PEM with junk around it", base64.b64encode(("junk\n" + pem_text + "more junk\n").encode()).decode(),
         "invalid_certificate"),
        ("not base64", "not base64 at all!", "invalid_certificate"),
    ]
    bad_signatures = [
        ("another image's hash", sign(f"{'ef' * 32}{timestamp}")),
        ("another key", sign(pi, key=ec.generate_private_key(ec.SECP256R1()))),
        ("garbage", base64.b64encode(b"\x30\x02\x01\x01").decode()),
    ]
    print(json.dumps({
        "ca_pem": ca.public_bytes(serialization.Encoding.PEM).decode(),
        "other_ca_pem": other_ca.public_bytes(serialization.Encoding.PEM).decode(),
        "image_hash": image_hash, "timestamp": timestamp, "cert": cert_der, "good": good,
        "refused": [{"what": w, "cert": c, "reason": r} for w, c, r in refused],
        "bad_signatures": [{"what": w, "signature": s} for w, s in bad_signatures],
    }))
    return 0


def inspect(args):
    ca = x509.load_pem_x509_certificate(open(args.ca, "rb").read())
    device = x509.load_pem_x509_certificate(open(args.device, "rb").read())
    problems = []
    try:
        ca.public_key().verify(device.signature, device.tbs_certificate_bytes, ec.ECDSA(device.signature_hash_algorithm))
    except Exception as error:  # noqa: BLE001 - any failure is the finding
        problems.append(f"the CA's key does not verify the device certificate: {error!r}")
    try:
        device.verify_directly_issued_by(ca)
    except Exception as error:  # noqa: BLE001
        problems.append(f"not directly issued by the CA: {error!r}")
    if not (device.not_valid_before_utc <= NOW <= device.not_valid_after_utc):
        problems.append("not valid now")
    if not isinstance(device.public_key(), ec.EllipticCurvePublicKey) or device.public_key().curve.name != "secp256r1":
        problems.append("not a P-256 key")
    basic = device.extensions.get_extension_for_class(x509.BasicConstraints)
    if basic.value.ca or not basic.critical:
        problems.append("basic constraints: a CA, or not critical")
    usage = device.extensions.get_extension_for_class(x509.KeyUsage).value
    if not usage.digital_signature or usage.key_cert_sign:
        problems.append("key usage is not digital signature only")
    handle = device.extensions.get_extension_for_oid(HANDLE_OID)
    if handle.critical or handle.value.value.hex() != args.handle:
        problems.append(f"extension {HANDLE_OID.dotted_string} is not the handle")
    common = device.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    if [a.value for a in common] != [args.serial]:
        problems.append("subject CN is not the serial")
    ca_basic = ca.extensions.get_extension_for_class(x509.BasicConstraints).value
    if not ca_basic.ca:
        problems.append("the CA is not a CA")
    if problems:
        print("; ".join(problems))
        return 1
    print(json.dumps({"issuer": device.issuer.rfc4514_string(), "subject": device.subject.rfc4514_string(),
                      "handle": handle.value.value.hex(), "not_after": device.not_valid_after_utc.isoformat()}))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("make")
    read = sub.add_parser("inspect")
    read.add_argument("--ca", required=True)
    read.add_argument("--device", required=True)
    read.add_argument("--handle", required=True)
    read.add_argument("--serial", required=True)
    args = parser.parse_args()
    return make() if args.command == "make" else inspect(args)


if __name__ == "__main__":
    sys.exit(main())

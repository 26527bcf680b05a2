#!/usr/bin/env python3
"""Writes the seed corpora in Fuzz/Corpus/<target>/ from the inputs the test suite uses.

Run again after changing a seed: it rewrites the `seed-*` files and leaves every other file (inputs
libFuzzer found and `crash-*` regressions) alone. Only public test card numbers appear here.
"""
import json
import pathlib

CORPUS = pathlib.Path(__file__).resolve().parent / "Corpus"


def lrc(segment: str) -> str:
    """The LRC a reader appends after a track (MagneticStripe.longitudinalRedundancyCheck)."""
    track1 = segment.startswith("%")
    base, mask = (0x20, 0x3F) if track1 else (0x30, 0x0F)
    value = 0
    for byte in segment.encode():
        value ^= ((byte - base) & 0xFF) & mask
    return chr((value + base) & 0xFF)


def tlv(tag: str, value_hex: str) -> str:
    length = len(value_hex) // 2
    if length < 0x80:
        encoded = f"{length:02X}"
    elif length < 0x100:
        encoded = f"81{length:02X}"
    else:
        encoded = f"82{length:04X}"
    return tag + encoded + value_hex


def ascii_hex(text: str) -> str:
    return text.encode().hex().upper()


T1 = "%B4111111111111111^DOE/JOHN M^30121010000000000000?"
T2 = ";4111111111111111=30121010000000000000?"
TRACKS = {
    "track1": T1,
    "track2": T2,
    "both": T1 + T2,
    "reversed": T2 + T1,
    "magtek-header": "\x02\x80\x1f" + T1 + T2 + "\r",
    "lrc-after-each": T1 + lrc(T1) + T2 + lrc(T2),
    "lrc-and-framing": "\x02" + T1 + lrc(T1) + T2 + lrc(T2) + "\x03\r\n",
    "lilitab-labels": "T1 = " + T1 + "\nT2 = " + T2 + "\n",
    "crlf": T1 + "\r\n" + T2 + "\r\n",
    "amex-spaced": "T1 = %B3782 822463 10005^LASTNAME/FIRSTNAME I^3009^1111111111111111111?",
    "blank-name": "%B4111111111111111^ /                        ^3012101?",
    "title": "%B5555555555554444^DOE/JOHN M.MR^2812201?",
    "read-error-track1": "%E?" + T2,
    "read-error-track2": T1 + ";E?",
    "read-error-both": "%E?;E?",
    "track3": T1 + T2 + ";011234567890123445=724724100000000000030300?",
    "track3-unterminated": T2 + ";0112345",
    "no-end-sentinel": "%B4111111111111111^DOE/JOHN^3012101",
    "format-code-a": "%A4111111111111111^DOE/JOHN^3012101?",
    "one-separator": "%B4111111111111111^DOE/JOHN 3012101?",
    "no-expiry": "%B4111111111111111^DOE/JOHN^?",
    "month-13": ";4111111111111111=3013101?",
    "luhn": ";4111111111111112=3012101?",
    "unknown-brand": ";1000000000000008=3012101?",
    "pan-mismatch": T1 + ";5555555555554444=30121010000000000000?",
    "expiry-mismatch": T1 + ";4111111111111111=31121010000000000000?",
    "two-track1": T1 + T1,
    "malformed-track1-good-track2": "%B4111^?" + T2,
    "garbage": "hello world",
    "lone-sentinels": "%;?",
    "discover-19": ";6011000000000000001=2905101?",
    "jcb": "%B3530111333300000^TANAKA/HANAKO^2711201?",
}

PAN = tlv("5A", "4111111111111111")
EXPIRY = tlv("5F24", "301231")
NAME = tlv("5F20", ascii_hex("DOE/JOHN M  "))
TRACK2_EQ = tlv("57", "4111111111111111D3012101123456789F")
EMV = {
    "read-record-70": tlv("70", PAN + EXPIRY + NAME),
    "gpo-77-track2": tlv("77", tlv("82", "1980") + TRACK2_EQ),
    "amex-padded": tlv("5A", "378282246310005F") + EXPIRY,
    "visa-19": tlv("5A", "4111111111111111110F") + EXPIRY,
    "padded-ffff": tlv("5A", "4111111111111111FFFF") + EXPIRY,
    "amex-57-agrees": tlv("70", tlv("5A", "378282246310005F") + tlv("57", "378282246310005D30122010000F") + EXPIRY),
    "spread-templates": tlv("6F", tlv("84", "A0000000031010")) + tlv("77", tlv("9F36", "0001")) + "0000"
    + tlv("70", tlv("9F4B", "AB" * 140) + PAN) + tlv("70", EXPIRY + NAME),
    "blank-name": PAN + EXPIRY + tlv("5F20", ascii_hex(" /")),
    "only-padding": "0000",
    "indefinite": "7080" + PAN + EXPIRY + "0000",
    "no-pan": EXPIRY + NAME,
    "no-expiry": PAN + NAME,
    "f-inside-5a": tlv("5A", "41111111F1111111") + EXPIRY,
    "pan-57-disagree": tlv("5A", "5555555555554444") + TRACK2_EQ,
    "expiry-57-disagree": tlv("5F24", "311231") + TRACK2_EQ,
    "month-13": PAN + tlv("5F24", "301331"),
    "not-bcd": PAN + tlv("5F24", "3A1231"),
    "name-control": PAN + EXPIRY + tlv("5F20", "444F450A4A"),
    "57-no-separator": tlv("57", "41111111111111113012101F") + EXPIRY,
    "empty-57": tlv("5A", "378282246310005F") + tlv("57", "") + EXPIRY,
    "nesting-too-deep": "700E700C700A70087006700470027000",
    "long-form-81": tlv("70", tlv("9F4B", "CD" * 130) + PAN + EXPIRY),
    "long-form-82": tlv("70", tlv("9F4B", "EF" * 300) + PAN + EXPIRY),
    "four-byte-tag": "DF818101" + "00" + PAN + EXPIRY,
    "mastercard-full": tlv("70", tlv("5A", "5555555555554444") + tlv("5F24", "281130") + tlv("5F20", ascii_hex("SMITH/ANNA"))
                           + tlv("57", "5555555555554444D281120112345F") + tlv("5F34", "01") + tlv("9F07", "FF00")),
}
EMV_TEXT = {
    "text-read-record": tlv("70", PAN + EXPIRY + NAME),
    "text-lowercase-spaced": " ".join(tlv("77", TRACK2_EQ)[i:i + 2] for i in range(0, len(tlv("77", TRACK2_EQ)), 2)).lower(),
    "text-newlines": PAN + "\n" + EXPIRY + "\r\n" + NAME,
    "text-odd-length": PAN + "0",
    "text-non-hex": PAN + "ZZ",
    "text-truncated": "5A084111111111",
    "text-empty": "",
}

CARD = {"number": "4242424242424242", "expiryDate": "1230", "holderName": "Ada Lovelace", "cvv": "123"}
CUSTOMER = {"email": "ada@example.com", "mobileNumber": "+447700900123", "city": "London", "region": "LND",
            "country": "GB", "ipAddress": "203.0.113.7"}
FIELDS = [{"name": "customerNumber", "value": "C-1001"}, {"name": "note", "value": "gold"}]
SCHEDULE = {"merchantReference": "cust-1", "amount": 1999, "currency": "USD", "description": "Gym"}
JSON_SEEDS = {
    "register-keyed": {"merchantReference": "cust-1", "method": "keyed", "card": CARD},
    "register-keyed-full": {"merchantReference": "cust-2", "method": "keyed", "card": dict(CARD, cardType="visa"), "customer": CUSTOMER, "customFields": FIELDS, "verify": False},
    "register-ocr": {"merchantReference": "cust-3", "method": "ocr",
                     "card": {"number": "5555 5555 5555 4444", "expiryDate": "0828", "holderName": "Grace Hopper"}},
    "register-amex": {"merchantReference": "cust-4", "method": "keyed",
                      "card": {"number": "3782-822463-10005", "expiryDate": "1129", "cvv": "1234"}},
    "register-track": {"merchantReference": "cust-5", "method": "track", "track": T1 + T2},
    "register-track-implicit": {"merchantReference": "cust-6", "track": T2},
    "register-emv": {"merchantReference": "cust-7", "method": "emv", "emv": tlv("70", PAN + EXPIRY + NAME)},
    "register-emv-implicit": {"merchantReference": "cust-8", "emv": tlv("77", TRACK2_EQ)},
    "register-ocr-with-cvv": {"merchantReference": "cust-9", "method": "ocr", "card": CARD},
    "register-bad-method": {"merchantReference": "cust-10", "method": "swipe", "track": T1},
    "register-both-sources": {"merchantReference": "cust-11", "method": "keyed", "card": CARD, "track": T2},
    "register-unicode": {"merchantReference": "caf\u00e9-\U0001F600", "method": "keyed",
                         "card": {"number": "4111111111111111", "expiryDate": "1230", "holderName": "Zo\u00eb \u00c5ngstr\u00f6m"}},
    "update-patch": {"customer": {"email": None, "city": "Paris"}, "customFields": None},
    "update-card": {"method": "keyed", "card": {"number": "5105105105105100", "expiryDate": "0131"}, "verify": True},
    "update-merchant-reference": {"merchantReference": "other"},
    "schedule-monthly": dict(SCHEDULE, type="monthly", startDate="2030-01-31", endType="count", endCount=3, day=31,
                             hour=9, minute=0, timeZone="America/New_York"),
    "schedule-weekly-never": dict(SCHEDULE, type="weekly", startDate="2026-06-15", endType="never"),
    "schedule-quarterly-date": dict(SCHEDULE, type="quarterly", startDate="2026-07-01", endType="date", endDate="2031-12-31"),
    "schedule-annual-feb29": dict(SCHEDULE, type="annual", startDate="2028-02-29", endType="count", endCount=10,
                                  month=2, day=29, timeZone="Europe/London"),
    "schedule-delayed-once": dict(SCHEDULE, type="delayedOnce", startDate="2026-12-24", hour=23, minute=59,
                                  timeZone="Pacific/Kiritimati"),
    "schedule-arbitrary": dict(SCHEDULE, secureCardReference="sc_abc", type="arbitraryDates",
                               dates=["2027-03-01", "2026-09-30", "2028-02-29"], timeZone="Australia/Lord_Howe"),
    "schedule-far-future": dict(SCHEDULE, type="monthly", startDate="9999-11-30", endType="never", day=31),
    "schedule-fraction": dict(SCHEDULE, amount=19.99, type="weekly", startDate="2026-06-15", endType="count", endCount=2),
    "schedule-dst": dict(SCHEDULE, type="weekly", startDate="2027-03-14", endType="count", endCount=5, hour=2, minute=30,
                         timeZone="America/Chicago"),
    "schedule-change": {"amount": 2500, "receiptEmail": None, "description": "New plan", "merchantReference": "cust-2"},
    "schedule-change-forbidden": {"amount": 100, "startDate": "2027-01-01"},
    "transaction-sale-token": {"type": "sale", "amount": 700, "currency": "EUR", "secureCardReference": "sc_x"},
    "transaction-sale-register": {"type": "sale", "amount": 1500, "currency": "JPY", "method": "keyed", "card": CARD,
                                  "secureCard": {"merchantReference": "cust-12", "customer": CUSTOMER, "customFields": FIELDS}},
    "transaction-verify-emv": {"type": "verify", "emv": tlv("70", PAN + EXPIRY), "description": "check"},
    "transaction-authorize-track": {"type": "authorize", "amount": 1, "currency": "KWD", "track": T2},
    "follow-up": {"amount": 350},
    "custom-fields": {"fields": [{"name": "customerNumber", "required": True, "maxLength": 20},
                                 {"name": "note", "maxLength": 200}]},
}
JSON_RAW = {
    "malformed": b'{"merchantReference": "cust-1", "method": "keyed", "card": {',
    "invalid-utf8": b'{"merchantReference": "\xff\xfe", "method": "keyed"}',
    "huge-number": b'{"type": "sale", "amount": 1e400, "currency": "USD", "secureCardReference": "sc_x"}',
    "escapes": b'{"merchantReference": "a\\u0000b\\ud83d\\ude00", "track": "%B4111111111111111^DOE\\/JOHN^3012101?"}',
}


def write(target: str, name: str, data: bytes) -> None:
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"seed-{name}").write_bytes(data)


def main() -> None:
    for folder in CORPUS.iterdir() if CORPUS.exists() else []:
        for seed in folder.glob("seed-*"):
            seed.unlink()
    for name, text in TRACKS.items():
        write("TrackFuzzer", name, text.encode())
    for name, hex_text in EMV.items():
        write("EMVFuzzer", name, b"\x00" + bytes.fromhex(hex_text))
    for name, text in EMV_TEXT.items():
        write("EMVFuzzer", name, b"\x01" + text.encode())
    for name, body in JSON_SEEDS.items():
        write("JSONRequestFuzzer", name, json.dumps(body, ensure_ascii=False).encode())
    for name, raw in JSON_RAW.items():
        write("JSONRequestFuzzer", name, raw)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The README's quick-start flow through a client openapi-python-client generated from the vault's
served /openapi.json: register a card, retrieve it, preview a schedule, create
it and confirm it. Every response is parsed by the generated models, so a document that does not
describe what the server sends fails here.

Usage: quickstart.py BASE_URL API_KEY [RUN]   (RUN labels the card and idempotency key, default 1; the generated package `secure_card_vault_client` importable)
Prints one line per step and 'python client: quick start passed'; exits 1 on the first failure.
"""
import datetime
import sys

from secure_card_vault_client import AuthenticatedClient
from secure_card_vault_client.api.schedules import confirm_schedule, create_schedule, preview_schedule
from secure_card_vault_client.api.secure_cards import register_secure_card, retrieve_secure_card
from secure_card_vault_client.models import (
    CaptureMethod, CardInput, CustomerInput, EndType, PlanType, ScheduleDetail, SchedulePreview, ScheduleRequest,
    ScheduleStatus, SecureCardRegistration, SecureCardResult,
)


def expect(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"python client: {what}")


def main() -> None:
    base_url, key = sys.argv[1], sys.argv[2]
    run = sys.argv[3] if len(sys.argv) > 3 else "1"
    reference = f"py-cust-{run}"
    client = AuthenticatedClient(base_url=base_url, token=key, raise_on_unexpected_status=True)

    registration = SecureCardRegistration(
        merchant_reference=reference, method=CaptureMethod.KEYED,
        card=CardInput(number="4242424242424242", expiry_date="1230", holder_name="Ada Lovelace", cvv="123"),
        customer=CustomerInput(email="ada@example.com", country="GB"))
    registered = register_secure_card.sync_detailed(client=client, body=registration)
    expect(registered.status_code == 201 and isinstance(registered.parsed, SecureCardResult),
           f"register answered {registered.status_code}: {registered.content[:300]!r}")
    card = registered.parsed
    expect(card.description.value == "Secure Card Saved" and card.last4 == "4242", "register: unexpected card")
    print(f"registered {card.secure_card_reference} ({card.card_type.value} {card.masked_number})")

    retrieved = retrieve_secure_card.sync_detailed(reference, client=client)
    expect(retrieved.status_code == 200 and isinstance(retrieved.parsed, SecureCardResult), f"retrieve answered {retrieved.status_code}")
    expect(retrieved.parsed.secure_card_reference == card.secure_card_reference, "retrieve: another token")
    print(f"retrieved {retrieved.parsed.merchant_reference}")

    start = datetime.date.today() + datetime.timedelta(days=30)
    plan = ScheduleRequest(
        merchant_reference=reference, amount=1999, currency="USD", type_=PlanType.MONTHLY, start_date=start,
        end_type=EndType.COUNT, end_count=3, day=min(start.day, 28), description="Gym")
    preview = preview_schedule.sync_detailed(client=client, body=plan)
    expect(preview.status_code == 200 and isinstance(preview.parsed, SchedulePreview), f"preview answered {preview.status_code}: {preview.content[:300]!r}")
    expect(len(preview.parsed.steps) == 3, "preview: not three steps")
    print("previewed " + ", ".join(str(step.date) for step in preview.parsed.steps))

    created = create_schedule.sync_detailed(client=client, body=plan, idempotency_key=f"py-quickstart-{run}")
    expect(created.status_code == 201 and isinstance(created.parsed, ScheduleDetail), f"create answered {created.status_code}: {created.content[:300]!r}")
    expect(created.parsed.status == ScheduleStatus.PENDING_CONFIRMATION, "create: not pending confirmation")
    print(f"created {created.parsed.id} ({created.parsed.status.value})")

    confirmed = confirm_schedule.sync_detailed(created.parsed.id, client=client)
    expect(confirmed.status_code == 200 and isinstance(confirmed.parsed, ScheduleDetail), f"confirm answered {confirmed.status_code}")
    expect(confirmed.parsed.status == ScheduleStatus.ACTIVE, "confirm: not active")
    print(f"confirmed {confirmed.parsed.id} ({confirmed.parsed.status.value})")
    print("python client: quick start passed")


if __name__ == "__main__":
    main()

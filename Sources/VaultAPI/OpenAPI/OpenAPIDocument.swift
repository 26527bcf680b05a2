/// The OpenAPI 3.1 description of the HTTP API (SPEC §9), served as JSON at `GET /openapi.json`.
///
/// Every route the router serves is listed here, and every documented operation is served;
/// `OpenAPIDocumentTests` checks the two agree and that live responses carry exactly the
/// documented fields.
enum OpenAPIDocument {
    static let yaml = #"""
    openapi: 3.1.0
    info:
      title: Secure-card vault
      version: 1.0.0
      description: >
        Encrypted card vault with recurring billing. Authenticate with `Authorization: Bearer <api key>`;
        roles: `admin` (everything of its merchant), `readonly` (GET only), `runner` (reads and charge runs).
        Another merchant's objects are 404. Every POST accepts an `Idempotency-Key` header: the same key
        and request replay the first response (with `Idempotent-Replayed: true`), the same key with another
        request is a 409. Lists take `limit` and `cursor` and answer `{"data": [...], "nextCursor": ...}`.
        Every response carries `X-Request-Id`. Errors use one envelope:
        `{"error": {"type", "code", "message", "param"}}`; an unknown route is a 404 and a known route
        with another method a 405 `method_not_allowed` whose `Allow` header lists the methods the route
        takes, both in that envelope.
    servers:
      - url: http://127.0.0.1:8080
    security:
      - bearer: []
    tags:
      - name: operations
        description: Liveness, readiness, metrics and this document (no authentication).
      - name: secure-cards
        description: The card vault (SPEC §4).
      - name: custom-fields
        description: The merchant's custom field definitions.
      - name: schedules
        description: Recurring billing schedules (SPEC §7).
      - name: transactions
        description: Sales, authorizations, verifications and their follow-ups (SPEC §6).
      - name: audit
        description: The audit trail.
      - name: statistics
        description: Counts, turnover, minimum, maximum and average of payments per period and status.
    paths:
      /healthz:
        get:
          operationId: health
          summary: Liveness
          tags: [operations]
          security: []
          responses:
            "200":
              description: The process answers.
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Health"}
      /readyz:
        get:
          operationId: ready
          summary: Readiness (database and keys usable)
          tags: [operations]
          security: []
          responses:
            "200":
              description: Ready.
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Readiness"}
            "503":
              description: Not ready; the body says which part is unavailable.
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Readiness"}
      /metrics:
        get:
          operationId: metrics
          summary: Prometheus metrics
          tags: [operations]
          security: []
          responses:
            "200":
              description: Metrics in the Prometheus text format (version 0.0.4).
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                text/plain:
                  schema: {type: string}
      /openapi.json:
        get:
          operationId: openapi
          summary: This document
          tags: [operations]
          security: []
          responses:
            "200":
              description: The OpenAPI document.
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {type: object}
      /v1/audit-events:
        get:
          operationId: listAuditEvents
          summary: The merchant's audit trail, newest first (admin keys only)
          description: >
            Filters are exact matches (`actor`, `action`, `objectType`, `objectId`) and an inclusive range of
            instants (`from`, `to`); every filter given must hold. A cursor continues the same filtered listing.
          tags: [audit]
          parameters:
            - $ref: "#/components/parameters/limit"
            - $ref: "#/components/parameters/cursor"
            - $ref: "#/components/parameters/auditActor"
            - $ref: "#/components/parameters/auditAction"
            - $ref: "#/components/parameters/auditObjectType"
            - $ref: "#/components/parameters/auditObjectId"
            - $ref: "#/components/parameters/instantFrom"
            - $ref: "#/components/parameters/instantTo"
          responses:
            "200":
              description: A page of audit events; `nextCursor` continues with older events.
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/AuditEventPage"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "422": {$ref: "#/components/responses/Invalid"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/custom-fields:
        get:
          operationId: getCustomFields
          summary: The merchant's custom field definitions
          tags: [custom-fields]
          responses:
            "200":
              description: The definitions, in the order they were given.
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/CustomFieldDefinitions"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
        put:
          operationId: replaceCustomFields
          summary: Replace the merchant's custom field definitions
          description: >
            The whole set is replaced. Cards already stored keep their values; registration and update
            check against the new set.
          tags: [custom-fields]
          requestBody:
            required: true
            content:
              application/json:
                schema: {$ref: "#/components/schemas/CustomFieldDefinitions"}
                example: {fields: [{name: ReferenceID, required: false, maxLength: 64}]}
          responses:
            "200":
              description: The definitions now in force (the request body, echoed).
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/CustomFieldDefinitions"}
            "400": {$ref: "#/components/responses/BadRequest"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "413": {$ref: "#/components/responses/TooLarge"}
            "415": {$ref: "#/components/responses/UnsupportedMediaType"}
            "422": {$ref: "#/components/responses/Invalid"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/secure-cards:
        post:
          operationId: registerSecureCard
          summary: Register a card (keyed, OCR, magnetic stripe or EMV chip data)
          description: >
            Validates the card data, the customer details and the custom fields, optionally verifies the card
            with the merchant's gateway (`verify`, default from the merchant's settings), then seals and stores
            it. Nothing is stored when any step fails. The CVV is used only for verification and never stored.
          tags: [secure-cards]
          parameters:
            - $ref: "#/components/parameters/idempotencyKey"
          requestBody:
            required: true
            content:
              application/json:
                schema: {$ref: "#/components/schemas/SecureCardRegistration"}
                example:
                  merchantReference: cust-1
                  method: keyed
                  card: {number: "4242424242424242", expiryDate: "1230", holderName: Ada Lovelace, cvv: "123"}
                  customer: {email: ada@example.com, country: GB}
          responses:
            "201":
              description: Secure Card Saved.
              headers:
                X-Request-Id: {$ref: "#/components/headers/RequestId"}
                Idempotent-Replayed: {$ref: "#/components/headers/IdempotentReplayed"}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/SecureCardResult"}
              links:
                Retrieve: {operationId: retrieveSecureCard, parameters: {merchantReference: "$response.body#/merchantReference"}}
                Update: {operationId: updateSecureCard, parameters: {merchantReference: "$response.body#/merchantReference"}}
                Delete: {operationId: deleteSecureCard, parameters: {merchantReference: "$response.body#/merchantReference"}}
            "400": {$ref: "#/components/responses/BadRequest"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "402": {$ref: "#/components/responses/CardDeclined"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "409": {$ref: "#/components/responses/Conflict"}
            "413": {$ref: "#/components/responses/TooLarge"}
            "415": {$ref: "#/components/responses/UnsupportedMediaType"}
            "422": {$ref: "#/components/responses/Invalid"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "502": {$ref: "#/components/responses/GatewayUnavailable"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
        get:
          operationId: listSecureCards
          summary: List or search the merchant's cards, oldest first
          tags: [secure-cards]
          parameters:
            - $ref: "#/components/parameters/limit"
            - $ref: "#/components/parameters/cursor"
            - $ref: "#/components/parameters/q"
            - $ref: "#/components/parameters/cardReference"
            - $ref: "#/components/parameters/includeDeleted"
          responses:
            "200":
              description: A page of cards (without `description`).
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/SecureCardPage"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "422": {$ref: "#/components/responses/Invalid"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/secure-cards/{merchantReference}:
        parameters:
          - $ref: "#/components/parameters/merchantReference"
        get:
          operationId: retrieveSecureCard
          summary: Retrieve a live card by merchantReference, or any card (also deleted) by its token
          tags: [secure-cards]
          responses:
            "200":
              description: Secure Card Retrieved.
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/SecureCardResult"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "404": {$ref: "#/components/responses/NotFound"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
        patch:
          operationId: updateSecureCard
          summary: Update a live card
          description: >
            Present fields replace, absent fields stay, `null` clears. `customer` merges field by field
            (`null` clears all of it); `customFields` replaces the whole list. New card data by any method
            replaces the card under the same token (and is verified when asked). `merchantReference` cannot change.
          tags: [secure-cards]
          requestBody:
            required: true
            content:
              application/json:
                schema: {$ref: "#/components/schemas/SecureCardUpdate"}
                example: {customer: {city: London}, customFields: null}
          responses:
            "200":
              description: Secure Card Updated.
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/SecureCardResult"}
            "400": {$ref: "#/components/responses/BadRequest"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "402": {$ref: "#/components/responses/CardDeclined"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "404": {$ref: "#/components/responses/NotFound"}
            "413": {$ref: "#/components/responses/TooLarge"}
            "415": {$ref: "#/components/responses/UnsupportedMediaType"}
            "422": {$ref: "#/components/responses/Invalid"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "502": {$ref: "#/components/responses/GatewayUnavailable"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
        delete:
          operationId: deleteSecureCard
          summary: Delete a live card (logically; optionally destroying its data)
          description: >
            The record stays for history with status `deleted`; the merchantReference may be registered again.
            While open schedules use the card this is a 409 listing them, unless `cancelSchedules=true`.
          tags: [secure-cards]
          parameters:
            - $ref: "#/components/parameters/cancelSchedules"
            - $ref: "#/components/parameters/purge"
          responses:
            "200":
              description: Secure Card Deleted, with `secureCardReference` null and the token in `deletedReference`.
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/DeletedSecureCard"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "404": {$ref: "#/components/responses/NotFound"}
            "409": {$ref: "#/components/responses/Conflict"}
            "422": {$ref: "#/components/responses/Invalid"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/schedules:
        post:
          operationId: createSchedule
          summary: Create a schedule (pending confirmation; nothing is charged until confirmed)
          tags: [schedules]
          parameters:
            - $ref: "#/components/parameters/idempotencyKey"
          requestBody:
            required: true
            content:
              application/json:
                schema: {$ref: "#/components/schemas/ScheduleRequest"}
                example:
                  merchantReference: cust-1
                  amount: 1999
                  currency: USD
                  description: Gym
                  type: monthly
                  startDate: "2030-01-31"
                  endType: count
                  endCount: 3
                  day: 31
                  hour: 9
                  minute: 0
                  timeZone: America/New_York
          responses:
            "201":
              description: The schedule, in `pending_confirmation`, with its steps.
              headers:
                X-Request-Id: {$ref: "#/components/headers/RequestId"}
                Idempotent-Replayed: {$ref: "#/components/headers/IdempotentReplayed"}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/ScheduleDetail"}
              links:
                Get: {operationId: getSchedule, parameters: {id: "$response.body#/id"}}
                Change: {operationId: changeSchedule, parameters: {id: "$response.body#/id"}}
                Steps: {operationId: listScheduleSteps, parameters: {id: "$response.body#/id"}}
                Confirm: {operationId: confirmSchedule, parameters: {id: "$response.body#/id"}}
                Pause: {operationId: pauseSchedule, parameters: {id: "$response.body#/id"}}
                Resume: {operationId: resumeSchedule, parameters: {id: "$response.body#/id"}}
                Cancel: {operationId: cancelSchedule, parameters: {id: "$response.body#/id"}}
                SkipFirstStep: {operationId: skipScheduleStep, parameters: {id: "$response.body#/id", stepId: "$response.body#/steps/0/id"}}
            "400": {$ref: "#/components/responses/BadRequest"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "409": {$ref: "#/components/responses/IdempotencyConflict"}
            "413": {$ref: "#/components/responses/TooLarge"}
            "415": {$ref: "#/components/responses/UnsupportedMediaType"}
            "422": {$ref: "#/components/responses/Invalid"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
        get:
          operationId: listSchedules
          summary: List the merchant's schedules, oldest first (without steps)
          tags: [schedules]
          parameters:
            - $ref: "#/components/parameters/limit"
            - $ref: "#/components/parameters/cursor"
            - $ref: "#/components/parameters/scheduleStatus"
          responses:
            "200":
              description: A page of schedules.
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/SchedulePage"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "422": {$ref: "#/components/responses/Invalid"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/schedules/preview:
        post:
          operationId: previewSchedule
          summary: Expand a schedule request into steps without saving anything
          tags: [schedules]
          parameters:
            - $ref: "#/components/parameters/idempotencyKey"
          requestBody:
            required: true
            content:
              application/json:
                schema: {$ref: "#/components/schemas/ScheduleRequest"}
          responses:
            "200":
              description: The steps (without ids) and warnings.
              headers:
                X-Request-Id: {$ref: "#/components/headers/RequestId"}
                Idempotent-Replayed: {$ref: "#/components/headers/IdempotentReplayed"}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/SchedulePreview"}
            "400": {$ref: "#/components/responses/BadRequest"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "409": {$ref: "#/components/responses/IdempotencyConflict"}
            "413": {$ref: "#/components/responses/TooLarge"}
            "415": {$ref: "#/components/responses/UnsupportedMediaType"}
            "422": {$ref: "#/components/responses/Invalid"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/schedules/{id}:
        parameters:
          - $ref: "#/components/parameters/scheduleId"
        get:
          operationId: getSchedule
          summary: One schedule with its steps
          tags: [schedules]
          responses:
            "200":
              description: The schedule.
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/ScheduleDetail"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "404": {$ref: "#/components/responses/NotFound"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
        patch:
          operationId: changeSchedule
          summary: Change amount, card, receipt contacts or description for future steps
          description: >
            Only steps still scheduled and not yet due take a new amount. The plan itself (currency, type,
            dates, time, time zone, end) cannot change: cancel and create another schedule.
          tags: [schedules]
          requestBody:
            required: true
            content:
              application/json:
                schema: {$ref: "#/components/schemas/ScheduleChange"}
                example: {amount: 2499, receiptEmail: null}
          responses:
            "200":
              description: The changed schedule.
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/ScheduleDetail"}
            "400": {$ref: "#/components/responses/BadRequest"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "404": {$ref: "#/components/responses/NotFound"}
            "409": {$ref: "#/components/responses/Conflict"}
            "413": {$ref: "#/components/responses/TooLarge"}
            "415": {$ref: "#/components/responses/UnsupportedMediaType"}
            "422": {$ref: "#/components/responses/Invalid"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/schedules/{id}/steps:
        parameters:
          - $ref: "#/components/parameters/scheduleId"
        get:
          operationId: listScheduleSteps
          summary: The schedule's steps in plan order, each with its charge attempts
          tags: [schedules]
          responses:
            "200":
              description: Every step (for open-ended plans, the materialized ones); not paginated.
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/StepList"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "404": {$ref: "#/components/responses/NotFound"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/schedules/{id}/confirm:
        parameters:
          - $ref: "#/components/parameters/scheduleId"
        post:
          operationId: confirmSchedule
          summary: "`pending_confirmation` to `active`: due steps are charged from now on"
          tags: [schedules]
          parameters:
            - $ref: "#/components/parameters/idempotencyKey"
          responses:
            "200": {$ref: "#/components/responses/ScheduleChanged"}
            "400": {$ref: "#/components/responses/BadRequest"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "404": {$ref: "#/components/responses/NotFound"}
            "409": {$ref: "#/components/responses/Conflict"}
            "413": {$ref: "#/components/responses/TooLarge"}
            "415": {$ref: "#/components/responses/UnsupportedMediaType"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/schedules/{id}/pause:
        parameters:
          - $ref: "#/components/parameters/scheduleId"
        post:
          operationId: pauseSchedule
          summary: "`active` or `past_due` to `paused`: nothing is charged while paused"
          tags: [schedules]
          parameters:
            - $ref: "#/components/parameters/idempotencyKey"
          responses:
            "200": {$ref: "#/components/responses/ScheduleChanged"}
            "400": {$ref: "#/components/responses/BadRequest"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "404": {$ref: "#/components/responses/NotFound"}
            "409": {$ref: "#/components/responses/Conflict"}
            "413": {$ref: "#/components/responses/TooLarge"}
            "415": {$ref: "#/components/responses/UnsupportedMediaType"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/schedules/{id}/resume:
        parameters:
          - $ref: "#/components/parameters/scheduleId"
        post:
          operationId: resumeSchedule
          summary: "`paused` to `active`; steps that fell due while paused are skipped unless `catchUp=true`"
          tags: [schedules]
          parameters:
            - $ref: "#/components/parameters/idempotencyKey"
            - $ref: "#/components/parameters/catchUp"
          responses:
            "200": {$ref: "#/components/responses/ScheduleChanged"}
            "400": {$ref: "#/components/responses/BadRequest"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "404": {$ref: "#/components/responses/NotFound"}
            "409": {$ref: "#/components/responses/Conflict"}
            "413": {$ref: "#/components/responses/TooLarge"}
            "415": {$ref: "#/components/responses/UnsupportedMediaType"}
            "422": {$ref: "#/components/responses/Invalid"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/schedules/{id}/cancel:
        parameters:
          - $ref: "#/components/parameters/scheduleId"
        post:
          operationId: cancelSchedule
          summary: Any open status to `cancelled`; steps not yet charged are cancelled
          tags: [schedules]
          parameters:
            - $ref: "#/components/parameters/idempotencyKey"
          responses:
            "200": {$ref: "#/components/responses/ScheduleChanged"}
            "400": {$ref: "#/components/responses/BadRequest"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "404": {$ref: "#/components/responses/NotFound"}
            "409": {$ref: "#/components/responses/Conflict"}
            "413": {$ref: "#/components/responses/TooLarge"}
            "415": {$ref: "#/components/responses/UnsupportedMediaType"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/schedules/{id}/steps/{stepId}/skip:
        parameters:
          - $ref: "#/components/parameters/scheduleId"
          - $ref: "#/components/parameters/stepId"
        post:
          operationId: skipScheduleStep
          summary: Skip one future step that is still scheduled
          tags: [schedules]
          parameters:
            - $ref: "#/components/parameters/idempotencyKey"
          responses:
            "200": {$ref: "#/components/responses/ScheduleChanged"}
            "400": {$ref: "#/components/responses/BadRequest"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "404": {$ref: "#/components/responses/NotFound"}
            "409": {$ref: "#/components/responses/Conflict"}
            "413": {$ref: "#/components/responses/TooLarge"}
            "415": {$ref: "#/components/responses/UnsupportedMediaType"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/stats:
        get:
          operationId: getStatistics
          summary: Count, turnover, min, max and average of payments per period and per status
          description: >
            Groups the merchant's payments (types `sale` and `authorize` unless `type` names another; a payment's
            status shows what became of it: captured, voided, refunded) by local day, month, quarter or year of the
            merchant's time zone, from `from` through `to` (both included, on `createdAt`). Every period in the range
            is answered, empty ones included; the first and last are clipped to the range. Without `currency` the
            figures are split per currency and `currencies` lists every currency with a payment in the range (amounts
            of different currencies are never added); with it, only that currency. Amounts are integer minor units;
            `average` is `turnover / count` rounded half up to a whole minor unit; `min`, `max` and `average` are
            null without payments; `byStatus` lists the statuses that occur. `groupBy=day` covers at most 366 days and
            the other groupings at most 50 years (422 `range_too_long` on `to`).
          tags: [statistics]
          parameters:
            - $ref: "#/components/parameters/statisticsFrom"
            - $ref: "#/components/parameters/statisticsTo"
            - $ref: "#/components/parameters/groupBy"
            - $ref: "#/components/parameters/currencyFilter"
            - $ref: "#/components/parameters/statisticsType"
          responses:
            "200":
              description: Every period of the range with its figures per currency and status.
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Statistics"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "422": {$ref: "#/components/responses/Invalid"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/transactions:
        post:
          operationId: createTransaction
          summary: A sale, authorization or verification, by token or by raw card data
          description: >
            Charges a stored card (`secureCardReference` or `merchantReference`) or raw card data by any capture
            method (`method`, `card`, `track`, `emv` as in card registration), never both. A raw-card sale may carry
            `secureCard` to register the card when the sale is approved (registration by sale); the transaction then
            carries the new `secureCardReference`. The transaction is recorded before the gateway call; a decline is a
            402 and a gateway failure a 502, both with the recorded transaction beside the error.
          tags: [transactions]
          parameters:
            - $ref: "#/components/parameters/idempotencyKey"
          requestBody:
            required: true
            content:
              application/json:
                schema: {$ref: "#/components/schemas/TransactionRequest"}
                example: {type: sale, amount: 1999, currency: USD, merchantReference: cust-1, description: Order 17}
          responses:
            "201":
              description: The approved transaction.
              headers:
                X-Request-Id: {$ref: "#/components/headers/RequestId"}
                Idempotent-Replayed: {$ref: "#/components/headers/IdempotentReplayed"}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Transaction"}
              links:
                Get: {operationId: getTransaction, parameters: {id: "$response.body#/id"}}
                Capture: {operationId: captureTransaction, parameters: {id: "$response.body#/id"}}
                Void: {operationId: voidTransaction, parameters: {id: "$response.body#/id"}}
                Refund: {operationId: refundTransaction, parameters: {id: "$response.body#/id"}}
            "400": {$ref: "#/components/responses/BadRequest"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "402": {$ref: "#/components/responses/TransactionDeclined"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "409": {$ref: "#/components/responses/Conflict"}
            "413": {$ref: "#/components/responses/TooLarge"}
            "415": {$ref: "#/components/responses/UnsupportedMediaType"}
            "422": {$ref: "#/components/responses/Invalid"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "502": {$ref: "#/components/responses/TransactionFailed"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
        get:
          operationId: listTransactions
          summary: Search the merchant's transactions, newest first by default
          description: >
            Every filter given must hold. `from` and `to` are local dates of the merchant's time zone, both included,
            on `createdAt`; `minAmount` and `maxAmount` are minor units, both included. `q` matches the transaction id
            exactly, a merchantReference prefix, a substring of the description (both ignoring ASCII case) or, when it
            is four digits, the card's last four digits. Pages are keyset pages on the recording order, so
            transactions recorded while paging never shift a page: with `sort=createdAt` they appear on later pages,
            with `-createdAt` before the first. A cursor encodes its sort order and is a 422 `invalid_cursor` with
            the other one. Malformed values are a 422 naming the parameter.
          tags: [transactions]
          parameters:
            - $ref: "#/components/parameters/limit"
            - $ref: "#/components/parameters/cursor"
            - $ref: "#/components/parameters/transactionStatus"
            - $ref: "#/components/parameters/transactionType"
            - $ref: "#/components/parameters/scheduleIdFilter"
            - $ref: "#/components/parameters/secureCardReferenceFilter"
            - $ref: "#/components/parameters/dateFrom"
            - $ref: "#/components/parameters/dateTo"
            - $ref: "#/components/parameters/minAmount"
            - $ref: "#/components/parameters/maxAmount"
            - $ref: "#/components/parameters/currencyFilter"
            - $ref: "#/components/parameters/transactionQuery"
            - $ref: "#/components/parameters/transactionSort"
          responses:
            "200":
              description: A page of transactions; `nextCursor` continues in the same order.
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/TransactionPage"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "422": {$ref: "#/components/responses/Invalid"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/transactions/{id}:
        parameters:
          - $ref: "#/components/parameters/transactionId"
        get:
          operationId: getTransaction
          summary: One transaction
          tags: [transactions]
          responses:
            "200":
              description: The transaction.
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Transaction"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "404": {$ref: "#/components/responses/NotFound"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/transactions/{id}/capture:
        parameters:
          - $ref: "#/components/parameters/transactionId"
        post:
          operationId: captureTransaction
          summary: Capture all or part of an approved authorization
          tags: [transactions]
          parameters:
            - $ref: "#/components/parameters/idempotencyKey"
          requestBody:
            required: false
            description: Without a body (or without `amount`) the whole authorized amount is captured.
            content:
              application/json:
                schema: {$ref: "#/components/schemas/FollowUpAmount"}
          responses:
            "201": {$ref: "#/components/responses/FollowUpCreated"}
            "400": {$ref: "#/components/responses/BadRequest"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "402": {$ref: "#/components/responses/TransactionDeclined"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "404": {$ref: "#/components/responses/NotFound"}
            "409": {$ref: "#/components/responses/Conflict"}
            "413": {$ref: "#/components/responses/TooLarge"}
            "415": {$ref: "#/components/responses/UnsupportedMediaType"}
            "422": {$ref: "#/components/responses/Invalid"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "502": {$ref: "#/components/responses/TransactionFailed"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/transactions/{id}/void:
        parameters:
          - $ref: "#/components/parameters/transactionId"
        post:
          operationId: voidTransaction
          summary: Void an approved sale, authorization or capture before settlement
          tags: [transactions]
          parameters:
            - $ref: "#/components/parameters/idempotencyKey"
          responses:
            "201": {$ref: "#/components/responses/FollowUpCreated"}
            "400": {$ref: "#/components/responses/BadRequest"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "402": {$ref: "#/components/responses/TransactionDeclined"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "404": {$ref: "#/components/responses/NotFound"}
            "409": {$ref: "#/components/responses/Conflict"}
            "413": {$ref: "#/components/responses/TooLarge"}
            "415": {$ref: "#/components/responses/UnsupportedMediaType"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "502": {$ref: "#/components/responses/TransactionFailed"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/transactions/{id}/refund:
        parameters:
          - $ref: "#/components/parameters/transactionId"
        post:
          operationId: refundTransaction
          summary: Refund all or part of what remains of a sale or captured authorization
          description: >
            Never more than remains. When the gateway cannot refund an unsettled transaction and the whole amount is
            refunded, the vault voids it instead: the answer is then a transaction of type `void`.
          tags: [transactions]
          parameters:
            - $ref: "#/components/parameters/idempotencyKey"
          requestBody:
            required: false
            description: Without a body (or without `amount`) everything that remains is refunded.
            content:
              application/json:
                schema: {$ref: "#/components/schemas/FollowUpAmount"}
          responses:
            "201": {$ref: "#/components/responses/FollowUpCreated"}
            "400": {$ref: "#/components/responses/BadRequest"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "402": {$ref: "#/components/responses/TransactionDeclined"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "404": {$ref: "#/components/responses/NotFound"}
            "409": {$ref: "#/components/responses/Conflict"}
            "413": {$ref: "#/components/responses/TooLarge"}
            "415": {$ref: "#/components/responses/UnsupportedMediaType"}
            "422": {$ref: "#/components/responses/Invalid"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "502": {$ref: "#/components/responses/TransactionFailed"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/charge-runs:
        post:
          operationId: startChargeRun
          summary: Charge the caller's due steps now (admin or runner keys); runs in the background
          tags: [charge-runs]
          parameters:
            - $ref: "#/components/parameters/idempotencyKey"
          requestBody:
            required: false
            description: Without a body, steps due now are charged.
            content:
              application/json:
                schema: {$ref: "#/components/schemas/ChargeRunRequest"}
          responses:
            "202":
              description: The run was started; poll `GET /v1/charge-runs/{id}` for progress and the summary.
              headers:
                X-Request-Id: {$ref: "#/components/headers/RequestId"}
                Idempotent-Replayed: {$ref: "#/components/headers/IdempotentReplayed"}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/ChargeRun"}
              links:
                Progress: {operationId: getChargeRun, parameters: {id: "$response.body#/id"}}
            "400": {$ref: "#/components/responses/BadRequest"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "409": {$ref: "#/components/responses/Conflict"}
            "413": {$ref: "#/components/responses/TooLarge"}
            "415": {$ref: "#/components/responses/UnsupportedMediaType"}
            "422": {$ref: "#/components/responses/Invalid"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
      /v1/charge-runs/{id}:
        parameters:
          - name: id
            in: path
            required: true
            description: The run id (`run_...`).
            schema: {type: string}
        get:
          operationId: getChargeRun
          summary: A charge run's progress and summary
          tags: [charge-runs]
          responses:
            "200":
              description: The run.
              headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/ChargeRun"}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "404": {$ref: "#/components/responses/NotFound"}
            "429": {$ref: "#/components/responses/RateLimited"}
            "500": {$ref: "#/components/responses/InternalError"}
            "503": {$ref: "#/components/responses/RequestTimeout"}
    components:
      securitySchemes:
        bearer:
          type: http
          scheme: bearer
          description: An API key issued by `vault merchant create` or `vault merchant key`.
      headers:
        RequestId:
          description: The request's id, also in the server's log line for it.
          schema: {type: string}
        IdempotentReplayed:
          description: "`true` when this is the stored response to an earlier request with the same Idempotency-Key."
          schema: {type: string, enum: ["true"]}
        WWWAuthenticate:
          description: Always `Bearer`.
          schema: {type: string, enum: [Bearer]}
        RetryAfter:
          description: Whole seconds until the API key may send its next request.
          schema: {type: integer, minimum: 1}
      parameters:
        limit:
          name: limit
          in: query
          required: false
          description: Items per page; anything else is a 422 `invalid_limit`.
          schema: {type: integer, minimum: 1, maximum: 100, default: 20}
        cursor:
          name: cursor
          in: query
          required: false
          description: The `nextCursor` of the previous page; anything else is a 422 `invalid_cursor`.
          schema: {type: string}
        idempotencyKey:
          name: Idempotency-Key
          in: header
          required: false
          description: >
            1-255 visible ASCII characters (otherwise a 400 `invalid_idempotency_key`). Responses below 500 are
            stored per merchant and replayed for the same method, path, query and body; another request with
            the key is a 409 `idempotency_key_reused`, and one while the first is still running a 409
            `idempotency_key_in_use`. When the card a stored response concerns is purged, the response is
            destroyed and the key answers a 409 `idempotency_response_destroyed` (the request is not run again).
          schema: {type: string, minLength: 1, maxLength: 255, pattern: '^[!-~]{1,255}$'}
        merchantReference:
          name: merchantReference
          in: path
          required: true
          description: >
            The merchant's reference of a live card. On GET only, a card token (`sc_...`) also finds the card,
            live or deleted.
          schema: {type: string, minLength: 1}
        scheduleId:
          name: id
          in: path
          required: true
          description: The schedule's id (`sch_...`).
          schema: {type: string}
        stepId:
          name: stepId
          in: path
          required: true
          description: The step's id (`stp_...`).
          schema: {type: string}
        q:
          name: q
          in: query
          required: false
          description: Text search matching a merchantReference prefix, the last four digits or the BIN.
          schema: {type: string}
        cardReference:
          name: cardReference
          in: query
          required: false
          description: Only the card with this exact token (`sc_...`).
          schema: {type: string}
        includeDeleted:
          name: includeDeleted
          in: query
          required: false
          description: Include deleted cards. `1` and `0` (and an empty value for true) are also accepted; anything else is a 422.
          schema: {type: boolean, default: false}
        cancelSchedules:
          name: cancelSchedules
          in: query
          required: false
          description: Cancel the open schedules that use the card instead of refusing with a 409 `card_in_use`.
          schema: {type: boolean, default: false}
        purge:
          name: purge
          in: query
          required: false
          description: Also destroy the encrypted card data and personal details irreversibly, keeping masked metadata.
          schema: {type: boolean, default: false}
        scheduleStatus:
          name: status
          in: query
          required: false
          description: Only schedules with this status; anything else is a 422.
          schema: {$ref: "#/components/schemas/ScheduleStatus"}
        catchUp:
          name: catchUp
          in: query
          required: false
          description: Keep steps that fell due while paused, so the charge runner charges them late.
          schema: {type: boolean, default: false}
        transactionId:
          name: id
          in: path
          required: true
          description: The transaction's id (`txn_...`).
          schema: {type: string}
        transactionStatus:
          name: status
          in: query
          required: false
          description: Only transactions with this status; anything else is a 422.
          schema: {$ref: "#/components/schemas/TransactionStatus"}
        transactionType:
          name: type
          in: query
          required: false
          description: Only transactions of this type; anything else is a 422.
          schema: {$ref: "#/components/schemas/TransactionType"}
        scheduleIdFilter:
          name: scheduleId
          in: query
          required: false
          description: Only the charges of this schedule.
          schema: {type: string}
        secureCardReferenceFilter:
          name: secureCardReference
          in: query
          required: false
          description: Only transactions on this card token.
          schema: {type: string}
        dateFrom:
          name: from
          in: query
          required: false
          description: Only transactions created on or after this local date of the merchant's time zone.
          schema: {type: string, format: date}
        dateTo:
          name: to
          in: query
          required: false
          description: Only transactions created on or before this local date (included); not before `from`.
          schema: {type: string, format: date}
        minAmount:
          name: minAmount
          in: query
          required: false
          description: Only amounts of at least this many minor units.
          schema: {type: integer, minimum: 0}
        maxAmount:
          name: maxAmount
          in: query
          required: false
          description: Only amounts of at most this many minor units; not below `minAmount`.
          schema: {type: integer, minimum: 0}
        currencyFilter:
          name: currency
          in: query
          required: false
          description: Only this currency (upper-case ISO 4217 code).
          schema: {type: string, pattern: '^[A-Z]{3}$'}
        transactionQuery:
          name: q
          in: query
          required: false
          description: >
            Free text (at most 200 characters): the transaction id exactly, a merchantReference prefix, a substring
            of the description, or the card's last four digits.
          schema: {type: string, maxLength: 200}
        transactionSort:
          name: sort
          in: query
          required: false
          description: "`-createdAt` (newest first, the default) or `createdAt` (oldest first)."
          schema: {type: string, enum: [createdAt, -createdAt], default: -createdAt}
        statisticsFrom:
          name: from
          in: query
          required: true
          description: The first local date counted, in the merchant's time zone.
          schema: {type: string, format: date}
        statisticsTo:
          name: to
          in: query
          required: true
          description: The last local date counted (included); not before `from`.
          schema: {type: string, format: date}
        groupBy:
          name: groupBy
          in: query
          required: false
          description: The period length, on the merchant's calendar (quarters start in January, April, July, October).
          schema: {type: string, enum: [day, month, quarter, year], default: day}
        statisticsType:
          name: type
          in: query
          required: false
          description: Count only this transaction type instead of the payments (`sale` and `authorize`).
          schema: {$ref: "#/components/schemas/TransactionType"}
        auditActor:
          name: actor
          in: query
          required: false
          description: Only events by this actor (`apikey:<id>`, `cli`, `runner`, `system`).
          schema: {type: string, maxLength: 200}
        auditAction:
          name: action
          in: query
          required: false
          description: Only this action, e.g. `secure_card.registered`.
          schema: {type: string, maxLength: 200}
        auditObjectType:
          name: objectType
          in: query
          required: false
          description: Only events about this kind of object, e.g. `transaction`.
          schema: {type: string, maxLength: 200}
        auditObjectId:
          name: objectId
          in: query
          required: false
          description: Only events about this object.
          schema: {type: string, maxLength: 200}
        instantFrom:
          name: from
          in: query
          required: false
          description: Only events at or after this RFC 3339 instant (encode `+` as `%2B`).
          schema: {type: string, format: date-time}
        instantTo:
          name: to
          in: query
          required: false
          description: Only events at or before this RFC 3339 instant; not before `from`.
          schema: {type: string, format: date-time}
      responses:
        RateLimited:
          description: >
            The API key sent more requests than its rate allows (`rate_limit_error`, `rate_limited`): a token bucket
            per key refilled at `rateLimit.requestsPerSecond` with room for `rateLimit.burst`. `Retry-After` says when
            to try again.
          headers:
            X-Request-Id: {$ref: "#/components/headers/RequestId"}
            Retry-After: {$ref: "#/components/headers/RetryAfter"}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        RequestTimeout:
          description: >
            The request ran longer than `server.requestTimeoutSeconds` and was stopped (`api_error`,
            `request_timeout`). An Idempotency-Key is released, so the request may be retried with it.
          headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        ScheduleChanged:
          description: The schedule after the change, with its steps.
          headers:
            X-Request-Id: {$ref: "#/components/headers/RequestId"}
            Idempotent-Replayed: {$ref: "#/components/headers/IdempotentReplayed"}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/ScheduleDetail"}
        FollowUpCreated:
          description: The follow-up transaction, approved; its `parentId` is the original.
          headers:
            X-Request-Id: {$ref: "#/components/headers/RequestId"}
            Idempotent-Replayed: {$ref: "#/components/headers/IdempotentReplayed"}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Transaction"}
        TransactionDeclined:
          description: >
            The gateway (or the vault, for an expired card) declined: type `card_error`, `code` the decline code, and
            the recorded transaction beside the error as `transaction`.
          headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        TransactionFailed:
          description: >
            The gateway failed (`gateway_error`, nothing was charged) or its answer was lost (`gateway_in_doubt`,
            settled later with the same idempotency key), both with the recorded transaction as `transaction`; or the
            merchant's gateway is not configured (`gateway_not_configured`, nothing recorded).
          headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        BadRequest:
          description: >
            Malformed request: the body is missing, not JSON or not UTF-8 (`invalid_json`, `missing_body`), an object in
            it gives a key twice (`duplicate_key`, at any depth: ambiguous input is refused, never guessed), or the
            Idempotency-Key is malformed (`invalid_idempotency_key`).
          headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        Unauthorized:
          description: No valid API key (`authentication_error`, `invalid_api_key`).
          headers:
            X-Request-Id: {$ref: "#/components/headers/RequestId"}
            WWW-Authenticate: {$ref: "#/components/headers/WWWAuthenticate"}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        CardDeclined:
          description: >
            The gateway declined the card on verification: type `card_error`, `code` the decline code, `param` `card`.
            Nothing was stored.
          headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        Forbidden:
          description: The key's role may not do this (`permission_error`, `role_not_allowed`).
          headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        NotFound:
          description: No such object for this merchant (`not_found_error`, `resource_missing`).
          headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        Conflict:
          description: >
            Conflicts with the current state (`conflict_error`: e.g. `merchant_reference_taken`, `card_in_use`,
            `invalid_schedule_status`, `step_not_skippable`, `card_integrity_failed` for a stored card whose
            record was altered), or an Idempotency-Key reused with another request
            or still in progress (`idempotency_error`).
          headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        IdempotencyConflict:
          description: >
            The Idempotency-Key was used with another request, or that request is still in progress
            (`idempotency_error`: `idempotency_key_reused`, `idempotency_key_in_use`), or its stored response
            was destroyed with its purged card (`idempotency_response_destroyed`).
          headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        TooLarge:
          description: The body is larger than the configured limit (`body_too_large`; 1 MiB by default).
          headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        UnsupportedMediaType:
          description: A body was sent that is not `application/json` or `application/*+json` (`unsupported_media_type`).
          headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        Invalid:
          description: >
            Well-formed JSON or query that breaks a rule (`invalid_request_error`); `code` says which rule and
            `param` names the field, e.g. `card.number`, `customFields[0].name`, `plan` fields such as `day`. A card
            number (a Luhn-valid run of 13-19 digits, also typed in groups with spaces or dashes) in a reference or
            free-text field is `card_number_not_allowed`: card numbers are accepted only as card data.
          headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        InternalError:
          description: Something failed on the server (`api_error`, `internal_error`); the detail is only in the log.
          headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        GatewayUnavailable:
          description: The gateway could not verify the card (`api_error`, `gateway_unavailable`); nothing was stored.
          headers: {X-Request-Id: {$ref: "#/components/headers/RequestId"}}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
      schemas:
        ChargeRunRequest:
          type: object
          description: Any other field is a 422 `unknown_field`, and a null a 422 (a misspelt or null `dryRun` must not start a real run).
          additionalProperties: false
          properties:
            asOf: {type: string, format: date-time, description: "Charge steps due at or before this instant (not in the future; default now)."}
            dryRun: {type: boolean, description: Report what is due and change nothing.}
        OutcomeTotals:
          type: object
          required: [count, totals]
          additionalProperties: false
          properties:
            count: {type: integer, minimum: 0}
            totals:
              type: object
              description: Minor units per ISO 4217 currency code.
              additionalProperties: {type: integer}
        ChargeRunSummary:
          type: object
          required: [runId, asOf, dryRun, due, outcomes, schedulesExtended, schedulesCompleted, schedulesPastDue, durationSeconds, chargesPerSecond, settled]
          additionalProperties: false
          properties:
            runId: {type: string}
            asOf: {type: string, format: date-time}
            dryRun: {type: boolean}
            due: {$ref: "#/components/schemas/OutcomeTotals"}
            outcomes:
              type: object
              description: Keyed by approved, retry_scheduled, failed, expired_card, unsettled.
              additionalProperties: {$ref: "#/components/schemas/OutcomeTotals"}
            schedulesExtended: {type: integer}
            schedulesCompleted: {type: integer}
            schedulesPastDue: {type: integer}
            durationSeconds: {type: number}
            chargesPerSecond: {type: number}
            settled: {type: boolean}
        ChargeRun:
          type: object
          required: [id, status, asOf, dryRun, startedAt, finishedAt, summary]
          additionalProperties: false
          properties:
            id: {type: string}
            status: {type: string, enum: [running, completed, failed]}
            asOf: {type: string, format: date-time}
            dryRun: {type: boolean}
            startedAt: {type: string, format: date-time}
            finishedAt: {type: [string, "null"], format: date-time}
            summary:
              oneOf:
                - {$ref: "#/components/schemas/ChargeRunSummary"}
                - {type: "null"}
        Error:
          type: object
          required: [error]
          additionalProperties: false
          properties:
            error:
              type: object
              required: [type, code, message, param]
              additionalProperties: false
              properties:
                type:
                  type: string
                  enum: [invalid_request_error, authentication_error, permission_error, not_found_error, conflict_error,
                         idempotency_error, rate_limit_error, card_error, api_error]
                code: {type: string, description: Machine-readable reason.}
                message: {type: string, description: A sentence for people; never card data.}
                param: {type: [string, "null"], description: "The request field at fault, when there is one."}
            transaction:
              $ref: "#/components/schemas/Transaction"
              description: The recorded transaction, beside a 402 or 502 of the transaction routes.
        Health:
          type: object
          required: [status]
          additionalProperties: false
          properties:
            status: {type: string, enum: [ok]}
        Readiness:
          type: object
          required: [status, database, keys]
          additionalProperties: false
          properties:
            status: {type: string, enum: [ready, not_ready]}
            database: {type: string, enum: [ok, unavailable]}
            keys: {type: string, enum: [ok, unavailable]}
        AuditEvent:
          type: object
          required: [sequence, id, occurredAt, actor, action, objectType, details, hash]
          additionalProperties: false
          properties:
            sequence: {type: integer, minimum: 1, description: Position in the hash chain.}
            id: {type: string, description: "`ae_...`"}
            occurredAt: {type: string, format: date-time}
            merchantId: {type: string, description: Absent for operator actions on the installation.}
            actor: {type: string, description: "`apikey:<id>`, `cli`, `runner` or `system`."}
            action: {type: string, description: "A dotted verb such as `secure_card.registered`."}
            objectType: {type: string}
            objectId: {type: string}
            details:
              type: object
              additionalProperties: {type: string}
            hash: {type: string, pattern: '^[0-9a-f]{64}$'}
        AuditEventPage:
          type: object
          required: [data, nextCursor]
          additionalProperties: false
          properties:
            data:
              type: array
              items: {$ref: "#/components/schemas/AuditEvent"}
            nextCursor: {type: [string, "null"]}
        CustomFieldDefinition:
          type: object
          required: [name, required, maxLength]
          properties:
            name: {type: string, pattern: '^[A-Za-z0-9_.-]{1,64}$', description: Unique (case-sensitive) in the set.}
            required: {type: boolean, description: Whether every card must carry the field with a non-empty value.}
            maxLength: {type: integer, minimum: 1, maximum: 1024, description: "Longest value, in characters."}
        CustomFieldDefinitions:
          type: object
          required: [fields]
          properties:
            fields:
              type: array
              maxItems: 100
              items: {$ref: "#/components/schemas/CustomFieldDefinition"}
        CustomField:
          type: object
          required: [name, value]
          properties:
            name: {type: string, description: A name the merchant has defined (exact match).}
            value: {type: string, description: "At most the definition's `maxLength` characters, no control characters."}
        CardBrand:
          type: string
          enum: [visa, mastercard, amex, discover, jcb, diners, unionpay, maestro, mir]
        CaptureMethod:
          type: string
          enum: [keyed, ocr, track, emv]
        CardInput:
          type: object
          description: The card for methods `keyed` and `ocr`.
          required: [number, expiryDate]
          properties:
            number:
              type: string
              maxLength: 64
              pattern: '^[ -]*([0-9][ -]*){12,19}$'
              description: 12-19 digits (spaces and dashes allowed), Luhn-valid, of a known brand and a length valid for it.
            expiryDate: {type: string, pattern: '^(0[1-9]|1[0-2])[0-9]{2}$', description: "MMYY; a real month, not in the past."}
            holderName: {type: string, description: Trimmed; at most 100 characters; no control characters.}
            cvv:
              type: string
              pattern: '^[0-9]{3,4}$'
              description: Keyed only (an OCR request with a CVV is a 422); the brand's length. Used for verification, never stored.
            cardType:
              type: string
              maxLength: 40
              description: >
                Expected brand, e.g. `visa`, `VISA`, `MasterCard`, `American Express`; must match the brand detected
                from the number.
        CustomerInput:
          type: object
          description: >
            Customer details; every field optional. Values are trimmed (blank means none) and the country upper-cased
            before the rules apply.
          properties:
            email: {type: string, format: email, description: "`name@example.com` shape, at most 254 characters."}
            mobileNumber: {type: string, description: "Optional `+`, then 7-15 digits; spaces, dashes, dots and parentheses between digits."}
            city: {type: string, description: "1-100 characters, no control characters."}
            region: {type: string, description: "1-100 characters, no control characters."}
            country: {type: string, description: "An assigned ISO 3166-1 alpha-2 code, e.g. `GB`."}
            ipAddress: {type: string, description: An IPv4 or IPv6 address.}
        Customer:
          type: object
          description: Stored customer details, normalised; absent fields were not given.
          additionalProperties: false
          properties:
            email: {type: string, maxLength: 254}
            mobileNumber: {type: string}
            city: {type: string, minLength: 1, maxLength: 100}
            region: {type: string, minLength: 1, maxLength: 100}
            country: {type: string, pattern: '^[A-Z]{2}$'}
            ipAddress: {type: string}
        CardVerification:
          type: object
          description: What the gateway said when the card data was verified.
          required: [status, gateway, verifiedAt]
          additionalProperties: false
          properties:
            status: {type: string, enum: [verified]}
            gateway: {type: string, description: The adapter that verified the card.}
            transactionId: {type: string}
            avsResult: {type: string}
            cvvResult: {type: string}
            verifiedAt: {type: string, format: date-time}
        SecureCardRegistration:
          type: object
          description: >
            `method` defaults to `track` when `track` is sent, `emv` when `emv` is sent, else `keyed`. Each method
            takes only its own input (`card`, `track` or `emv`); sending another's is a 422 `not_allowed`.
          required: [merchantReference]
          oneOf:
            - required: [card]
              not: {anyOf: [{required: [track]}, {required: [emv]}]}
              properties: {method: {enum: [keyed, ocr]}}
            - required: [track]
              not: {anyOf: [{required: [card]}, {required: [emv]}]}
              properties: {method: {const: track}}
            - required: [emv]
              not: {anyOf: [{required: [card]}, {required: [track]}]}
              properties: {method: {const: emv}}
          properties:
            merchantReference:
              type: string
              pattern: '^[A-Za-z0-9._:-]{1,64}$'
              description: The merchant's key for the card, unique among its live cards (else a 409).
            method: {$ref: "#/components/schemas/CaptureMethod"}
            card: {$ref: "#/components/schemas/CardInput"}
            track:
              type: string
              description: "Raw magnetic-stripe data: track 1 (`%B...^NAME^YYMM...?`) and/or track 2 (`;PAN=YYMM...?`)."
            emv: {type: string, description: "Hex BER-TLV from the chip: `5A` PAN, `5F24` expiry, `5F20` name, or `57` track 2."}
            customer: {$ref: "#/components/schemas/CustomerInput"}
            customFields:
              type: array
              description: Checked against the merchant's definitions (unknown names, duplicates, lengths, required fields).
              items: {$ref: "#/components/schemas/CustomField"}
            verify: {type: boolean, description: "Verify with the merchant's gateway; default from the merchant's settings."}
        SecureCardUpdate:
          type: object
          description: >
            Present fields replace, absent stay, null clears. Card data (`method`, `card`, `track`, `emv`) as in
            registration replaces the card under the same token. Sending `merchantReference` is a 422.
          not: {required: [merchantReference]}
          properties:
            method: {$ref: "#/components/schemas/CaptureMethod"}
            card: {$ref: "#/components/schemas/CardInput"}
            track: {type: string}
            emv: {type: string}
            customer:
              description: Given fields replace the stored ones; null clears all customer details.
              oneOf:
                - $ref: "#/components/schemas/CustomerInput"
                - type: "null"
            customFields:
              description: Replaces the whole list; null clears it.
              type: [array, "null"]
              items: {$ref: "#/components/schemas/CustomField"}
            verify: {type: boolean, description: Verify new card data with the gateway; default from the merchant's settings.}
        SecureCard:
          type: object
          description: A secure card as stored (SPEC §4); list items have no `description`.
          required: [secureCardReference, merchantReference, status, cardType, bin, last4, maskedNumber, expiryDate,
                     holderName, entryMode, fingerprint, keyVersion, customer, customFields, verification, createdAt,
                     updatedAt, deletedAt, purgedAt]
          additionalProperties: false
          properties:
            description:
              type: string
              enum: [Secure Card Saved, Secure Card Retrieved, Secure Card Updated, Secure Card Deleted]
            secureCardReference:
              type: [string, "null"]
              description: "The card's token, `sc_...`, stable across updates; null only in the delete response."
            deletedReference: {type: string, description: The deleted card's token (delete response only).}
            merchantReference: {type: string, pattern: '^[A-Za-z0-9._:-]{1,64}$'}
            status: {type: string, enum: [active, deleted]}
            cardType: {$ref: "#/components/schemas/CardBrand"}
            bin: {type: string, pattern: '^[0-9]{6}$'}
            last4: {type: string, pattern: '^[0-9]{4}$'}
            maskedNumber: {type: string, pattern: '^[0-9]{6}\*+[0-9]{4}$', description: "e.g. `411111******1111`"}
            expiryDate: {type: string, pattern: '^[0-9]{4}$', description: MMYY.}
            holderName: {type: [string, "null"]}
            entryMode: {$ref: "#/components/schemas/CaptureMethod"}
            fingerprint:
              type: string
              description: Keyed hash of the card number; equal for the same number under the same merchant, never shared across merchants.
            keyVersion: {type: integer, minimum: 1, description: The data-key version that sealed the record.}
            customer:
              oneOf:
                - $ref: "#/components/schemas/Customer"
                - type: "null"
            customFields:
              type: array
              items: {$ref: "#/components/schemas/CustomField"}
            verification:
              oneOf:
                - $ref: "#/components/schemas/CardVerification"
                - type: "null"
            cancelledSchedules:
              type: array
              description: Ids of the schedules cancelled with the card (delete response only).
              items: {type: string}
            createdAt: {type: string, format: date-time}
            updatedAt: {type: string, format: date-time}
            deletedAt: {type: [string, "null"], format: date-time}
            purgedAt: {type: [string, "null"], format: date-time}
        SecureCardResult:
          description: A card answered by register, retrieve or update, with the seed's `description`.
          allOf:
            - $ref: "#/components/schemas/SecureCard"
            - type: object
              required: [description]
              properties:
                description: {enum: [Secure Card Saved, Secure Card Retrieved, Secure Card Updated]}
                secureCardReference: {type: string, pattern: '^sc_[a-z2-7]+$'}
        DeletedSecureCard:
          description: The deleted card, with `secureCardReference` null and the token in `deletedReference`.
          allOf:
            - $ref: "#/components/schemas/SecureCard"
            - type: object
              required: [description, deletedReference, cancelledSchedules]
              properties:
                description: {const: Secure Card Deleted}
                secureCardReference: {type: "null"}
                status: {const: deleted}
        SecureCardPage:
          type: object
          required: [data, nextCursor]
          additionalProperties: false
          properties:
            data:
              type: array
              items: {$ref: "#/components/schemas/SecureCard"}
            nextCursor: {type: [string, "null"]}
        PlanType:
          type: string
          enum: [delayedOnce, weekly, monthly, quarterly, annual, arbitraryDates]
        EndType:
          type: string
          enum: [date, count, never]
        ScheduleStatus:
          type: string
          enum: [pending_confirmation, active, paused, past_due, completed, cancelled, expired]
        StepStatus:
          type: string
          enum: [scheduled, processing, retry_pending, approved, failed, skipped, cancelled]
        ScheduleRequest:
          type: object
          description: >
            The card (`secureCardReference` or `merchantReference`, a live card of this merchant), the amount per
            step, and the plan (SPEC §7). `delayedOnce` needs `startDate`; `weekly` `startDate`, the end and `day`
            0-7; `monthly` `startDate`, the end and `day` 1-32; `quarterly` and `annual` also `month`;
            `arbitraryDates` needs `dates`. Repeating types need `endType`: `date` with `endDate`, `count` with
            `endCount`, or `never`; `delayedOnce` and `arbitraryDates` take no end fields. Fields a type does not
            use are a 422 `not_allowed`. Dates may not be in the past (in the plan's zone); finite plans have at
            most the configured number of steps (1000 by default). A card expiring before the first step is a 422.
          required: [amount, currency, type]
          allOf:
            - anyOf:
                - required: [secureCardReference]
                - required: [merchantReference]
            - if: {required: [type], properties: {type: {const: arbitraryDates}}}
              then: {required: [dates]}
              else: {required: [startDate]}
            - if: {required: [type], properties: {type: {enum: [weekly, monthly, quarterly, annual]}}}
              then: {required: [endType, day]}
            - if: {required: [type], properties: {type: {enum: [quarterly, annual]}}}
              then: {required: [month]}
            - if: {required: [type], properties: {type: {enum: [delayedOnce, arbitraryDates]}}}
              then: {properties: {endType: false, endDate: false, endCount: false, month: false, day: false}}
            - if: {required: [type], properties: {type: {enum: [weekly, monthly]}}}
              then: {properties: {month: false}}
            - if: {required: [endType], properties: {endType: {const: date}}}
              then: {required: [endDate], properties: {endCount: false}}
            - if: {required: [endType], properties: {endType: {const: count}}}
              then: {required: [endCount], properties: {endDate: false}}
            - if: {required: [endType], properties: {endType: {const: never}}}
              then: {properties: {endDate: false, endCount: false}}
          dependentRequired: {minute: [hour]}
          properties:
            secureCardReference: {type: string, description: "The card's token, `sc_...`; wins over merchantReference."}
            merchantReference: {type: string, pattern: '^[A-Za-z0-9._:-]{1,64}$'}
            amount:
              type: integer
              format: int64
              minimum: 1
              maximum: 99999999999
              description: Per step, in minor units (a whole number).
            currency: {type: string, pattern: '^[A-Z]{3}$', description: "A known ISO 4217 code, upper case."}
            description: {type: string, maxLength: 255}
            receiptEmail: {type: string, format: email, maxLength: 254}
            receiptPhone:
              type: string
              maxLength: 32
              pattern: '^(\+[ ().-]*[1-9]|[ ().-]*[0-9])[ ().-]*([0-9][ ().-]*){6,14}$'
              description: "Optional `+` (then not 0), then 7-15 digits; spaces, dashes, dots and parentheses between digits."
            externalId: {type: string, maxLength: 64}
            type: {$ref: "#/components/schemas/PlanType"}
            startDate: {type: string, format: date, description: yyyy-MM-dd; today or later.}
            endType: {$ref: "#/components/schemas/EndType"}
            endDate: {type: string, format: date}
            endCount: {type: integer, minimum: 1, description: At most the configured step limit (1000 by default).}
            month: {type: integer, minimum: 1, maximum: 12, description: Quarterly and annual plans.}
            day:
              type: integer
              minimum: 0
              maximum: 32
              description: Weekly 0-7 (0 and 7 Sunday); monthly, quarterly and annual 1-32 (32 is the month's last day).
            hour: {type: integer, minimum: 0, maximum: 23, description: Local hour steps fall due; default from configuration.}
            minute: {type: integer, minimum: 0, maximum: 59, description: Needs `hour`; default 0.}
            dates:
              type: array
              uniqueItems: true
              minItems: 1
              items: {type: string, format: date}
            timeZone: {type: string, description: "IANA zone such as `Europe/London`; default the merchant's."}
        ScheduleChange:
          type: object
          description: >
            Absent fields stay; null clears `description`, `receiptEmail` and `receiptPhone`. Plan fields
            (`currency`, `type`, `startDate`, `endType`, `endDate`, `endCount`, `month`, `day`, `hour`, `minute`,
            `dates`, `timeZone`) are a 422 `not_changeable`.
          not:
            anyOf:
              - required: [currency]
              - required: [type]
              - required: [startDate]
              - required: [endType]
              - required: [endDate]
              - required: [endCount]
              - required: [month]
              - required: [day]
              - required: [hour]
              - required: [minute]
              - required: [dates]
              - required: [timeZone]
          properties:
            amount: {type: integer, format: int64, minimum: 1, maximum: 99999999999}
            secureCardReference: {type: string}
            merchantReference: {type: string, pattern: '^[A-Za-z0-9._:-]{1,64}$'}
            description: {type: [string, "null"], maxLength: 255}
            receiptEmail: {type: [string, "null"], format: email, maxLength: 254}
            receiptPhone: {type: [string, "null"], maxLength: 32, pattern: '^(\+[ ().-]*[1-9]|[ ().-]*[0-9])[ ().-]*([0-9][ ().-]*){6,14}$'}
        Step:
          type: object
          required: [id, sequence, date, dueAt, amount, currency, status, attempts]
          additionalProperties: false
          properties:
            id: {type: string, description: "`stp_...`"}
            sequence: {type: integer, minimum: 1}
            date: {type: string, format: date, description: The step's local date.}
            dueAt: {type: string, format: date-time, description: The instant the step falls due.}
            amount: {type: integer, format: int64, minimum: 1}
            currency: {type: string, pattern: '^[A-Z]{3}$'}
            status: {$ref: "#/components/schemas/StepStatus"}
            attempts: {type: integer, minimum: 0}
        PreviewStep:
          type: object
          required: [sequence, date, dueAt, amount, currency, status]
          additionalProperties: false
          properties:
            sequence: {type: integer, minimum: 1}
            date: {type: string, format: date}
            dueAt: {type: string, format: date-time}
            amount: {type: integer, format: int64, minimum: 1}
            currency: {type: string, pattern: '^[A-Z]{3}$'}
            status: {$ref: "#/components/schemas/StepStatus"}
        Schedule:
          type: object
          description: >
            A schedule: its card, amount and plan as given (with the time and zone in force), its status and, except
            in lists, its steps. Absent optional fields were not given.
          required: [id, status, secureCardReference, amount, currency, type, hour, minute, timeZone, createdAt,
                     updatedAt, warnings]
          additionalProperties: false
          properties:
            id: {type: string, description: "`sch_...`"}
            status: {$ref: "#/components/schemas/ScheduleStatus"}
            secureCardReference: {type: string}
            amount: {type: integer, format: int64, minimum: 1}
            currency: {type: string, pattern: '^[A-Z]{3}$'}
            description: {type: string}
            externalId: {type: string}
            receiptEmail: {type: string}
            receiptPhone: {type: string}
            type: {$ref: "#/components/schemas/PlanType"}
            startDate: {type: string, format: date}
            endType: {$ref: "#/components/schemas/EndType"}
            endDate: {type: string, format: date}
            endCount: {type: integer, minimum: 1}
            month: {type: integer, minimum: 1, maximum: 12}
            day: {type: integer, minimum: 0, maximum: 32}
            hour: {type: integer, minimum: 0, maximum: 23}
            minute: {type: integer, minimum: 0, maximum: 59}
            dates:
              type: array
              items: {type: string, format: date}
            timeZone: {type: string}
            materializedThrough: {type: string, format: date, description: "Open-ended plans: steps exist up to this date."}
            createdAt: {type: string, format: date-time}
            updatedAt: {type: string, format: date-time}
            confirmedAt: {type: string, format: date-time}
            expiresAt: {type: string, format: date-time, description: When an unconfirmed schedule expires.}
            steps:
              type: array
              items: {$ref: "#/components/schemas/Step"}
            warnings:
              type: array
              description: "E.g. `card_expires_before_last_step: ...` (only when created)."
              items: {type: string}
        ScheduleDetail:
          description: A schedule with its steps.
          allOf:
            - $ref: "#/components/schemas/Schedule"
            - type: object
              required: [steps]
        SchedulePreview:
          type: object
          required: [status, steps, warnings]
          additionalProperties: false
          properties:
            status: {const: preview}
            steps:
              type: array
              items: {$ref: "#/components/schemas/PreviewStep"}
            warnings:
              type: array
              items: {type: string}
        SchedulePage:
          type: object
          required: [data, nextCursor]
          additionalProperties: false
          properties:
            data:
              type: array
              items: {$ref: "#/components/schemas/Schedule"}
            nextCursor: {type: [string, "null"]}
        StepList:
          type: object
          required: [data]
          additionalProperties: false
          properties:
            data:
              type: array
              items: {$ref: "#/components/schemas/StepWithTransactions"}
        StepWithTransactions:
          type: object
          description: A step with every charge attempt made for it, oldest first.
          required: [id, sequence, date, dueAt, amount, currency, status, attempts, transactions]
          additionalProperties: false
          properties:
            id: {type: string, description: "`stp_...`"}
            sequence: {type: integer, minimum: 1}
            date: {type: string, format: date, description: The step's local date.}
            dueAt: {type: string, format: date-time, description: The instant the step falls due.}
            amount: {type: integer, format: int64, minimum: 1}
            currency: {type: string, pattern: '^[A-Z]{3}$'}
            status: {$ref: "#/components/schemas/StepStatus"}
            attempts: {type: integer, minimum: 0}
            nextAttemptAt: {type: [string, "null"], format: date-time, description: When the next retry falls due.}
            transactions:
              type: array
              items: {$ref: "#/components/schemas/Transaction"}
        TransactionType:
          type: string
          enum: [sale, authorize, capture, void, refund, verify]
        TransactionStatus:
          type: string
          enum: [pending, approved, declined, error, voided, refunded, partially_refunded, captured, in_doubt]
        TransactionRequest:
          type: object
          description: >
            `sale` and `authorize` need `amount` and `currency`; `verify` moves no money (`amount` 0 or absent,
            `currency` default `USD`). The card is a stored one (`secureCardReference` or `merchantReference`) or raw
            card data, not both. `secureCard` only on a raw-card sale.
          required: [type]
          allOf:
            - if: {properties: {type: {const: verify}}}
              then: {properties: {amount: {const: 0}}}
              else: {required: [amount, currency], properties: {amount: {minimum: 1}}}
            - oneOf:
                - anyOf: [{required: [secureCardReference]}, {required: [merchantReference]}]
                  properties: {card: false, track: false, emv: false, secureCard: false}
                - anyOf: [{required: [card]}, {required: [track]}, {required: [emv]}]
                  properties: {secureCardReference: false, merchantReference: false}
            - if: {required: [secureCard]}
              then: {properties: {type: {const: sale}}}
          properties:
            type: {type: string, enum: [sale, authorize, verify]}
            amount: {type: integer, format: int64, minimum: 0, maximum: 99999999999, description: In minor units.}
            currency: {type: string, pattern: '^[A-Z]{3}$', description: "A known ISO 4217 code, upper case."}
            secureCardReference: {type: string, description: "A live card's token, `sc_...`."}
            merchantReference: {type: string, pattern: '^[A-Za-z0-9._:-]{1,64}$'}
            method: {$ref: "#/components/schemas/CaptureMethod"}
            card: {$ref: "#/components/schemas/CardInput"}
            track: {type: string}
            emv: {type: string}
            secureCard: {$ref: "#/components/schemas/SaleRegistration"}
            description: {type: string}
        SaleRegistration:
          type: object
          description: The card to register when a raw-card sale is approved.
          required: [merchantReference]
          properties:
            merchantReference:
              type: string
              pattern: '^[A-Za-z0-9._:-]{1,64}$'
              description: Must not be taken by a live card (else a 409 `merchant_reference_taken`).
            customer: {$ref: "#/components/schemas/CustomerInput"}
            customFields:
              type: array
              items: {$ref: "#/components/schemas/CustomField"}
        FollowUpAmount:
          type: object
          properties:
            amount:
              type: integer
              format: int64
              minimum: 1
              description: Minor units; a capture at most the authorized amount, a refund at most what remains.
        Transaction:
          type: object
          description: A gateway transaction as recorded (SPEC §6), with the seed's `state`/`subState` codes.
          required: [id, type, status, state, subState, amount, currency, capturedAmount, refundedAmount, secureCardReference,
                     merchantReference, cardType, maskedNumber, scheduleId, stepId, attempt, parentId, description, createdAt,
                     updatedAt, gateway, decline, errorCode]
          additionalProperties: false
          properties:
            id: {type: string, description: "`txn_...`"}
            type: {$ref: "#/components/schemas/TransactionType"}
            status: {$ref: "#/components/schemas/TransactionStatus"}
            state: {type: integer, enum: [100, 200, 400, 500]}
            subState: {type: integer, enum: [101, 201, 202, 411, 412, 502, 504]}
            amount: {type: integer, format: int64, minimum: 0}
            currency: {type: string, pattern: '^[A-Z]{3}$'}
            capturedAmount: {type: integer, format: int64, minimum: 0}
            refundedAmount: {type: integer, format: int64, minimum: 0}
            secureCardReference: {type: [string, "null"]}
            merchantReference: {type: [string, "null"]}
            cardType:
              oneOf:
                - $ref: "#/components/schemas/CardBrand"
                - type: "null"
            maskedNumber: {type: [string, "null"]}
            scheduleId: {type: [string, "null"]}
            stepId: {type: [string, "null"]}
            attempt: {type: [integer, "null"], minimum: 1}
            parentId: {type: [string, "null"], description: "The original of a capture, void or refund."}
            description: {type: [string, "null"]}
            createdAt: {type: string, format: date-time}
            updatedAt: {type: string, format: date-time}
            gateway:
              type: object
              required: [name, transactionId, authCode, responseCode, responseText, avsResult, cvvResult]
              additionalProperties: false
              properties:
                name: {type: string, enum: [sandbox, authorizenet, nmi], description: "The adapter (the gateway catalogue's names)."}
                transactionId: {type: [string, "null"]}
                authCode: {type: [string, "null"]}
                responseCode: {type: [string, "null"]}
                responseText: {type: [string, "null"]}
                avsResult: {type: [string, "null"]}
                cvvResult: {type: [string, "null"]}
            decline:
              oneOf:
                - type: object
                  required: [code, category]
                  additionalProperties: false
                  properties:
                    code: {type: string, description: "e.g. `card_declined`, `insufficient_funds`, `expired_card`"}
                    category: {type: string, enum: [hard, soft]}
                - type: "null"
            errorCode: {type: [string, "null"], description: Why the gateway failed or the outcome is unknown.}
        TransactionPage:
          type: object
          required: [data, nextCursor]
          additionalProperties: false
          properties:
            data:
              type: array
              items: {$ref: "#/components/schemas/Transaction"}
            nextCursor: {type: [string, "null"]}
        StatisticsFigures:
          type: object
          required: [count, turnover, min, max, average]
          additionalProperties: false
          properties:
            count: {type: integer, minimum: 0}
            turnover: {type: integer, minimum: 0, description: The sum of the amounts, in minor units.}
            min: {type: [integer, "null"], description: The smallest amount; null without payments.}
            max: {type: [integer, "null"], description: The largest amount; null without payments.}
            average: {type: [integer, "null"], description: "`turnover / count` rounded half up to a whole minor unit; null without payments."}
        CurrencyStatistics:
          type: object
          required: [currency, count, turnover, min, max, average, byStatus]
          additionalProperties: false
          properties:
            currency: {type: string, pattern: '^[A-Z]{3}$'}
            count: {type: integer, minimum: 0}
            turnover: {type: integer, minimum: 0, description: The sum of the amounts, in minor units.}
            min: {type: [integer, "null"]}
            max: {type: [integer, "null"]}
            average: {type: [integer, "null"], description: "Rounded half up; null without payments."}
            byStatus:
              type: object
              description: The same figures per transaction status (keys are `TransactionStatus` values); statuses without payments are absent.
              additionalProperties: {$ref: "#/components/schemas/StatisticsFigures"}
        StatisticsGroup:
          type: object
          required: [period, from, to, startsAt, endsAt, byCurrency]
          additionalProperties: false
          properties:
            period: {type: string, description: "`2027-03-31` (day), `2027-03` (month), `2027-Q1` (quarter) or `2027` (year)."}
            from: {type: string, format: date, description: "The first local date counted: the period's first day, or the range's `from`."}
            to: {type: string, format: date, description: "The last local date counted: the period's last day, or the range's `to`."}
            startsAt: {type: string, format: date-time, description: "Local midnight starting `from`, as a UTC instant (included)."}
            endsAt: {type: string, format: date-time, description: "Local midnight after `to`, as a UTC instant (excluded)."}
            byCurrency:
              type: array
              description: One entry per currency of `currencies`, empty ones included.
              items: {$ref: "#/components/schemas/CurrencyStatistics"}
        Statistics:
          type: object
          required: [from, to, groupBy, timeZone, currency, types, currencies, groups]
          additionalProperties: false
          properties:
            from: {type: string, format: date}
            to: {type: string, format: date}
            groupBy: {type: string, enum: [day, month, quarter, year]}
            timeZone: {type: string, description: "The merchant's IANA time zone, in which periods are read."}
            currency: {type: [string, "null"], description: The currency asked for; null when the figures are split per currency.}
            types:
              type: array
              description: The transaction types counted.
              items: {$ref: "#/components/schemas/TransactionType"}
            currencies:
              type: array
              description: The currencies reported, in code order.
              items: {type: string, pattern: '^[A-Z]{3}$'}
            groups:
              type: array
              description: Every period from `from` through `to`, in order.
              items: {$ref: "#/components/schemas/StatisticsGroup"}
    """#
}

/// The OpenAPI 3.1 description of the HTTP API. Every route the router serves is listed here; a
/// test checks the two agree.
enum OpenAPIDocument {
    static let yaml = """
    openapi: 3.1.0
    info:
      title: Secure-card vault
      version: 1.0.0
      description: >
        Encrypted card vault with recurring billing. Authenticate with `Authorization: Bearer <api key>`.
        Every POST accepts an `Idempotency-Key` header. Errors use one envelope:
        `{"error": {"type", "code", "message", "param"}}`.
    servers:
      - url: http://127.0.0.1:8080
    security:
      - bearer: []
    paths:
      /healthz:
        get:
          operationId: health
          summary: Liveness
          security: []
          responses:
            "200":
              description: The process answers.
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      status: {type: string, enum: [ok]}
      /readyz:
        get:
          operationId: ready
          summary: Readiness (database and keys usable)
          security: []
          responses:
            "200":
              description: Ready.
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Readiness"}
            "503":
              description: Not ready.
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Readiness"}
      /metrics:
        get:
          operationId: metrics
          summary: Prometheus metrics
          security: []
          responses:
            "200":
              description: Metrics in the Prometheus text format.
              content:
                text/plain:
                  schema: {type: string}
      /openapi.json:
        get:
          operationId: openapi
          summary: This document
          security: []
          responses:
            "200":
              description: The OpenAPI document.
              content:
                application/json:
                  schema: {type: object}
      /v1/audit-events:
        get:
          operationId: listAuditEvents
          summary: The merchant's audit trail, newest first (admin keys only)
          parameters:
            - $ref: "#/components/parameters/limit"
            - $ref: "#/components/parameters/cursor"
          responses:
            "200":
              description: A page of audit events.
              content:
                application/json:
                  schema:
                    type: object
                    required: [data, nextCursor]
                    properties:
                      data:
                        type: array
                        items: {$ref: "#/components/schemas/AuditEvent"}
                      nextCursor: {type: [string, "null"]}
            "401": {$ref: "#/components/responses/Unauthorized"}
            "403": {$ref: "#/components/responses/Forbidden"}
            "422": {$ref: "#/components/responses/Invalid"}
    components:
      securitySchemes:
        bearer:
          type: http
          scheme: bearer
      parameters:
        limit:
          name: limit
          in: query
          required: false
          schema: {type: integer, minimum: 1, maximum: 100, default: 20}
        cursor:
          name: cursor
          in: query
          required: false
          schema: {type: string}
        idempotencyKey:
          name: Idempotency-Key
          in: header
          required: false
          schema: {type: string, minLength: 1, maxLength: 255}
      responses:
        BadRequest:
          description: Malformed request (not JSON, not UTF-8).
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        Unauthorized:
          description: No valid API key.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        Forbidden:
          description: The key's role may not do this.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        NotFound:
          description: No such object for this merchant.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        Conflict:
          description: Conflicts with the current state, or an Idempotency-Key reused with another request.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        TooLarge:
          description: The body is larger than the configured limit.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        UnsupportedMediaType:
          description: The body is not application/json.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
        Invalid:
          description: Well-formed JSON that breaks a rule; `param` names the field.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
      schemas:
        Error:
          type: object
          required: [error]
          properties:
            error:
              type: object
              required: [type, code, message, param]
              properties:
                type:
                  type: string
                  enum: [invalid_request_error, authentication_error, permission_error, not_found_error, conflict_error,
                         idempotency_error, rate_limit_error, card_error, api_error]
                code: {type: string}
                message: {type: string}
                param: {type: [string, "null"]}
        Readiness:
          type: object
          properties:
            status: {type: string, enum: [ready, not_ready]}
            database: {type: string}
            keys: {type: string}
        AuditEvent:
          type: object
          required: [sequence, id, occurredAt, actor, action, objectType, details, hash]
          properties:
            sequence: {type: integer}
            id: {type: string}
            occurredAt: {type: string, format: date-time}
            merchantId: {type: [string, "null"]}
            actor: {type: string}
            action: {type: string}
            objectType: {type: string}
            objectId: {type: [string, "null"]}
            details:
              type: object
              additionalProperties: {type: string}
            hash: {type: string}
    """
}

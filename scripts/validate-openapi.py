#!/usr/bin/env python3
"""Validates the vault's OpenAPI document against the OpenAPI specification.

Usage: scripts/validate-openapi.py DOCUMENT
DOCUMENT is a JSON file (what GET /openapi.json serves), an http(s) URL of one, or '-' for stdin.

Uses openapi-spec-validator (installed with pip for this user when missing). Prints every error
found with its location and exits 1, or prints one 'valid' line and exits 0. Exit 2: usage, or the
document could not be read or is not JSON.
"""
import json
import subprocess
import sys
import urllib.request


def load_validator():
    try:
        import openapi_spec_validator  # noqa: F401
    except ImportError:
        print("validate-openapi: installing openapi-spec-validator with pip", file=sys.stderr)
        command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "openapi-spec-validator"]
        if subprocess.call(command) != 0 and subprocess.call(command + ["--user"]) != 0:
            sys.exit("validate-openapi: could not install openapi-spec-validator")
    from openapi_spec_validator import OpenAPIV30SpecValidator, OpenAPIV31SpecValidator
    return {"3.0": OpenAPIV30SpecValidator, "3.1": OpenAPIV31SpecValidator}


def read(source: str) -> dict:
    try:
        if source == "-":
            text = sys.stdin.read()
        elif source.startswith(("http://", "https://")):
            with urllib.request.urlopen(source, timeout=30) as response:
                text = response.read().decode("utf-8")
        else:
            with open(source, encoding="utf-8") as handle:
                text = handle.read()
        document = json.loads(text)
    except (OSError, ValueError) as error:
        print(f"validate-openapi: cannot read {source}: {error}", file=sys.stderr)
        sys.exit(2)
    if not isinstance(document, dict):
        print(f"validate-openapi: {source} is not a JSON object", file=sys.stderr)
        sys.exit(2)
    return document


def main() -> int:
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    document = read(sys.argv[1])
    version = str(document.get("openapi", ""))
    validators = load_validator()
    validator_class = validators.get(version[:3])
    if validator_class is None:
        print(f"validate-openapi: 'openapi' is {version!r}; expected 3.0.x or 3.1.x", file=sys.stderr)
        return 1
    errors = list(validator_class(document).iter_errors())
    for error in errors:
        location = "/".join(str(part) for part in getattr(error, "absolute_path", [])) or "(root)"
        print(f"invalid at {location}: {error.message}")
    if errors:
        print(f"validate-openapi: {len(errors)} error(s) in the OpenAPI {version} document", file=sys.stderr)
        return 1
    paths = document.get("paths", {})
    operations = sum(1 for item in paths.values() for method in item if method in
                     ("get", "put", "post", "delete", "patch", "head", "options", "trace"))
    print(f"valid: OpenAPI {version}, {len(paths)} paths, {operations} operations")
    return 0


if __name__ == "__main__":
    sys.exit(main())

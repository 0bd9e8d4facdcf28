"""How API keys appear in the OpenAPI schema (spec 5, issue 6).

``ApiKeyAuthentication`` accepts the key in either of two equivalent headers, so the
schema declares two security schemes, either of which satisfies an operation (OR):
``ApiKeyHeader`` (``X-API-Key: <key>``) and ``BearerAuth`` (``Authorization: Bearer
<key>``). Loaded by ``KeysConfig.ready()``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension

from keys.secrets import CHECKSUM_LENGTH, PREFIX, RANDOM_LENGTH, SECRET_LENGTH

# The shape of a key, from keys/secrets.py (never copied by hand).
KEY_FORMAT = (
    f"`{PREFIX}` followed by {RANDOM_LENGTH + CHECKSUM_LENGTH} letters and digits "
    f"({SECRET_LENGTH} characters in all; the last {CHECKSUM_LENGTH} are a checksum, so a "
    "mistyped key is refused at once)"
)
_SCHEME_TEXT = f"The key is {KEY_FORMAT}. Keys are created, rotated and revoked in the dashboard."


class ApiKeySchemes(OpenApiAuthenticationExtension):
    target_class = "keys.authentication.ApiKeyAuthentication"
    name = ["ApiKeyHeader", "BearerAuth"]

    def get_security_requirement(self, auto_schema: Any) -> list[dict[str, list[Any]]]:
        """Either header authenticates: alternatives, not both together."""
        return [{"ApiKeyHeader": []}, {"BearerAuth": []}]

    def get_security_definition(self, auto_schema: Any) -> list[dict[str, Any]]:
        return [
            {
                "type": "apiKey",
                "in": "header",
                "name": "X-API-Key",
                "description": f"`X-API-Key: <key>`. {_SCHEME_TEXT}",
            },
            {
                "type": "http",
                "scheme": "bearer",
                "description": f"`Authorization: Bearer <key>`. {_SCHEME_TEXT}",
            },
        ]

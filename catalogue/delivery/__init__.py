"""The bytes a food record or page is served as: serializers, stored renderings, the
worker's memory of them and the copies shared through Redis, ETags (docs/development.md)."""

"""Settings of the server processes tests start (tests/support/servers.py): the
project's, with the fast password hasher the test process itself uses
(tests/conftest.py ``_fast_password_hasher``)."""

from foodservice.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

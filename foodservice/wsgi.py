import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "foodservice.settings")
django_application = get_wsgi_application()

from foodservice.http.framing import HttpFraming  # noqa: E402  (after Django is set up)

# Host required on HTTP/1.1, chunked bodies read (issue 24.6).
application = HttpFraming(django_application)

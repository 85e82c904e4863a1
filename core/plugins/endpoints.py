"""Which endpoint of an ASGI app answers a request, for plugins that know some by name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["endpoint_of"]


def endpoint_of(scope: Mapping[str, Any], app: object) -> object:
    """What answers the request `scope` in `app`: the endpoint (or app) of the route of a
    Starlette or FastAPI `app` that fully matches it, else `app` itself. Read by duck
    typing (`app.routes`, `route.matches(scope)`): nothing is imported."""
    for route in getattr(app, "routes", None) or ():
        matches = getattr(route, "matches", None)
        if matches is not None and getattr(matches(scope)[0], "name", None) == "FULL":
            return getattr(route, "endpoint", None) or getattr(route, "app", route)
    return app
